package sink_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlySinksSend (issue 28): a sink only sends, and every listener of a run is an
// observer of it (play.Observer), never a wrapper around the sink: no type outside
// generator/produce/sink has a method Send(ctx, sink.Message), in any non-test file of the module.
// (Tests keep their fake sinks, and a program using the engine brings its own: that is what
// the interface is for.) The module's files are parsed, not grepped, so a method that spans
// lines or is named through an alias is still found.
func TestOnlySinksSend(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(root, "generator", "produce", "sink") + string(filepath.Separator)
	fset := token.NewFileSet()
	var parsed int
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasPrefix(path, self) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		parsed++
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Send" || fn.Type.Params.NumFields() != 2 {
				continue
			}
			params := fn.Type.Params.List
			last := params[len(params)-1].Type
			if sel, ok := last.(*ast.SelectorExpr); ok && sel.Sel.Name == "Message" {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s: %s implements the sink's Send outside generator/produce/sink: listen to the run as a play.Observer instead",
					rel, fset.Position(fn.Pos()))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if parsed < 50 {
		t.Fatalf("parsed %d files of the module, want its whole source (is %s its root?)", parsed, root)
	}
}
