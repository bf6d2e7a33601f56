package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// goLogger puts a go command first on PATH that appends its subcommand to a
// log and then runs the real go. It returns the PATH to use and a function
// that returns the subcommands logged since its last call.
func goLogger(t *testing.T) (path string, since func() []string) {
	t.Helper()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	bin := filepath.Join(t.TempDir(), "gobin")
	log := filepath.Join(bin, "log")
	script := "#!/bin/sh\necho \"$1\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	seen := 0
	return bin + string(os.PathListSeparator) + os.Getenv("PATH"), func() []string {
		data, _ := os.ReadFile(log)
		lines := strings.Fields(string(data))
		out := lines[seen:]
		seen = len(lines)
		return out
	}
}

type cacheManifest struct {
	Modules []struct {
		Node, SHA256 string
		Cached       bool
	}
}

// buildOwn runs sf-build on ownModule's world in dir, with path as PATH
// (goLogger's), and returns its manifest of two modules and the go commands
// logged since the last call.
func buildOwn(t *testing.T, dir, path string, since func() []string) (cacheManifest, []string) {
	t.Helper()
	r := runBin(t, clitest.Cmd{Dir: dir, Env: []string{"PATH=" + path}}, tools.Path("sf-build"), "-c", "sim/seedfall.json")
	r.WantExit(t, 0)
	var m cacheManifest
	if err := json.Unmarshal([]byte(r.Stdout), &m); err != nil || len(m.Modules) != 2 {
		t.Fatalf("want a manifest of two modules: %v\n%s", err, r)
	}
	return m, since()
}

// TestContentCache: a second sf-build of an unchanged world, and the sweep
// after it, run no go build at all; editing a source file of one package
// rebuilds that package only.
func TestContentCache(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := ownModule(t)
	keyComment(t, dir, dir)
	path, since := goLogger(t)
	build := func() (cacheManifest, []string) { return buildOwn(t, dir, path, since) }
	first, cmds := build()
	if n := countCmds(cmds, "build"); n != 2 {
		t.Errorf("first build ran go build %d times, want 2 (server and client): %q", n, cmds)
	}
	second, cmds := build()
	if n := countCmds(cmds, "build"); n != 0 {
		t.Errorf("second build of an unchanged world ran go build %d times, want 0: %q", n, cmds)
	}
	for i, m := range second.Modules {
		if !m.Cached || m.SHA256 != first.Modules[i].SHA256 {
			t.Errorf("second build of %s: cached %v, sha256 %s then %s", m.Node, m.Cached, first.Modules[i].SHA256, m.SHA256)
		}
	}
	r := runBin(t, clitest.Cmd{Dir: dir, Env: []string{"PATH=" + path}}, tools.Path("sf-run"), "-c", "sim/seedfall.json", "-seeds", "1-2")
	r.WantExit(t, 0)
	if cmds := since(); countCmds(cmds, "build") != 0 {
		t.Errorf("the sweep after sf-build ran go build: %q", cmds)
	}

	server := filepath.Join(dir, "cmd", "server", "main.go")
	src, err := os.ReadFile(server)
	if err != nil {
		t.Fatal(err)
	}
	clitest.WriteFile(t, server, []byte(strings.Replace(string(src), `":7000"`, `":7001"`, 1)))
	third, cmds := build()
	if n := countCmds(cmds, "build"); n != 1 {
		t.Errorf("after editing the server, go build ran %d times, want 1: %q", n, cmds)
	}
	for i, m := range third.Modules {
		changed := m.SHA256 != second.Modules[i].SHA256
		if want := m.Node == "server"; changed != want || m.Cached == want {
			t.Errorf("after editing the server, module of %s: changed %v, cached %v", m.Node, changed, m.Cached)
		}
	}
}

