package core

import (
	"reflect"
	"slices"
	"testing"
)

// TestDifferNamesThePlace: the fork tests' differ finds a difference deep in
// a byte slice, a byte array, a map and a slice of structs, names each by its
// path, and finds none between equal values (a nil slice equal to an empty
// one).
func TestDifferNamesThePlace(t *testing.T) {
	type page struct {
		data [8]byte
		tag  string
	}
	type state struct {
		mem   []byte
		pages []page
		files map[string][]byte
		empty []int
		ratio float64
	}
	mk := func() *state {
		return &state{
			mem:   make([]byte, 1<<16),
			pages: []page{{tag: "a"}, {tag: "b"}},
			files: map[string][]byte{"log": []byte("hello")},
			empty: []int{},
			ratio: 0.5,
		}
	}
	diff := func(a, b *state) []string {
		d := &differ{seen: map[[2]uintptr]bool{}}
		d.diff(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem())
		return d.found
	}
	a, b := mk(), mk()
	b.empty = nil
	if found := diff(a, b); len(found) != 0 {
		t.Fatalf("equal states differ: %q", found)
	}
	b.mem[40000] = 7
	b.pages[1].data[3] = 9
	b.files["log"][4] = '!'
	b.ratio = 0.25
	want := []string{
		"fork.mem[40000]: 0, the other 7",
		"fork.pages[1].data[3]: 0, the other 9",
		"fork.files[log][4]: 111, the other 33",
		"fork.ratio: 0.5, the other 0.25",
	}
	if found := diff(a, b); !slices.Equal(found, want) {
		t.Errorf("found %q\nwant %q", found, want)
	}
}
