package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/faults"
)

// TestEveryCountedKindIsApplied: a kind planned in time is applied by its
// own Apply (lib/faults checks it has one); a counted kind is applied where
// the engine counts its event, by name. So the engine's code, the core or
// an adapter, must name every counted kind of the registry: one that it
// never names is registered but fires nowhere.
func TestEveryCountedKindIsApplied(t *testing.T) {
	consts := kindConstants(t)
	named := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "faults" {
					if kind, ok := consts[sel.Sel.Name]; ok {
						named[kind] = true
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	counted := 0
	for _, k := range faults.Registry() {
		if !k.Positional() {
			continue
		}
		counted++
		if !named[k.Name] {
			t.Errorf("counted kind %s (at a numbered %s) is named nowhere in lib/engine: nothing fires it", k.Name, k.Counter)
		}
	}
	if counted < 10 {
		t.Fatalf("only %d counted kinds in the registry: the test reads it wrong", counted)
	}
}

// kindConstants maps the names of lib/faults' kind constants to the kinds
// they name, from the package's source.
func kindConstants(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "faults", "kinds.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.HasPrefix(name.Name, "Kind") {
					out[name.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	return out
}
