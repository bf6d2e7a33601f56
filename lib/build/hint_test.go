package build

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildHint: go's output of the failures a new user meets (issue 29)
// gets sf's remedy, and other failures none.
func TestBuildHint(t *testing.T) {
	root, known := checkout()
	if !known {
		t.Skip("this test binary does not know its source folder (built with -trimpath?)")
	}
	if want, _ := filepath.Abs(filepath.Join("..", "..")); root != want {
		t.Fatalf("checkout() = %q, want %q", root, want)
	}
	mod := t.TempDir()
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(mod, "cmd", "client")
	recipe := func(pkgs string) string {
		return "sf's modules (github.com/sf-dst/sf/sim, the SDK; github.com/sf-dst/sf, simtest) are not published, so go get\n" +
			`cannot fetch them; tie your module to this checkout of sf (docs/real-systems.md, "3. sf's modules in yours"):` + "\n" +
			"    cd " + mod + "\n" +
			"    go mod edit -replace=github.com/sf-dst/sf=" + root + " -replace=github.com/sf-dst/sf/sim=" + filepath.Join(root, "sim") + "\n" +
			"    cat " + filepath.Join(root, "go.sum") + " >> go.sum\n" +
			"    go get " + pkgs
	}
	const compatHint = `wasip1 has no mmap or flock, and compat_overlay shims what this build lacks (%s): set "compat_overlay": true in the world file (docs/compat.md)`
	for _, tc := range []struct {
		name, out     string
		compatOn      bool
		wantOut, hint string
	}{
		{"no require", "main.go:3:8: no required module provides package github.com/sf-dst/sf/sim; to add it:\n\tgo get github.com/sf-dst/sf/sim",
			false, "main.go:3:8: no required module provides package github.com/sf-dst/sf/sim", recipe("github.com/sf-dst/sf/sim")},
		{"both modules", "a_test.go:4:2: no required module provides package github.com/sf-dst/sf/simtest; to add it:\n\tgo get github.com/sf-dst/sf/simtest\n" +
			"main.go:3:8: no required module provides package github.com/sf-dst/sf/sim; to add it:\n\tgo get github.com/sf-dst/sf/sim",
			false, "a_test.go:4:2: no required module provides package github.com/sf-dst/sf/simtest\nmain.go:3:8: no required module provides package github.com/sf-dst/sf/sim",
			recipe("github.com/sf-dst/sf/simtest github.com/sf-dst/sf/sim")},
		{"require without replace", "main.go:3:8: missing go.sum entry for module providing package github.com/sf-dst/sf/sim (imported by example.com/x/cmd/client); to add:\n\tgo get example.com/x/cmd/client",
			false, "main.go:3:8: missing go.sum entry for module providing package github.com/sf-dst/sf/sim (imported by example.com/x/cmd/client)", recipe("github.com/sf-dst/sf/sim")},
		{"proxy refuses", "go: finding module for package github.com/sf-dst/sf/sim\nmain.go:3:8: module github.com/sf-dst/sf/sim: reading https://proxy.golang.org/github.com/sf-dst/sf/sim/@v/list: 403 Forbidden",
			false, "", recipe("github.com/sf-dst/sf/sim")},
		{"no proxy", "go: downloading github.com/sf-dst/sf/sim v0.0.0\nmain.go:3:8: module lookup disabled by GOPROXY=off",
			false, "", recipe("github.com/sf-dst/sf/sim")},
		{"another module missing", "main.go:3:8: no required module provides package example.com/other; to add it:\n\tgo get example.com/other",
			false, "", ""},
		{"an error in code that uses the sdk", "main.go:9:6: undefined: sim.Asert",
			false, "", ""},
		{"mmap and flock", "./main.go:10:10: undefined: syscall.Flock\n./main.go:10:37: undefined: unix.LOCK_EX\n./main.go:11:18: undefined: syscall.Flock\n./main.go:12:3: undefined: syscall.Mmap\n./main.go:13:3: undefined: syscall.Madvise",
			false, "", strings.Replace(compatHint, "%s", "syscall.Flock, unix.LOCK_EX, syscall.Mmap, ...", 1)},
		{"compat_overlay on already", "./main.go:10:10: undefined: syscall.Flock", true, "", ""},
		{"not shimmed", "./main.go:10:10: undefined: syscall.Fork", false, "", ""},
		{"a module with a shim of its own", "../go/pkg/mod/go.etcd.io/bbolt@v1.4.0/bolt_unix.go:20:9: undefined: maxMapSize",
			false, "", strings.Replace(compatHint, "%s", "go.etcd.io/bbolt", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, hint := buildHint(tc.out, pkg, tc.compatOn)
			if tc.wantOut == "" {
				tc.wantOut = tc.out
			}
			if out != tc.wantOut {
				t.Errorf("go's output became\n%s\nwant\n%s", out, tc.wantOut)
			}
			if hint != tc.hint {
				t.Errorf("hint:\n%s\nwant\n%s", hint, tc.hint)
			}
		})
	}
}

// TestShimmedNames: the compat_overlay hint knows the names the shim files
// define, read from the files themselves.
func TestShimmedNames(t *testing.T) {
	for pkg, names := range map[string][]string{
		"syscall": {"Mmap", "Munmap", "Msync", "Madvise", "Flock", "Fdatasync", "LOCK_EX", "PROT_READ", "MAP_SHARED", "EWOULDBLOCK"},
		"unix":    {"Mmap", "Flock", "LOCK_EX", "PROT_READ", "MAP_SHARED", "MS_SYNC"},
	} {
		for _, n := range names {
			if !shimmedNames()[pkg][n] {
				t.Errorf("%s.%s is not among the shimmed names", pkg, n)
			}
		}
		if shimmedNames()[pkg]["seedfallFind"] || shimmedNames()[pkg]["Fork"] {
			t.Errorf("%s: an unexported or unshimmed name is among the shimmed names", pkg)
		}
	}
}

// TestShellQuote: the recipe's paths paste into a shell as they are.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/home/me/src/sf":  "/home/me/src/sf",
		"/home/me/my sf":   "'/home/me/my sf'",
		"/tmp/it's":        `'/tmp/it'\''s'`,
		"/a/$HOME/b":       "'/a/$HOME/b'",
		"C:/x+y=z@v1,2:ok": "C:/x+y=z@v1,2:ok",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBuildHintWithoutCheckout: a program that does not know the checkout
// it was built from (-trimpath, or the folder moved) gives the recipe with
// $SF in its place.
func TestBuildHintWithoutCheckout(t *testing.T) {
	sfCheckout = func() (string, bool) { return "", false }
	defer func() { sfCheckout = checkout }()
	mod := t.TempDir()
	_, hint := buildHint("main.go:3:8: no required module provides package github.com/sf-dst/sf/sim; to add it:\n\tgo get github.com/sf-dst/sf/sim", mod, false)
	want := "sf's modules (github.com/sf-dst/sf/sim, the SDK; github.com/sf-dst/sf, simtest) are not published, so go get\n" +
		`cannot fetch them; tie your module to a checkout of sf, with SF set to its folder (docs/real-systems.md, "3. sf's modules in yours"):` + "\n" +
		"    cd " + mod + "\n" +
		`    go mod edit -replace=github.com/sf-dst/sf="$SF" -replace=github.com/sf-dst/sf/sim="$SF/sim"` + "\n" +
		`    cat "$SF/go.sum" >> go.sum` + "\n" +
		"    go get github.com/sf-dst/sf/sim"
	if hint != want {
		t.Errorf("hint:\n%s\nwant\n%s", hint, want)
	}
}