// TestSharedBuildStore: with SF_CACHE_DIR set, a copy of a world in another
// folder takes the modules the first folder built, with no go build; a
// damaged module in the shared store is never used, but built again and
// put back.
func TestSharedBuildStore(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	shared := t.TempDir() // of this test's own, so only its builds fill it
	path, since := goLogger(t)
	build := func(dir string) (cacheManifest, []string) {
		t.Helper()
		r := runBin(t, clitest.Cmd{Dir: dir, Env: []string{"PATH=" + path, "SF_CACHE_DIR=" + shared}}, tools.Path("sf-build"), "-c", "sim/seedfall.json")
		r.WantExit(t, 0)
		var m cacheManifest
		if err := json.Unmarshal([]byte(r.Stdout), &m); err != nil || len(m.Modules) != 2 {
			t.Fatalf("want a manifest of two modules: %v\n%s", err, r)
		}
		return m, since()
	}
	first, cmds := build(ownModule(t))
	if n := countCmds(cmds, "build"); n != 2 {
		t.Fatalf("first build ran go build %d times, want 2 (server and client): %q", n, cmds)
	}
	second, cmds := build(ownModule(t))
	if n := countCmds(cmds, "build"); n != 0 {
		t.Errorf("a copy of the world in another folder ran go build %d times, want 0: %q", n, cmds)
	}
	for i, m := range second.Modules {
		if !m.Cached || m.SHA256 != first.Modules[i].SHA256 {
			t.Errorf("the copy's module of %s: cached %v, sha256 %s, want the first folder's %s", m.Node, m.Cached, m.SHA256, first.Modules[i].SHA256)
		}
	}

	server := first.Modules[0]
	if server.Node != "server" {
		t.Fatalf("first module is %s's, want the server's", server.Node)
	}
	damaged := filepath.Join(shared, "build", server.SHA256+".wasm")
	data, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatalf("the shared store does not hold the server's module: %v", err)
	}
	data[len(data)/2] ^= 0xff
	clitest.WriteFile(t, damaged, data)
	third, cmds := build(ownModule(t))
	if n := countCmds(cmds, "build"); n != 1 {
		t.Errorf("with the server's shared module damaged, go build ran %d times, want 1 (the server): %q", n, cmds)
	}
	for i, m := range third.Modules {
		if m.SHA256 != first.Modules[i].SHA256 || m.Cached != (m.Node != "server") {
			t.Errorf("with the server's shared module damaged, module of %s: cached %v, sha256 %s, want %s", m.Node, m.Cached, m.SHA256, first.Modules[i].SHA256)
		}
	}
	if _, cmds := build(ownModule(t)); countCmds(cmds, "build") != 0 {
		t.Errorf("after the rebuild, a fourth copy ran go build: %q (the damaged module was not put back)", cmds)
	}
}

// TestStartListsPackagesOnce: an up-to-date sweep of a world without
// overlays lists no package (the content key's listing is kept, and feeds
// the property catalog too) and builds nothing; editing the source lists the
// package once, rebuilds it, and the catalog sees the edited file.
func TestStartListsPackagesOnce(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "svc")
	clitest.WriteFile(t, filepath.Join(dir, "go.mod"), []byte(fmt.Sprintf(
		"module example.com/svc\n\ngo 1.26\n\nrequire github.com/sf-dst/sf/sim v0.0.0\n\nreplace github.com/sf-dst/sf/sim => %s\n",
		filepath.Join(tools.Root, "sim"))))
	keyComment(t, dir, dir)
	src := filepath.Join(dir, "work", "main.go")
	program := func(unreached string) []byte {
		return []byte(`package main

import (
	"os"

	"github.com/sf-dst/sf/sim"
)

func main() {
	sim.Reachable("the workload ran")
	if len(os.Args) > 5 {
		sim.Reachable("` + unreached + `")
	}
}
`)
	}
	clitest.WriteFile(t, src, program("first dead branch"))
	clitest.WriteJSON(t, filepath.Join(dir, "seedfall.json"), map[string]any{
		"workload": map[string]any{"name": "work", "pkg": "./work"},
		"duration": "1s",
	})
	clitest.AgeFiles(t, dir)
	path, since := goLogger(t)
	sweep := func(unreached string) []string {
		t.Helper()
		r := runBin(t, clitest.Cmd{Dir: dir, Env: []string{"PATH=" + path}}, tools.Path("sf-run"), "-c", "seedfall.json", "-seeds", "1-1")
		r.WantExit(t, 1) // the dead branch is never reached
		if !strings.Contains(r.Stdout, unreached) || !strings.Contains(r.Stdout, "work/main.go:12") {
			t.Errorf("the sweep did not report %q, never reached at work/main.go:12:\n%s", unreached, r)
		}
		return since()
	}
	if cmds := sweep("first dead branch"); countCmds(cmds, "build") != 1 {
		t.Errorf("the first sweep ran go build %d times, want 1: %q", countCmds(cmds, "build"), cmds)
	}
	cmds := sweep("first dead branch")
	if countCmds(cmds, "build") != 0 || countCmds(cmds, "list") != 0 {
		t.Errorf("an up-to-date sweep ran go build %d times and go list %d times, want 0 and 0 (the listing is kept): %q", countCmds(cmds, "build"), countCmds(cmds, "list"), cmds)
	}
	clitest.WriteFile(t, src, program("second dead branch"))
	clitest.AgeFiles(t, filepath.Dir(src))
	cmds = sweep("second dead branch")
	if countCmds(cmds, "build") != 1 || countCmds(cmds, "list") != 1 {
		t.Errorf("after an edit, the sweep ran go build %d times and go list %d times, want 1 and 1: %q", countCmds(cmds, "build"), countCmds(cmds, "list"), cmds)
	}
}

