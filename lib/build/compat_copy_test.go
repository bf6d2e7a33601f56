package build

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompatCopyWithoutGoMod: a module that predates Go modules (like
// github.com/boltdb/bolt) has no go.mod in the module cache; its copy must
// get one, or the generated go.work's replace fails to load it. A module
// with its own go.mod keeps it. Removed files are gone and added ones there.
func TestCompatCopyWithoutGoMod(t *testing.T) {
	src := t.TempDir()
	for name, data := range map[string]string{"a.go": "package a\n", "a_unix.go": "package a\n"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := t.TempDir()
	shim := moduleShim{name: "test", files: map[string][]byte{"a_seedfall.go": []byte("package a\n")}, remove: []string{"a_unix.go"}}
	dst, err := compatCopy(store, "example.com/Old", "v1.0.0", src, shim)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dst, "go.mod")); err != nil || string(got) != "module example.com/Old\n" {
		t.Errorf("go.mod of the copy = %q, %v; want module example.com/Old", got, err)
	}
	if _, err := os.Stat(filepath.Join(dst, "a_unix.go")); !os.IsNotExist(err) {
		t.Errorf("a_unix.go should be left out of the copy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "a_seedfall.go")); err != nil {
		t.Errorf("the shim file is missing: %v", err)
	}

	src2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(src2, "go.mod"), []byte("module example.com/new\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst2, err := compatCopy(store, "example.com/new", "v1.0.0", src2, moduleShim{name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dst2, "go.mod")); string(got) != "module example.com/new\n\ngo 1.22\n" {
		t.Errorf("a module's own go.mod was changed: %q", got)
	}
}

// TestCompatShimFiles: every file a module shim adds parses as Go, builds
// only for wasm (a build constraint or a _wasm/_wasip1 name), and is named
// for the package directory it goes in; go-sockaddr's, for one, must build
// for wasip1 or memberlist does not build.
func TestCompatShimFiles(t *testing.T) {
	for mod, shim := range moduleShims {
		for path, data := range shim.files {
			f, err := parser.ParseFile(token.NewFileSet(), path, data, parser.ParseComments)
			if err != nil {
				t.Errorf("%s: %s does not parse: %v", mod, path, err)
				continue
			}
			wasmOnly := strings.HasSuffix(path, "_wasm.go") || strings.HasSuffix(path, "_wasip1.go") || bytes.Contains(data, []byte("//go:build wasip1"))
			if !wasmOnly {
				t.Errorf("%s: %s would build outside wasm", mod, path)
			}
			if dir := filepath.Base(filepath.Dir(path)); dir != "." && f.Name.Name != dir {
				t.Errorf("%s: %s is package %s, in directory %s", mod, path, f.Name.Name, dir)
			}
		}
	}
	if _, ok := moduleShims["github.com/hashicorp/go-sockaddr"].files["route_info_wasip1.go"]; !ok {
		t.Error("no wasip1 route file for github.com/hashicorp/go-sockaddr")
	}
}
