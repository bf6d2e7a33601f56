package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPublishAndRead runs the store natively: publishing moves current and
// removes the previous generation, and CURRENT names every state current
// can be found in.
func TestPublishAndRead(t *testing.T) {
	for _, fsyncDir := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "data")
		s := &store{dir: dir, fsyncDir: fsyncDir}
		if err := s.open(); err != nil {
			t.Fatal(err)
		}
		steps := []struct{ req, want string }{
			{"CURRENT", "CURRENT 0"},
			{"PUBLISH", "PUBLISHED 1"},
			{"PUBLISH", "PUBLISHED 2"},
			{"CURRENT", "CURRENT 2"},
			{"DELETE", `ERR unknown command "DELETE"`},
		}
		for _, st := range steps {
			if got := s.handle(st.req); got != st.want {
				t.Errorf("fsync-dir %v: %s = %q, want %q", fsyncDir, st.req, got, st.want)
			}
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if got := filepath.Join(names...); got != filepath.Join("current", "gen-2") {
			t.Errorf("fsync-dir %v: data/ holds %q, want current and gen-2", fsyncDir, names)
		}

		// A restart finds what is on disk.
		s = &store{dir: dir, fsyncDir: fsyncDir}
		if err := s.open(); err != nil {
			t.Fatal(err)
		}
		if got := s.handle("PUBLISH"); got != "PUBLISHED 3" {
			t.Errorf("fsync-dir %v: PUBLISH after a restart = %q, want PUBLISHED 3", fsyncDir, got)
		}
	}
}

func TestCurrentStates(t *testing.T) {
	dir := t.TempDir()
	s := &store{dir: dir}
	p := func(name string) string { return filepath.Join(dir, name) }
	check := func(want string) {
		t.Helper()
		if got := s.current().String(); got != want {
			t.Errorf("current = %q, want %q", got, want)
		}
	}
	check("NONE")
	if err := os.Symlink("gen-7", p("current")); err != nil {
		t.Fatal(err)
	}
	check("MISSING gen-7")
	if err := os.WriteFile(p("gen-7"), []byte("generation 6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check(`CORRUPT gen-7: holds "generation 6\n"`)
	if err := os.WriteFile(p("gen-7"), []byte(content(7)), 0o644); err != nil {
		t.Fatal(err)
	}
	check("CURRENT 7")
	os.Remove(p("current"))
	if err := os.Symlink("other", p("current")); err != nil {
		t.Fatal(err)
	}
	check("CORRUPT other: not a generation")
}