// TestListingCache: a start of an unchanged world runs no go list, with or
// without the compat_overlay, whose own listing also feeds the catalog; a
// file added to a package, a build constraint lifted in a file the listing
// left out, and an edit of go.mod each make the next start list again, and
// the first two rebuild the package with the new file in it.
func TestListingCache(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := ownModule(t)
	keyComment(t, dir, dir)
	clitest.AgeFiles(t, dir)
	path, since := goLogger(t)
	build := func() (cacheManifest, []string) { return buildOwn(t, dir, path, since) }
	first, cmds := build()
	if countCmds(cmds, "list") == 0 {
		t.Fatalf("the first build ran no go list: %q", cmds)
	}
	if _, cmds := build(); countCmds(cmds, "list") != 0 || countCmds(cmds, "build") != 0 {
		t.Errorf("an unchanged world's build ran go list %d and go build %d times, want 0 and 0: %q", countCmds(cmds, "list"), countCmds(cmds, "build"), cmds)
	}
	r := runBin(t, clitest.Cmd{Dir: dir, Env: []string{"PATH=" + path}}, tools.Path("sf-run"), "-c", "sim/seedfall.json", "-seeds", "1-1")
	r.WantExit(t, 0)
	if cmds := since(); countCmds(cmds, "list") != 0 || countCmds(cmds, "build") != 0 {
		t.Errorf("a sweep of an unchanged world ran go list %d and go build %d times, want 0 and 0: %q\n%s", countCmds(cmds, "list"), countCmds(cmds, "build"), cmds, r.Stderr)
	}
	// With the compat_overlay: its listing is kept too, and the catalog
	// takes it instead of listing the packages again.
	for i, want := range []string{"listed", "kept"} {
		r := runBin(t, clitest.Cmd{Dir: dir, Env: []string{"PATH=" + path}}, tools.Path("sf-run"), "-c", "sim/seedfall.json", "-seeds", "1-1", "-set", "compat_overlay=true")
		r.WantExit(t, 0)
		cmds := since()
		if n := countCmds(cmds, "list"); i == 1 && n != 0 || i == 0 && n == 0 {
			t.Errorf("compat_overlay sweep %d (%s): go list ran %d times: %q", i+1, want, n, cmds)
		}
	}

	server := func(name string) string { return filepath.Join(dir, "cmd", "server", name) }
	rebuilt := func(what string, prev cacheManifest) cacheManifest {
		t.Helper()
		m, cmds := build()
		if countCmds(cmds, "list") == 0 || countCmds(cmds, "build") != 1 {
			t.Errorf("after %s, go list ran %d and go build %d times, want some and 1: %q", what, countCmds(cmds, "list"), countCmds(cmds, "build"), cmds)
		}
		for i, mod := range m.Modules {
			if changed := mod.SHA256 != prev.Modules[i].SHA256; changed != (mod.Node == "server") {
				t.Errorf("after %s, module of %s changed: %v", what, mod.Node, changed)
			}
		}
		return m
	}
	// A new file in the server's package, which the kept listing does not
	// name; the module it builds differs, since main prints it.
	clitest.WriteFile(t, server("extra.go"), "package main\n\nfunc init() { println(\"extra file\") }\n")
	clitest.AgeFiles(t, server(""))
	second := rebuilt("adding a file to the server", first)

	// A file whose constraint leaves it out: listed again, nothing rebuilt;
	// then the constraint is lifted (same size) and the server rebuilt.
	clitest.WriteFile(t, server("later.go"), "//go:build ignore\n\npackage main\n\nfunc init() { println(\"later file\") }\n")
	clitest.AgeFiles(t, server(""))
	if _, cmds := build(); countCmds(cmds, "list") == 0 || countCmds(cmds, "build") != 0 {
		t.Errorf("after adding a file left out by its constraint, go list ran %d and go build %d times, want some and 0: %q", countCmds(cmds, "list"), countCmds(cmds, "build"), cmds)
	}
	clitest.WriteFile(t, server("later.go"), "//go:build wasip1\n\npackage main\n\nfunc init() { println(\"later file\") }\n")
	clitest.AgeFiles(t, server(""))
	rebuilt("lifting a file's constraint", second)

	keyComment(t, dir, "edited")
	clitest.AgeFiles(t, filepath.Join(dir, "go.mod"))
	if _, cmds := build(); countCmds(cmds, "list") == 0 {
		t.Errorf("after an edit of go.mod, the build ran no go list: %q", cmds)
	}
}

