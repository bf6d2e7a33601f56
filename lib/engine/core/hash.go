package core

import (
	"fmt"
	"time"
)

// CheckpointEvery is how many host calls one determinism checkpoint covers.
const CheckpointEvery = 4096

func mixHash(h, v uint64) uint64 {
	h ^= v
	h *= 0x100000001b3
	h ^= h >> 29
	return h
}

// account adds one host call or event to the determinism hash: its ID, the
// instance, two words that say what it did, and the virtual time. ta and
// tb, when not empty, are what a and b were folded from (a message, a site,
// a path), for a recorded call to show instead of the words. It allocates
// nothing unless the call falls in a recorded window.
func (in *Instance) account(id CallID, name string, onFD bool, a, b uint64, ta, tb string) {
	r := in.Run
	r.calls++
	if r.Opts.DivergeAtCall != 0 && r.calls == r.Opts.DivergeAtCall {
		r.Now++
	}
	if r.calls == r.Opts.PanicAtCall {
		panic("injected invariant failure")
	}
	h := r.hash
	h = mixHash(h, uint64(id))
	h = mixHash(h, in.hashID)
	h = mixHash(h, a)
	h = mixHash(h, b)
	h = mixHash(h, uint64(r.Now))
	r.hash = h
	if r.calls%CheckpointEvery == 0 {
		r.res.Checkpoints = append(r.res.Checkpoints, h)
	}
	if w := r.Opts.RecordCalls; w[1] > w[0] && r.calls > w[0] && r.calls <= w[1] {
		r.res.Calls = append(r.res.Calls, in.describeCall(name, onFD, a, b, ta, tb))
	}
}

// HashString folds a string argument into one word for Call.Key.
func HashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// HashBytes folds a byte argument into one word for Call.Key.
func HashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// FirstDivergence compares two runs' checkpoints and returns the index of
// the first window of CheckpointEvery calls where they differ, or -1 when
// every checkpoint agrees (the final hashes may still differ in the last,
// partial window; the caller compares those).
func FirstDivergence(a, b []uint64) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// DescribeDivergence names the first host call at which two recordings of
// the same window differ, in the form the determinism check reports.
func DescribeDivergence(firstCall uint64, a, b []string) string {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			after := "the start of the window"
			if i > 0 {
				after = a[i-1]
			}
			return fmt.Sprintf("host call %d: %s vs %s, after %s", firstCall+uint64(i), a[i], b[i], after)
		}
	}
	if len(a) != len(b) {
		// One run ended here: its side of the "vs" says so, in the form of
		// any other difference.
		x, y := "the end of the first run", "the end of the second run"
		if n < len(a) {
			x = a[n]
		} else {
			y = b[n]
		}
		after := "the start of the window"
		if n > 0 {
			after = a[n-1]
		}
		return fmt.Sprintf("host call %d: %s vs %s, after %s", firstCall+uint64(n), x, y, after)
	}
	return ""
}

func fmtDuration(ns int64) string { return time.Duration(ns).String() }
