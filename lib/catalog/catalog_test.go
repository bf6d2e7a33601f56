package catalog

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The guest modules under testdata have their own go.mod files and reach
// the sim SDK, a fake Antithesis SDK and a third-party module through
// replace directives, so go list needs neither the repository's workspace
// nor the network.
func TestMain(m *testing.M) {
	os.Setenv("GOWORK", "off")
	os.Setenv("GOPROXY", "off")
	os.Setenv("GOTOOLCHAIN", "local")
	os.Setenv("GOFLAGS", "")
	os.Exit(m.Run())
}

var (
	serverDir = filepath.Join("testdata", "guest", "server")
	clientDir = filepath.Join("testdata", "guest", "client")
)

func prop(kind, msg, file string, line int) Property {
	return Property{Kind: kind, Message: msg, File: file, Line: line}
}

func numeric(kind, cmp, msg, file string, line int) Property {
	return Property{Kind: kind, Message: msg, File: file, Line: line, Numeric: cmp}
}

// wantGuest is the catalog of testdata/guest's server and client, in order.
var wantGuest = &Catalog{
	Properties: []Property{
		prop("reachable", "antithesis through an alias", "client/alias.go", 5),
		prop("always", "antithesis always", "client/antithesis.go", 10),
		prop("alwaysOrUnreachable", "antithesis always or unreachable", "client/antithesis.go", 11),
		prop("sometimes", "antithesis sometimes", "client/antithesis.go", 12),
		prop("reachable", "antithesis reachable", "client/antithesis.go", 13),
		prop("unreachable", "antithesis unreachable", "client/antithesis.go", 14),
		numeric("always", "gt", "antithesis always gt", "client/antithesis.go", 15),
		numeric("always", "ge", "antithesis always ge", "client/antithesis.go", 16),
		numeric("always", "lt", "antithesis always lt", "client/antithesis.go", 17),
		numeric("always", "le", "antithesis always le", "client/antithesis.go", 18),
		numeric("sometimes", "gt", "antithesis sometimes gt", "client/antithesis.go", 19),
		numeric("sometimes", "ge", "antithesis sometimes ge", "client/antithesis.go", 20),
		numeric("sometimes", "lt", "antithesis sometimes lt", "client/antithesis.go", 21),
		numeric("sometimes", "le", "antithesis sometimes le", "client/antithesis.go", 22),
		prop("always", "antithesis always some", "client/antithesis.go", 23),
		prop("sometimes", "antithesis sometimes all", "client/antithesis.go", 24),
		prop("always", "client: antithesis with a constant", "client/antithesis.go", 25),
		prop("sometimes", "dot-imported", "client/dot.go", 6),
		prop("always", "concatenated literals", "client/main.go", 15),
		prop("sometimes", "client: acknowledged write", "client/main.go", 16),
		prop("reachable", "typed constant", "client/main.go", 17),
		prop("reachable", "repeated", "client/main.go", 18),
		numeric("always", "lt", "explicit instantiation", "client/main.go", 19),
		prop("reachable", "parenthesized", "client/main.go", 20),
		prop("reachable", "local client: ", "client/main.go", 22),
		prop("reachable", "shadowed const in a block", "client/main.go", 25),
		prop("reachable", "client: after the block", "client/main.go", 27),
		prop("always", "the store keeps its order", "internal/store/store.go", 8),
		prop("always", "always holds", "server/main.go", 16),
		prop("alwaysOrUnreachable", "always or unreachable", "server/main.go", 17),
		prop("sometimes", "sometimes true", "server/main.go", 18),
		prop("reachable", "reached", "server/main.go", 19),
		prop("unreachable", "never reached", "server/main.go", 20),
		numeric("always", "gt", "always gt", "server/main.go", 21),
		numeric("always", "ge", "always ge", "server/main.go", 22),
		numeric("always", "lt", "always lt", "server/main.go", 23),
		numeric("always", "le", "always le", "server/main.go", 24),
		numeric("sometimes", "gt", "sometimes gt", "server/main.go", 25),
		numeric("sometimes", "ge", "sometimes ge", "server/main.go", 26),
		numeric("sometimes", "lt", "sometimes lt", "server/main.go", 27),
		numeric("sometimes", "le", "sometimes le", "server/main.go", 28),
		prop("always", "always some", "server/main.go", 29),
		prop("sometimes", "sometimes all", "server/main.go", 30),
		prop("eventually", "eventually true", "server/main.go", 31),
		prop("reachable", "inside a function literal", "server/main.go", 32),
		prop("reachable", "twice", "server/main.go", 43),
		prop("reachable", "twice", "server/main.go", 46),
		prop("reachable", "only in the simulator", "server/wasm.go", 7),
	},
	Sites: []Site{
		{Name: "variable probability", Prob: -1, File: "client/main.go", Line: 33},
		{Name: "constant probability", Prob: 0.125, File: "client/main.go", Line: 34},
		{Name: "iota probability", Prob: 0.25, File: "client/main.go", Line: 35},
		{Name: "integer division", Prob: 0.2, File: "client/main.go", Line: 36},
		{Name: "default site", Prob: 0, File: "server/main.go", Line: 35},
		{Name: "half site", Prob: 0.5, File: "server/main.go", Line: 38},
	},
	Uncataloged: []Location{
		{File: "client/antithesis.go", Line: 26, Function: "assert.Sometimes"},
		{File: "client/main.go", Line: 29, Function: "sim.Sometimes"},
		{File: "client/main.go", Line: 30, Function: "sim.Always"},
		{File: "client/main.go", Line: 31, Function: "sim.Always"},
		{File: "client/main.go", Line: 32, Function: "sim.Buggify"},
	},
}

