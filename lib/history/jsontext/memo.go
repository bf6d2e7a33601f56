package jsontext

import (
	"encoding/binary"
	"math/bits"
)

// ArrayMemo remembers the flat arrays (arrays of strings, numbers, booleans
// and nulls) that ValidAt checked, by their first element. An array that
// starts with the same bytes as the last one remembered under its first
// element is checked only from the first element where they differ: bytes
// equal to text already found valid, up to and including the byte that ends
// an element, are valid again. Histories are full of such arrays: each read
// of a list-append key or an append-model list repeats the previous read and
// adds to it.
//
// The memo keeps slices of the data it was used on, which must not change
// while the memo is in use. The zero value is ready to use.
type ArrayMemo struct {
	slots [memoSlots]memoSlot
}

const memoSlots = 1024

// memoElemsMax is the most elements of an array the memo keeps, so that
// what it holds stays bounded (16 MiB of ends) whatever the input. A longer
// array is checked with what the slot already holds and is not kept: no
// state proportional to its length is ever built, even for a moment.
const memoElemsMax = 4096

// memoDepthMin is the least depth of an array that ValidAt looks up in the
// memo: looking up costs a hash and a comparison, which the short arrays at
// the top of a value (such as a list-append transaction's micro-ops) do not
// repay, while the lists they hold are long and mostly repeat.
const memoDepthMin = 2

type memoSlot struct {
	text []byte  // the array from '[' to ']', aliasing the checked data
	ends []int32 // per element, its end's offset in text
}

// The outcomes of ArrayMemo.flat.
const (
	memoValid   = iota // a valid flat array
	memoInvalid        // not valid JSON
	memoNested         // holds an array or object: for the general validator
)

// flat checks the array starting with the '[' at d[i] if it is flat, and
// returns the offset after it.
func (m *ArrayMemo) flat(d []byte, i int) (int, int) {
	slot, k := m.shared(d, i)
	ends := slot.ends[:k]
	j := i + 1
	if k > 0 {
		j = i + int(ends[k-1])
	}
	end, res, ends, whole := flatFrom(d, i, j, k > 0, ends)
	switch {
	case res == memoValid && whole:
		slot.text, slot.ends = d[i:end], ends
	default:
		// ends has overwritten the slot's, which no longer describe its
		// text; or the array is longer than the memo keeps, and ends holds
		// only its first memoElemsMax elements. Either way the slot keeps
		// its storage, which is at most memoElemsMax ends, for the next
		// array.
		slot.text, slot.ends = nil, ends[:0]
	}
	return end, res
}

// shared returns the slot for the array at d[i] and how many of its leading
// elements are those of the array the slot remembers.
func (m *ArrayMemo) shared(d []byte, i int) (*memoSlot, int) {
	slot := &m.slots[memoHash(d, i)%memoSlots]
	k := 0 // elements taken from the slot
	if len(slot.text) > 0 {
		l := int32(commonPrefix(slot.text, d[i:]))
		// Elements that end, with the byte after them, within the common
		// prefix are the same tokens in both.
		// The number of ends before l, by binary search.
		lo, hi := 0, len(slot.ends)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if slot.ends[mid] < l {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		k = lo
		// A string or literal that ends just where the prefix does is whole
		// too (a read that grew has ',' where the shorter one had ']'); a
		// number might go on ("12" and "123").
		if k < len(slot.ends) && slot.ends[k] == l && (slot.text[l-1] < '0' || slot.text[l-1] > '9') {
			k++
		}
	}
	return slot, k
}

// memoHash hashes the start of the array at d[i] up to the end of its first
// element: its first 16 bytes at most, taken as two words when there are
// 16, with the bytes from the first ',' or ']' on cleared.
func memoHash(d []byte, i int) uint32 {
	if len(d)-i < 16 {
		h := uint32(2166136261)
		for j := i; j < len(d); j++ {
			c := d[j]
			if j > i && (c == ',' || c == ']') {
				break
			}
			h = (h ^ uint32(c)) * 16777619
		}
		return h
	}
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	stops := func(x uint64) uint64 {
		c, b := x^(','*lo), x^(']'*lo)
		return ((c-lo)&^c | (b-lo)&^b) & hi
	}
	x0 := binary.LittleEndian.Uint64(d[i:])
	x1 := binary.LittleEndian.Uint64(d[i+8:])
	// Byte 0 is the '['. The lowest mark of each word is exact.
	if m := stops(x0); m != 0 {
		x0 &= 1<<(bits.TrailingZeros64(m)&^7) - 1
		x1 = 0
	} else if m := stops(x1); m != 0 {
		x1 &= 1<<(bits.TrailingZeros64(m)&^7) - 1
	}
	h := (x0*0x9e3779b97f4a7c15 ^ x1) * 0xff51afd7ed558ccd
	return uint32(h >> 32)
}

// flatFrom checks a flat array that starts at d[start] from j, after an
// element when afterElem, and appends the end of each element to ends while
// ends holds fewer than memoElemsMax, returning ends. whole reports whether
// ends got every element: an array past the bound is checked to its end all
// the same, with nothing more kept for it, so that what checking it
// allocates does not grow with its length.
func flatFrom(d []byte, start, j int, afterElem bool, ends []int32) (end, res int, _ []int32, whole bool) {
	var ok bool
	whole = true
	for {
		for j < len(d) && isSpace(d[j]) {
			j++
		}
		if j >= len(d) {
			return 0, memoInvalid, ends, whole
		}
		// Here the array is empty so far or an element has just ended.
		if d[j] == ']' {
			return j + 1, memoValid, ends, whole
		}
		if afterElem {
			if d[j] != ',' {
				return 0, memoInvalid, ends, whole
			}
			j++
			for j < len(d) && isSpace(d[j]) {
				j++
			}
			if j >= len(d) {
				return 0, memoInvalid, ends, whole
			}
		}
		switch c := d[j]; {
		case c == '"':
			j, ok = validString(d, j)
		case c == '-' || (c >= '0' && c <= '9'):
			j, ok = validNumber(d, j)
		case c == 't':
			ok = len(d)-j >= 4 && string(d[j:j+4]) == "true"
			j += 4
		case c == 'f':
			ok = len(d)-j >= 5 && string(d[j:j+5]) == "false"
			j += 5
		case c == 'n':
			ok = len(d)-j >= 4 && string(d[j:j+4]) == "null"
			j += 4
		case c == '[' || c == '{':
			return 0, memoNested, ends, whole
		default:
			ok = false
		}
		if !ok {
			return 0, memoInvalid, ends, whole
		}
		if len(ends) < memoElemsMax {
			ends = append(ends, int32(j-start))
		} else {
			whole = false
		}
		afterElem = true
	}
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	// Lists mostly share most of their text: compare whole chunks first,
	// which the runtime does with vector instructions.
	for i+32 <= n && string(a[i:i+32]) == string(b[i:i+32]) {
		i += 32
	}
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
