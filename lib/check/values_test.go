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
	memo := &valueReader{}
	memos := map[string]*listMemo{}
	in := newInterner()
	fresh := &valueReader{}
	for _, r := range reads {
		got, gerr := memo.readList(memos, "x", []byte(r), in)
		want, werr := fresh.readList(map[string]*listMemo{}, "x", []byte(r), in)
		if (gerr == nil) != (werr == nil) || !slices.Equal(got, want) {
			t.Errorf("%s: with the memo %v %v, afresh %v %v", r, got, gerr, want, werr)
		}
	}
}