func scan(t *testing.T, dirs ...string) *Catalog {
	t.Helper()
	c, err := Scan(dirs)
	if err != nil {
		t.Fatalf("Scan(%q): %v", dirs, err)
	}
	return c
}

func diffCatalogs(t *testing.T, got, want *Catalog) {
	t.Helper()
	diffList(t, "property", got.Properties, want.Properties)
	diffList(t, "site", got.Sites, want.Sites)
	diffList(t, "uncataloged", got.Uncataloged, want.Uncataloged)
}

func diffList[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	for i := 0; i < max(len(got), len(want)); i++ {
		switch {
		case i >= len(got):
			t.Errorf("%s %d: missing, want %+v", what, i, want[i])
		case i >= len(want):
			t.Errorf("%s %d: unexpected %+v", what, i, got[i])
		case got[i] != want[i]:
			t.Errorf("%s %d:\n got %+v\nwant %+v", what, i, got[i], want[i])
		}
	}
}

func TestScanGuest(t *testing.T) {
	diffCatalogs(t, scan(t, serverDir, clientDir), wantGuest)
}

// The catalog does not depend on the order of the directories, on repeats,
// or on a package (internal/store) being reached from two of them.
func TestScanDeterministic(t *testing.T) {
	a := scan(t, clientDir, serverDir)
	b := scan(t, serverDir, clientDir, "./"+serverDir, serverDir+"/")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the catalog depends on the order of the directories")
	}
	diffCatalogs(t, a, wantGuest)
}

// Each message here is written in the guest's source, or in a module it
// imports, and must not be in its catalog.
func TestScanLeavesOut(t *testing.T) {
	c := scan(t, serverDir, clientDir)
	for _, tc := range []struct{ name, msg string }{
		{"third-party module", "a third-party property"},
		{"third-party SDK's own calls", "the fake SDK's own property"},
		{"file excluded by a build tag", "only on the host"},
		{"test file", "in a test"},
		{"local variable named like the import", "a local named sim"},
		{"parameter named like an alias", "a parameter named s"},
		{"local function named like a dot import", "a local func named like a dot-imported one"},
		{"Assert", "an assert is not a property"},
		{"Fail", "fail is not a property"},
		{"Event", "an event is not a property"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, p := range c.Properties {
				if p.Message == tc.msg {
					t.Errorf("cataloged %+v", p)
				}
			}
		})
	}
}

func TestLocations(t *testing.T) {
	c := scan(t, serverDir, clientDir)
	for _, tc := range []struct {
		name, kind, msg string
		want            []string
	}{
		{"two places", "reachable", "twice", []string{"server/main.go:43", "server/main.go:46"}},
		{"internal package reached from both nodes", "always", "the store keeps its order", []string{"internal/store/store.go:8"}},
		{"numeric form", "always", "always ge", []string{"server/main.go:22"}},
		{"not where a local variable shadows the constant", "sometimes", "client: acknowledged write", []string{"client/main.go:16"}},
		{"kind is part of the identity", "sometimes", "twice", nil},
		{"absent", "always", "no such property", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Locations(tc.kind, tc.msg); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Locations(%q, %q) = %q, want %q", tc.kind, tc.msg, got, tc.want)
			}
		})
	}
	if got, want := c.SiteLocations("half site"), []string{"server/main.go:38"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SiteLocations(half site) = %q, want %q", got, want)
	}
	if got := c.SiteLocations("no such site"); got != nil {
		t.Errorf("SiteLocations(no such site) = %q, want nil", got)
	}
	if got, want := c.Uncataloged[0].String(), "client/antithesis.go:26"; got != want {
		t.Errorf("Location.String() = %q, want %q", got, want)
	}
}

