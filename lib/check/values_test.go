package check

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestReadListMemoLong is TestReadListMemo with lists longer than the
// 32 bytes past which shared compares everything before the shorter list's
// end at once: lists that extend the last, shrink to a prefix of it, end
// inside one of its tokens, or part from it at any element.
func TestReadListMemoLong(t *testing.T) {
	list := func(elems ...string) string { return "[" + strings.Join(elems, ",") + "]" }
	var base []string
	for i := range 12 {
		base = append(base, strconv.Quote(strconv.Itoa(100+i)))
	}
	reads := []string{list(base...), list(base...), list(append(slices.Clone(base), `"x"`)...), list(base[:11]...),
		list(append(slices.Clone(base[:11]), `"1111"`)...), list(append(slices.Clone(base[:11]), `"11"`)...),
		list(base[:11]...) + " ", list(base...)}
	for i := range base {
		parted := slices.Clone(base)
		parted[i] = `"999"`
		reads = append(reads, list(parted...), list(base...))
		reads = append(reads, list(base[:i+1]...), list(base...), list(base[:i+1]...)[:len(list(base[:i+1]...))-1]+`,1]`)
	}
	checkListMemo(t, reads, newInterner())
}

// TestPlainEnd holds plainEnd's eight bytes at a time to a byte at a time:
// a quote, a backslash, a control character or a byte above 0x7f at every
// offset, after every other, and the end of the data anywhere.
func TestPlainEnd(t *testing.T) {
	slow := func(d []byte, i int) int {
		for ; i < len(d); i++ {
			switch c := d[i]; {
			case c == '"':
				return i
			case c < 0x20 || c == '\\':
				return -1
			}
		}
		return -1
	}
	specials := []byte{'"', '\\', 0x00, 0x1f, 0x20, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff, 'a'}
	for n := range 20 {
		for pos := range n {
			for _, c := range specials {
				for _, c2 := range specials {
					d := []byte(strings.Repeat("x", n))
					d[pos] = c
					if pos+1 < n {
						d[pos+1] = c2
					}
					for i := range min(n, 3) {
						if got, want := plainEnd(d, i), slow(d, i); got != want {
							t.Fatalf("plainEnd(%q, %d) = %d, want %d", d, i, got, want)
						}
					}
				}
			}
		}
	}
}
