package runner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyTheRunnerRunsTheEngine keeps the drivers on the runner: outside
// lib/engine and lib/runner no product code makes an engine
// (engine.New), runs one (x.Engine.Run) or runs a seed again on the
// watchdog (RecheckWatchdog), so that no tool grows a pool of its own again.
func TestOnlyTheRunnerRunsTheEngine(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	for _, top := range []string{"lib", "cmd", "simtest"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				switch {
				case d.Name() == "testdata", rel == "lib/engine", rel == "lib/runner":
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			checked++
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				switch x := sel.X.(type) {
				case *ast.Ident:
					if x.Name == "engine" && sel.Sel.Name == "New" {
						t.Errorf("%s makes an engine: prepare the world with runner.Prepare", rel)
					}
				case *ast.SelectorExpr:
					if x.Sel.Name == "Engine" && sel.Sel.Name == "Run" {
						t.Errorf("%s runs the engine itself: make the run a runner.Job", rel)
					}
				}
				if sel.Sel.Name == "RecheckWatchdog" {
					t.Errorf("%s runs a seed again itself: set runner.Job.Recheck", rel)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 50 {
		t.Fatalf("checked %d files: the walk missed the tree", checked)
	}
}
