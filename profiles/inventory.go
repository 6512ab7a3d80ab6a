package profiles

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// MergeInventoryFiles reads the inventories in the files at paths (the JSON `clickgen
// inventory --segment I/N` prints) and merges them into the whole run's
// ([world.MergeInventories]). Each is read as every input is (fileio.Read: at most
// world.MaxInventoryBytes; a FIFO, a pipe or a device within fileio.DefaultWait; given up when
// ctx ends, wrapping its cause). A file that cannot be read or decoded, or is not an
// inventory (no generator_version: null, {}), is a *[ValueError] named inventory file, with
// the file.
func MergeInventoryFiles(ctx context.Context, paths []string) (*world.Inventory, error) {
	var invs []*world.Inventory
	for _, path := range paths {
		data, err := fileio.Read(ctx, path, fileio.Limit{Bytes: world.MaxInventoryBytes})
		if err != nil {
			return nil, &ValueError{Field: "inventory file", Err: err} // the *fs.PathError names the file
		}
		inv := new(world.Inventory)
		if err := json.Unmarshal(data, inv); err != nil {
			return nil, &ValueError{Field: "inventory file", Value: path, Err: err}
		}
		if inv.GeneratorVersion == "" {
			// null and {} decode into the zero Inventory, which merged into an empty one;
			// plot refuses the same file in the same words.
			return nil, &ValueError{Field: "inventory file", Value: path, Err: errors.New(`not a clickgen inventory: no "generator_version" key`)}
		}
		invs = append(invs, inv)
	}
	return world.MergeInventories(invs...)
}