// keyComment adds a comment to the go.mod in dir. The tests share one
// SF_CACHE_DIR, whose build store would otherwise answer a first build with
// the module another test (or an earlier make test) built from the same
// files; a comment of the test's own (its folder, say) changes the content
// key and not the module, whose machine code stays shared.
func keyComment(t *testing.T, dir, comment string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "go.mod"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = fmt.Fprintf(f, "\n// %s\n", comment)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// countCmds is how many of the go commands goLogger logged were name.
func countCmds(cmds []string, name string) int {
	n := 0
	for _, c := range cmds {
		if c == name {
			n++
		}
	}
	return n
}

// TestCacheDir: compiled modules go to .seedfall/cache next to the world,
// or to $SF_CACHE_DIR when it is set, where another world running the same
// module finds them.
func TestCacheDir(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	world := func(dir string) {
		clitest.WriteJSON(t, filepath.Join(dir, "seedfall.json"), map[string]any{
			"workload": map[string]any{"name": "client", "pkg": filepath.Join(tools.Root, "lib", "engine", "testdata", "guests", "noop")},
		})
	}
	// The compiled code's entries, leaving out the build store that
	// SF_CACHE_DIR holds too (TestSharedBuildStore).
	cached := func(dir string) int {
		entries, _ := os.ReadDir(dir)
		n := 0
		for _, e := range entries {
			if e.Name() != "build" {
				n++
			}
		}
		return n
	}
	own := t.TempDir()
	world(own)
	r := runBin(t, clitest.Cmd{Dir: own, Env: []string{"SF_CACHE_DIR="}}, tools.Path("sf-run"), "-seed", "1")
	r.WantExit(t, 0)
	if cached(filepath.Join(own, ".seedfall", "cache")) == 0 {
		t.Errorf("without SF_CACHE_DIR, nothing was cached in .seedfall/cache")
	}

	shared := filepath.Join(t.TempDir(), "compiled")
	for _, dir := range []string{t.TempDir(), t.TempDir()} {
		world(dir)
		r := runBin(t, clitest.Cmd{Dir: dir, Env: []string{"SF_CACHE_DIR=" + shared}}, tools.Path("sf-run"), "-seed", "1")
		r.WantExit(t, 0)
		if _, err := os.Stat(filepath.Join(dir, ".seedfall", "cache")); err == nil {
			t.Errorf("with SF_CACHE_DIR, sf-run made .seedfall/cache too")
		}
	}
	if n, want := cached(shared), cached(filepath.Join(own, ".seedfall", "cache")); n != want {
		t.Errorf("two worlds of one module left %d files in SF_CACHE_DIR, want %d, as one world does", n, want)
	}
}
