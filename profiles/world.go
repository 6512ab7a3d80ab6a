package profiles

import (
	"context"
	"errors"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// NewWorld builds the world of p, a profile whose defaults are applied
// ([Profile.WithDefaults]) or that is complete ([Batch]): the one constructor of a world every
// verb goes through. It refuses first a scale no world has
// ([CheckScale]: --scale 5000 is out of range whatever the memory), then a run whose memory
// cannot fit under limit ([CheckFootprint], for workers render workers and p's garbage;
// the command measures limit, the zero limit is none), then reads p's catalog ([LoadCatalog]:
// a *[ValueError] named world.catalog when it cannot be read or parsed), refuses a run whose
// memory cannot fit with the catalog's rows counted, and builds the world. A seed of 0 is
// the canonical one: a caller that took the seed from a user checks it first ([CheckSeed]).
func (p Profile) NewWorld(ctx context.Context, limit MemoryLimit, workers int) (*world.World, error) {
	if err := CheckScale(p.World.Scale); err != nil {
		return nil, err
	}
	f := world.Footprint{Scale: p.World.Scale, Garbage: p.Garbage, Workers: workers}
	if err := CheckFootprint(f, limit); err != nil {
		return nil, err
	}
	c, size, err := loadCatalog(ctx, p.World.Catalog)
	if err != nil {
		return nil, err
	}
	if c != nil {
		f.Products, f.CatalogBytes = len(c.Products), size
		if err := CheckFootprint(f, limit); err != nil {
			return nil, err
		}
	}
	return world.NewWorld(world.Params{Seed: p.World.Seed, Scale: p.World.Scale, Catalog: c})
}

// LoadCatalog reads and parses the catalog file at path (nil for ""), as every input is read
// (fileio.Read: at most world.MaxCatalogBytes; a FIFO, a pipe or a device within
// fileio.DefaultWait; given up when ctx ends, wrapping its cause); an error is a *[ValueError]
// named world.catalog, with the path and, for a bad file, the line and column.
func LoadCatalog(ctx context.Context, path string) (*world.Catalog, error) {
	c, _, err := loadCatalog(ctx, path)
	return c, err
}

// loadCatalog is LoadCatalog, returning the file's size too.
func loadCatalog(ctx context.Context, path string) (*world.Catalog, int, error) {
	if path == "" {
		return nil, 0, nil
	}
	data, err := fileio.Read(ctx, path, fileio.Limit{Bytes: world.MaxCatalogBytes})
	if err != nil {
		return nil, 0, &ValueError{Field: "world.catalog", Err: err} // the *fs.PathError names the path
	}
	c, err := world.ParseCatalog(data)
	if err != nil {
		return nil, 0, &ValueError{Field: "world.catalog", Value: path, Err: err}
	}
	return c, len(data), nil
}

// CheckFootprint refuses, before anything is built or sent, a run whose footprint
// ([world.Footprint.Need]: its scale and garbage, its render workers and its catalog) does not
// fit under limit ([MemoryLimit.Check]; the command measures it from --max-memory, the
// cgroup's limit, the address-space limit and the system's available memory). Scale 1000
// used to draw 24 GB and set off the OOM killer. The refusal is a *[FootprintError], which
// names each part that adds memory.
func CheckFootprint(f world.Footprint, limit MemoryLimit) error {
	var me *MemoryError
	if err := limit.Check(f.Need()); errors.As(err, &me) {
		return &FootprintError{Footprint: f, Err: me}
	}
	return nil
}

// CheckDays refuses model days the wire formats cannot carry (see [world.MaxDay]), as a
// *[ValueError] named play.day when the first day is out of range, else play.days: day
// 9223372036854775807 used to exit 0 having sent nothing, and from day 29 105 on
// UTCEventTime wrapped to 1970.
func CheckDays(from, n int) error {
	if err := world.CheckDays(from, n); err != nil {
		f := "play.days"
		if from < 0 || from > world.MaxDay {
			f = "play.day"
		}
		return &ValueError{Field: f, Err: err}
	}
	return nil
}
