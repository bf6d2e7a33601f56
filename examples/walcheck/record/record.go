// Package record makes and checks the records of the walcheck workload. A
// record is "r<i>/<n>:" followed by filler bytes that depend only on i, n
// bytes in all, so that a record read back from a log can be checked on its
// own: either it is exactly one the workload asked for, or it was never
// written.
package record

import (
	"fmt"
	"strconv"
	"strings"
)

// Make returns record i, n bytes long (at least its prefix).
func Make(i, n int) []byte {
	b := []byte(prefix(i, n))
	x := uint64(i)*0x9e3779b97f4a7c15 + uint64(n)
	for len(b) < n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b = append(b, 'a'+byte(x%26))
	}
	return b
}

func prefix(i, n int) string { return fmt.Sprintf("r%d/%d:", i, n) }

// Parse returns the i and n of a record that is exactly Make(i, n), and ok
// false for any other bytes.
func Parse(b []byte) (i, n int, ok bool) {
	head, _, found := strings.Cut(string(b[:min(len(b), 32)]), ":")
	if !found || !strings.HasPrefix(head, "r") {
		return 0, 0, false
	}
	is, ns, found := strings.Cut(head[1:], "/")
	if !found {
		return 0, 0, false
	}
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil || i < 1 || n != len(b) || n > 1<<20 {
		return 0, 0, false
	}
	if string(Make(i, n)) != string(b) {
		return 0, 0, false
	}
	return i, n, true
}

// Size is the length of record i for a workload whose records are at most
// max bytes: spread from the prefix up to max, the same for every run.
func Size(i, max int) int {
	x := uint64(i) * 0xbf58476d1ce4e5b9
	x ^= x >> 31
	p := len(prefix(i, max))
	if max <= p {
		return p
	}
	return p + int(x%uint64(max-p+1))
}

// Describe is how a server reports one record it read: "<i> <n>" for a
// record Parse accepts, "BAD <len> <first bytes>" for anything else.
func Describe(b []byte) string {
	if i, n, ok := Parse(b); ok {
		return fmt.Sprintf("%d %d", i, n)
	}
	return fmt.Sprintf("BAD %d %q", len(b), b[:min(len(b), 24)])
}
