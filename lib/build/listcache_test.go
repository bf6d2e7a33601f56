package build

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

func TestWorkUses(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, work string
		want       []string // relative to dir; nil with ok false
		ok         bool
	}{
		{"one", "go 1.26\n\nuse ./a\n", []string{"a"}, true},
		{"block", "go 1.26\n\nuse (\n\t./b // the second\n\t./a\n\t.\n)\n\nreplace x => ./y\n", []string{"", "a", "b"}, true},
		{"quoted", "use \"./with space\"\nuse `./raw`\n", []string{"raw", "with space"}, true},
		{"twice", "use ./a\nuse ./a\n", []string{"a"}, true},
		{"absolute", "use " + filepath.Join(dir, "abs") + "\n", []string{"abs"}, true},
		{"none", "go 1.26\n", nil, true},
		{"open block", "use (\n\t./a\n", nil, false},
		{"two on a line", "use ./a ./b\n", nil, false},
		{"bad quote", "use \"./a\n", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".work")
			if err := os.WriteFile(path, []byte(c.work), 0o644); err != nil {
				t.Fatal(err)
			}
			got, ok := workUses(path)
			if ok != c.ok {
				t.Fatalf("ok %v, want %v (uses %q)", ok, c.ok, got)
			}
			var want []string
			for _, w := range c.want {
				want = append(want, filepath.Join(dir, w))
			}
			if ok && !reflect.DeepEqual(got, want) {
				t.Errorf("uses %q, want %q", got, want)
			}
		})
	}
}

// loggingGo returns a go command that logs its subcommand to the file it
// also returns, then runs the real go.
func loggingGo(t *testing.T) (goCmd, log string) {
	t.Helper()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	dir := t.TempDir()
	goCmd, log = filepath.Join(dir, "go"), filepath.Join(dir, "log")
	script := "#!/bin/sh\necho \"$1\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(goCmd, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return goCmd, log
}

// TestListingCacheKeepsOnlyClean: a listing is given again while nothing it
// depends on changes, listed anew when a file of the package changes, and
// never kept when it holds an error.
func TestListingCacheKeepsOnlyClean(t *testing.T) {
	goCmd, log := loggingGo(t)
	lists := func() int {
		data, _ := os.ReadFile(log)
		os.Remove(log)
		return strings.Count(string(data), "list\n")
	}
	mod := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(mod, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		clitest.AgeFiles(t, mod)
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("ok/main.go", "package main\n\nfunc main() {}\n")
	write("bad/main.go", "package main\n\nimport _ \"example.com/m/missing\"\n\nfunc main() {}\n")
	store := t.TempDir()
	args := []string{"list", "-e", "-deps", "-json=ImportPath", "."}
	list := func(pkg string) string {
		t.Helper()
		out, err := goListCached(goCmd, store, filepath.Join(mod, pkg), []string{"GOWORK=off"}, args, nil)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}

	// A listing of files changed just before it is not kept: the change
	// could have come in between the listing and its fingerprint.
	write("fresh/main.go", "package main\n\nfunc main() {}\n")
	if err := os.Chtimes(filepath.Join(mod, "fresh", "main.go"), time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	list("fresh")
	list("fresh")
	if n := lists(); n != 2 {
		t.Errorf("a package changed just before its listing was listed %d times in two starts, want 2", n)
	}

	first := list("ok")
	if n := lists(); n != 1 {
		t.Fatalf("the first listing ran go list %d times, want 1", n)
	}
	if again := list("ok"); again != first || lists() != 0 {
		t.Errorf("an unchanged package was listed again, or its kept listing differs:\n%s\n%s", first, again)
	}
	write("ok/more.go", "package main\n\nimport _ \"strings\"\n")
	if out := list("ok"); lists() != 1 || !strings.Contains(out, `"ImportPath": "strings"`) {
		t.Errorf("a new file's import is missing from the listing after it:\n%s", out)
	}
	if list("ok"); lists() != 0 {
		t.Errorf("the new listing was not kept")
	}

	if out := list("bad"); !strings.Contains(out, `"Error"`) {
		t.Fatalf("want an error in the listing of a package with a missing import:\n%s", out)
	}
	list("bad")
	if n := lists(); n != 2 {
		t.Errorf("a listing with an error was listed %d times in two starts, want 2 (never kept)", n)
	}
}
