package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/engine/core"
)

// events are the entries of the hash that are not a guest's call of an
// import, with the adapter or core file that declares each.
var events = []core.Event{{Name: "poll_oneoff wake", ID: 45}, core.EventPreempt}

// TestCallIDsArePinned: every host function's call ID, and every event's, is
// part of the determinism hash's definition. testdata/callids.txt pins them;
// a change there changes every hash of every run that makes the call, so it
// is made only on purpose, with the determinism corpus regenerated.
func TestCallIDsArePinned(t *testing.T) {
	var got []string
	for _, a := range Adapters() {
		for _, f := range a.Funcs() {
			got = append(got, fmt.Sprintf("%s.%s %d", a.Module(), f.Name, f.ID))
		}
	}
	for _, e := range events {
		got = append(got, fmt.Sprintf("event %q %d", e.Name, e.ID))
	}
	sort.Strings(got)
	data, err := os.ReadFile(filepath.Join("testdata", "callids.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the host functions' call IDs are not the pinned ones.\ngot:\n%s\nwant (testdata/callids.txt):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestHostFunctionsGoThroughTheDispatcher: wazero gets a host function in
// one place only, core's dispatcher, so that every call is hashed, recorded
// and bounded. A host module built anywhere else in sf fails this test, and
// so does a package that instantiates one of wazero's own host modules (its
// WASI, emscripten or AssemblyScript imports).
func TestHostFunctionsGoThroughTheDispatcher(t *testing.T) {
	found, err := hostRegistrations(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: host functions are declared as core.HostFunc of an adapter and reach wazero only through %s", f, dispatcherFile)
	}
	// The check itself: the fixture declares host functions in each way
	// wazero allows, and each is found.
	found, err = hostRegistrations(filepath.Join("testdata", "hostoutside"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"outside.go calls NewHostModuleBuilder", "outside.go calls WithFunc", "outside.go calls WithGoFunction",
		"outside.go calls WithGoModuleFunction", "wasi.go imports github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1",
	}
	if strings.Join(found, "\n") != strings.Join(want, "\n") {
		t.Errorf("in testdata/hostoutside the check finds\n%s\nwant\n%s", strings.Join(found, "\n"), strings.Join(want, "\n"))
	}
}

// dispatcherFile is the one file that may hand wazero a host function.
var dispatcherFile = filepath.ToSlash(filepath.Join("lib", "engine", "core", "dispatch.go"))

// hostRegistrations lists, for the Go files under root but for tests,
// testdata and dispatcherFile, each call that builds a host module or a host
// function for wazero and each import of a host module of wazero's own, as
// "file calls name" or "file imports path", sorted.
func hostRegistrations(root string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", ".git", ".seedfall", "node_modules":
				if path != root {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == dispatcherFile {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "github.com/tetratelabs/wazero/imports/") {
				found = append(found, rel+" imports "+p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "NewHostModuleBuilder", "WithGoModuleFunction", "WithGoFunction", "WithFunc":
					found = append(found, rel+" calls "+sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	sort.Strings(found)
	return slices.Compact(found), err
}

// TestAdaptersDeclareEveryWasip1Import: every function Go's wasip1 port can
// import from WASI is declared by the WASI adapter.
func TestAdaptersDeclareEveryWasip1Import(t *testing.T) {
	h, err := core.NewHost(Adapters()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range strings.Fields(`args_get args_sizes_get environ_get environ_sizes_get clock_time_get
		random_get poll_oneoff sched_yield proc_exit fd_read fd_write fd_close fd_sync fd_fdstat_get
		fd_fdstat_set_flags fd_filestat_get fd_prestat_get fd_prestat_dir_name path_open path_filestat_get
		path_rename fd_pread fd_pwrite fd_seek fd_readdir fd_filestat_set_size fd_fdstat_set_rights
		path_filestat_set_times path_create_directory path_remove_directory path_unlink_file path_link
		path_symlink path_readlink sock_accept sock_shutdown`) {
		if !h.Provides("wasi_snapshot_preview1", name) {
			t.Errorf("wasi_snapshot_preview1.%s is not declared", name)
		}
	}
}

// TestNewHostRefusesBadDeclarations: the dispatcher takes no function
// without a body or a call ID, and none declared twice.
func TestNewHostRefusesBadDeclarations(t *testing.T) {
	run := func(*core.Call) {}
	for _, tt := range []struct {
		fns  []core.HostFunc
		want string
	}{
		{[]core.HostFunc{{Name: "f", ID: 1}}, "host module m: a function without a name or a body"},
		{[]core.HostFunc{{Name: "f", Run: run}}, "host function m.f: no call ID"},
		{[]core.HostFunc{{Name: "f", ID: 1, Run: run}, {Name: "f", ID: 2, Run: run}}, "host function m.f: declared twice"},
	} {
		_, err := core.NewHost(testAdapter(tt.fns))
		if err == nil || err.Error() != tt.want {
			t.Errorf("NewHost: %v, want %q", err, tt.want)
		}
	}
}

type testAdapter []core.HostFunc

func (testAdapter) Module() string           { return "m" }
func (a testAdapter) Funcs() []core.HostFunc { return a }