// In a workspace every workspace module is the user's own code, so a
// library module used from the workspace is cataloged too, located relative
// to the scanned package's module.
func TestScanWorkspace(t *testing.T) {
	guest, _ := filepath.Abs(filepath.Join("testdata", "guest"))
	third, _ := filepath.Abs(filepath.Join("testdata", "thirdparty"))
	work := filepath.Join(t.TempDir(), "go.work")
	writeFile(t, work, fmt.Sprintf("go 1.26\n\nuse (\n\t%q\n\t%q\n)\n", guest, third))
	t.Setenv("GOWORK", work)
	c := scan(t, serverDir)
	want := []string{"../thirdparty/lib/lib.go:8"}
	if got := c.Locations("always", "a third-party property"); !reflect.DeepEqual(got, want) {
		t.Errorf("Locations(a third-party property) = %q, want %q", got, want)
	}
	if got := c.Locations("always", "the fake SDK's own property"); got != nil {
		t.Errorf("a module outside the workspace was cataloged at %q", got)
	}
}

func TestScanEmpty(t *testing.T) {
	t.Setenv("PATH", "") // no go command needed
	c, err := Scan(nil)
	if err != nil || !reflect.DeepEqual(c, &Catalog{}) {
		t.Errorf("Scan(nil) = %+v, %v; want an empty catalog", c, err)
	}
}

func TestScanErrors(t *testing.T) {
	t.Run("no toolchain", func(t *testing.T) {
		t.Setenv("PATH", "")
		_, err := Scan([]string{serverDir})
		if !errors.Is(err, ErrNoToolchain) {
			t.Fatalf("err = %v, want ErrNoToolchain", err)
		}
		want := "no Go toolchain found: the property catalog runs `go list` to find a package's files; install Go 1.26 or later and put `go` on PATH"
		if err.Error() != want {
			t.Errorf("err = %q\nwant %q", err, want)
		}
	})
	t.Run("go list fails", func(t *testing.T) {
		dir := t.TempDir() // no go.mod here or above
		_, err := Scan([]string{dir})
		want := "go list in " + dir + ": exit status 1:\n    go: go.mod file not found in current directory or any parent directory"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("err = %v\nwant it to start with %q", err, want)
		}
	})
	t.Run("missing directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "gone")
		_, err := Scan([]string{dir})
		want := "go list in " + dir + ": chdir " + dir + ": no such file or directory"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %q", err, want)
		}
	})
	t.Run("syntax error", func(t *testing.T) {
		// go list reads only the imports, so the body's error is the parser's.
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/bad\n\ngo 1.26\n")
		writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {\n\tx := \n}\n")
		_, err := Scan([]string{dir})
		want := filepath.Join(dir, "main.go") + ":5:1: expected operand, found '}'"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %q", err, want)
		}
	})
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// listOutput runs the go list that ScanListed can be given, in dir.
func listOutput(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-json="+ListFields, ".")
	cmd.Dir = abs
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v", dir, err)
	}
	return abs, out
}

// TestScanListed: given listings, the catalog is the one Scan finds, and it
// runs no go command for a directory it has a listing of (PATH holds none
// when every directory is listed).
func TestScanListed(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	server, serverList := listOutput(t, serverDir)
	client, clientList := listOutput(t, clientDir)

	c, err := ScanListed("", []string{serverDir, clientDir}, map[string][]byte{server: serverList})
	if err != nil {
		t.Fatalf("ScanListed with the server listed: %v", err)
	}
	diffCatalogs(t, c, wantGuest)

	t.Setenv("PATH", "")
	all := map[string][]byte{server: serverList, client: clientList}
	if c, err = ScanListed("", []string{serverDir, clientDir}, all); err != nil {
		t.Fatalf("ScanListed with both listed and no go on PATH: %v", err)
	}
	diffCatalogs(t, c, wantGuest)
	if _, err := ScanListed("", []string{serverDir, clientDir}, map[string][]byte{server: serverList}); !errors.Is(err, ErrNoToolchain) {
		t.Errorf("ScanListed with a directory left to list and no go: %v, want ErrNoToolchain", err)
	}
	if _, err := ScanListed("", []string{serverDir}, map[string][]byte{server: []byte("{")}); err == nil || !strings.Contains(err.Error(), "reading its output") {
		t.Errorf("ScanListed of a cut listing: %v, want an error about its output", err)
	}
}
