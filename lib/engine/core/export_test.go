package core

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unsafe"
)

// ScrambleBeforeRestore makes every Restore first clear each field of the
// run's state (of the run, its nodes and their current instances), keeping
// only what runs the guests, so that a test sees any field Restore does not
// copy. It returns the function that turns it off.
func ScrambleBeforeRestore() (off func()) {
	scrambleBeforeRestore = func(r *Run) {
		for _, n := range r.Nodes {
			if in := n.Cur; in != nil {
				zeroExcept(reflect.ValueOf(in).Elem(), "exec")
			}
			zeroExcept(reflect.ValueOf(n).Elem())
		}
		zeroExcept(reflect.ValueOf(r).Elem(), "exec", "Nodes")
	}
	return func() { scrambleBeforeRestore = nil }
}

// zeroExcept sets every field of the struct v to its zero value, but the
// fields named keep, unexported ones too.
func zeroExcept(v reflect.Value, keep ...string) {
	t := v.Type()
fields:
	for i := 0; i < t.NumField(); i++ {
		for _, k := range keep {
			if t.Field(i).Name == k {
				continue fields
			}
		}
		f := v.Field(i)
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
		f.Set(reflect.Zero(f.Type()))
	}
}

// CheckSnapshots calls check with, for each snapshot Options.SnapshotAt
// takes and each one Restore restores, the memory it shares with the run it
// came from or went into (see shared). It returns the function that turns
// it off.
func CheckSnapshots(check func(shared []string)) (off func()) {
	afterSnapshot = func(r *Run, s *Snapshot) { check(shared(r, s.run)) }
	return func() { afterSnapshot = nil }
}

// sharedOnPurpose are the fields a snapshot shares with its run because
// neither ever changes them: the world, the options, what the schedule
// fixed before the first step, the plan the timed faults are drawn from,
// compiled modules, and recorded values and faults, which are never
// changed in place. An entry matches a whole field name.
var sharedOnPurpose = []string{".Spec", ".park.fn", ".Opts", ".scheduledHits", ".scheduledOps", ".swarm", ".rates", ".compiled", ".plan",
	".planner.list", ".heads[", ".Ahead[", ".events[", ".Faults[", ".fault", ".res.Faults"}

// shared walks a run and its snapshot side by side and names every
// pointer, map or slice they hold in common, but for sharedOnPurpose and
// what runs the guests.
func shared(r, s *Run) []string {
	w := &walker{seen: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(r).Elem(), reflect.ValueOf(s).Elem(), "run")
	sort.Strings(w.found)
	return w.found
}

type walker struct {
	seen  map[uintptr]bool
	found []string
}

func (w *walker) walk(a, b reflect.Value, path string) {
	for _, p := range sharedOnPurpose {
		if i := strings.Index(path, p); i >= 0 {
			if rest := path[i+len(p):]; rest == "" || p[len(p)-1] == '[' || rest[0] == '.' || rest[0] == '[' {
				return
			}
		}
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			w.found = append(w.found, path)
			return
		}
		if w.seen[a.Pointer()] {
			return
		}
		w.seen[a.Pointer()] = true
		w.walk(a.Elem(), b.Elem(), path)
	case reflect.Map:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			w.found = append(w.found, path)
			return
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); bv.IsValid() {
				w.walk(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k))
			}
		}
	case reflect.Slice:
		if a.IsNil() || b.IsNil() || a.Cap() == 0 || b.Cap() == 0 {
			return
		}
		if a.Pointer() == b.Pointer() {
			w.found = append(w.found, path)
			return
		}
		for i := 0; i < min(a.Len(), b.Len()); i++ {
			w.walk(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			w.walk(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			name := a.Type().Field(i).Name
			if name == "exec" {
				continue
			}
			w.walk(a.Field(i), b.Field(i), path+"."+name)
		}
	case reflect.Interface:
		if !a.IsNil() && !b.IsNil() {
			w.walk(a.Elem(), b.Elem(), path)
		}
	}
}

// ImageDigest shows the guests' images of a fork: each one's module,
// memory (by SHA-256) and globals, so that two forks of one world at one
// step can be compared.
func ImageDigest(f *Fork) string {
	var b strings.Builder
	for i, g := range f.guests {
		if g == nil {
			fmt.Fprintf(&b, "node %d: none\n", i)
			continue
		}
		fmt.Fprintf(&b, "node %d: %s memory %x globals %x\n", i, g.wasm, sha256.Sum256(g.memory), g.globals)
	}
	return b.String()
}

// CountHandOns counts the batons parking instances hand on themselves
// (handOn): to themselves in counts[0], to another instance in counts[1].
// It returns the function that turns it off.
func CountHandOns(counts *[2]int) (off func()) {
	afterHandOn = func(parked, next *Instance) {
		if parked == next {
			counts[0]++
		} else {
			counts[1]++
		}
	}
	return func() { afterHandOn = nil }
}
