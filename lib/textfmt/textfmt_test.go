package textfmt

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "seed", "1 seed"},
		{0, "seed", "0 seeds"},
		{3, "pinned regression", "3 pinned regressions"},
		{2, "branch", "2 branches"},
		{4, "property", "4 properties"},
		{2, "day", "2 days"},
		{2, "process", "2 processes"},
		{0, "way of failing", "0 ways of failing"},
		{1, "way of failing", "1 way of failing"},
	} {
		if got := Plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

func TestSeedList(t *testing.T) {
	for _, tc := range []struct {
		seeds []uint64
		max   int
		want  string
	}{
		{nil, 20, ""},
		{[]uint64{7}, 20, "7"},
		{[]uint64{1, 2, 3, 5, 7, 8}, 20, "1-3 5 7-8"},
		{[]uint64{1, 3, 5, 7}, 2, "1 3 ... (4 seeds in all)"},
		{[]uint64{1, 2, 3, 4, 9}, 1, "1-4 ... (5 seeds in all)"},
		{[]uint64{9, 3, 4}, 20, "9 3-4"},
	} {
		if got := SeedList(tc.seeds, tc.max, "seeds in all"); got != tc.want {
			t.Errorf("SeedList(%v, %d) = %q, want %q", tc.seeds, tc.max, got, tc.want)
		}
	}
}

func TestPaths(t *testing.T) {
	for _, tc := range []struct{ base, p, want string }{
		{"/w", "/w/.seedfall/x", ".seedfall/x"},
		{"/w", "/w", "."},
		{"/w", "/other/x", "/other/x"},
		{"/w", "/", "/"},
		// A name that starts with two dots lies inside.
		{"/w", "/w/..x", "..x"},
		{"/w/a", "/w/b", "/w/b"},
	} {
		if got := RelPath(tc.base, tc.p); got != tc.want {
			t.Errorf("RelPath(%q, %q) = %q, want %q", tc.base, tc.p, got, tc.want)
		}
	}
	dir := t.TempDir()
	t.Chdir(dir)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		filepath.Join(wd, "a", "b.json"): filepath.Join("a", "b.json"),
		"rel/c.json":                     "rel/c.json",
		"-":                              "-",
		"/elsewhere/d":                   "/elsewhere/d",
	} {
		if got := Display(p); got != want {
			t.Errorf("Display(%q) = %q, want %q", p, got, want)
		}
	}
	for p, want := range map[string]string{"-": "<stdin>", "": "<input>", "w.json": "w.json"} {
		if got := InputName(p); got != want {
			t.Errorf("InputName(%q) = %q, want %q", p, got, want)
		}
	}
}
