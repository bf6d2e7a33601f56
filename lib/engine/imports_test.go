package engine

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportGraph enforces the layout: the SDK every guest imports uses
// only the standard library, and no library package imports a command.
func TestImportGraph(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", ".git", ".seedfall", "examples", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case strings.HasPrefix(rel, "sim/") && strings.Contains(strings.Split(p, "/")[0], "."):
				t.Errorf("%s imports %s: the SDK may use only the standard library", rel, p)
			case strings.HasPrefix(p, "github.com/sf-dst/sf/cmd"):
				t.Errorf("%s imports the command %s", rel, p)
			case strings.HasPrefix(rel, "lib/") && p == "github.com/sf-dst/sf/sim":
				t.Errorf("%s imports the guest SDK", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
