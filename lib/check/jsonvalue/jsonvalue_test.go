package jsonvalue

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestReadListMemo: reading a key's lists with the memo of its previous read
// gives what reading each list afresh gives, whether the next list extends
// the last, ends inside one of its tokens (12 and 123), shrinks, or fails.
func TestReadListMemo(t *testing.T) {
	reads := []string{`["1","2"]`, `["1","2","3"]`, `["1","2","3"]`, `[1,12]`, `[1,123]`, `[1,123 ]`, `["1","2" ,"4"]`,
		`["1"]`, `[]`, `null`, `["1",`, `["1","5"]`, `["1","5",null]`, `["1","5","6"]`, `["1","5"] x`, `["1","5","\u0036"]`}
	in := NewInterner()
	checkListMemo(t, reads, in)
	if n := len(in.Names()); n != 9 { // "", 1, 2, 3, 12, 123, 4, 5, 6 and nothing else
		t.Errorf("%d values interned: %q", n, in.Names())
	}
}

// checkListMemo reads one key's lists in turn, each with the memo of the
// read before, and requires what reading each afresh gives.
func checkListMemo(t *testing.T, reads []string, in *Interner) {
	t.Helper()
	memo := &Reader{}
	memos := map[string]*ListMemo{}
	fresh := &Reader{}
	for _, r := range reads {
		got, gerr := memo.ReadList(memos, "x", []byte(r), in)
		want, werr := fresh.ReadList(map[string]*ListMemo{}, "x", []byte(r), in)
		if (gerr == nil) != (werr == nil) || !slices.Equal(got, want) {
			t.Errorf("%s: with the memo %v %v, afresh %v %v", r, got, gerr, want, werr)
		}
	}
}

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
	checkListMemo(t, reads, NewInterner())
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
