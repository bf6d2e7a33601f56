// Package jsonvalue reads the JSON values of history operations the way the
// checkers need them, fast: a string or an integer's text, a whole value as
// a string or an int64, a list of them, and a key's lists one after the
// other with a memo of the last one (ListMemo), whose elements an Interner
// numbers. Both the linearizability models (lib/check) and the list-append
// checker (lib/check/listappend) decode values with it.
package jsonvalue

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strconv"

	"github.com/sf-dst/sf/lib/history/jsontext"
)

// Values in a history are JSON. A string value may also be written as an
// integer (Jepsen histories and hand-written files often do): the integer's
// text is the string, so 1 and "1" are the same value. An integer value may
// likewise be a string holding a decimal integer.

// Describe shortens a raw value for an error message.
func Describe(raw []byte) string {
	const max = 60
	if len(raw) > max {
		return string(raw[:max]) + "..."
	}
	return string(raw)
}

// Reader decodes raw values with one reusable scanner. A checker that
// decodes a whole structure may drive Scanner itself and call Scalar for
// each value in it.
type Reader struct {
	Scanner jsontext.Scanner
}

// Scalar reads a string or an integer's text at the scanner's position.
// null gives isNull true.
func (vr *Reader) Scalar() (b []byte, isNull bool, err error) {
	// A string right here without escapes or control characters, as
	// writers write values, is taken without the scanner's round of
	// checks; it gives the same bytes, and anything else goes to it.
	if d, p := vr.Scanner.Data, vr.Scanner.Pos; p < len(d) && d[p] == '"' {
		if j := plainEnd(d, p+1); j >= 0 {
			vr.Scanner.Pos = j + 1
			return d[p+1 : j], false, nil
		}
	}
	switch vr.Scanner.Peek() {
	case jsontext.Null:
		vr.Scanner.Null()
		return nil, true, nil
	case jsontext.String:
		b, err = vr.Scanner.String()
		return b, false, err
	case jsontext.Number:
		b, err = vr.Scanner.IntText()
		return b, false, err
	}
	return nil, false, fmt.Errorf("found %s", vr.Scanner.Peek())
}

// Str decodes a whole raw value as a string; null is "" when nullOK.
func (vr *Reader) Str(raw []byte, nullOK bool) ([]byte, error) {
	if b, ok := plainString(raw); ok {
		return b, nil
	}
	vr.Scanner.Reset(raw)
	b, isNull, err := vr.Scalar()
	if err == nil && isNull && !nullOK {
		err = fmt.Errorf("found null")
	}
	if err == nil && !vr.Scanner.AtEnd() {
		err = fmt.Errorf("found trailing text")
	}
	return b, err
}

// plainEnd returns where the string whose content starts at d[i] ends, the
// offset of its closing quote, when no escape or control character comes
// before it; otherwise, or when d ends first, -1.
func plainEnd(d []byte, i int) int {
	// Eight bytes at a time: a byte that is a quote or a backslash is a
	// zero byte after the xor, and the subtraction sets the top bit of a
	// zero byte, and of a control character, which the and with the
	// complement keeps for bytes below 0x80 only. A borrow runs only from
	// a byte that is flagged to those above it, so the lowest flagged
	// byte is the first that ends the quick reading.
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(d); i += 8 {
		w := binary.LittleEndian.Uint64(d[i:])
		q, b := w^('"'*ones), w^('\\'*ones)
		if m := ((q-ones)&^q | (b-ones)&^b | (w-0x20*ones)&^w) & tops; m != 0 {
			j := i + bits.TrailingZeros64(m)>>3
			if d[j] == '"' {
				return j
			}
			return -1
		}
	}
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

// plainString is Str's quick path for what nearly every value is: a string
// with nothing around it, no escapes and no control characters, whose bytes
// are its content. Anything else goes to the scanner.
func plainString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	b := raw[1 : len(raw)-1]
	for _, c := range b {
		if c < 0x20 || c == '"' || c == '\\' {
			return nil, false
		}
	}
	return b, true
}

// Integer decodes a whole raw value as an int64 (a JSON integer or a string
// holding one).
func (vr *Reader) Integer(raw []byte) (int64, error) {
	vr.Scanner.Reset(raw)
	var n int64
	var err error
	switch vr.Scanner.Peek() {
	case jsontext.Number:
		n, err = vr.Scanner.Int()
	case jsontext.String:
		var b []byte
		if b, err = vr.Scanner.String(); err == nil {
			var perr error
			if n, perr = strconv.ParseInt(string(b), 10, 64); perr != nil {
				err = fmt.Errorf("found a string that is not an integer")
			}
		}
	default:
		err = fmt.Errorf("found %s", vr.Scanner.Peek())
	}
	if err == nil && !vr.Scanner.AtEnd() {
		err = fmt.Errorf("found trailing text")
	}
	return n, err
}

// List decodes a raw array of scalars (null is the empty list), calling each
// with every element and the offset in raw just after it. With resume above
// 0, raw[:resume] is known to be the valid start of the array up to the end
// of an element (see ListMemo), and decoding goes on from there.
func (vr *Reader) List(raw []byte, resume int, each func(b []byte, end int)) error {
	vr.Scanner.Reset(raw)
	if resume > 0 {
		vr.Scanner.Pos = resume
	} else {
		if vr.Scanner.Null() {
			if !vr.Scanner.AtEnd() {
				return fmt.Errorf("found trailing text")
			}
			return nil
		}
		if err := vr.Scanner.Expect('['); err != nil {
			return fmt.Errorf("found %s", vr.Scanner.Peek())
		}
	}
	done := vr.Scanner.Next(']')
	if !done && resume > 0 {
		if err := vr.Scanner.Expect(','); err != nil {
			return err
		}
	}
	for !done {
		b, isNull, err := vr.Scalar()
		if err != nil {
			return fmt.Errorf("an element: %w", err)
		}
		if isNull {
			return fmt.Errorf("an element is null")
		}
		each(b, vr.Scanner.Pos)
		if done = vr.Scanner.Next(']'); !done {
			if err := vr.Scanner.Expect(','); err != nil {
				return err
			}
		}
	}
	if !vr.Scanner.AtEnd() {
		return fmt.Errorf("found trailing text")
	}
	return nil
}

// ListMemo is the last list read from one key, decoded. Reads of a key
// mostly repeat the list the previous read saw and add to its end, so the
// next read reuses the elements of the text the two share and decodes only
// the rest: with lists of hundreds of elements, interning each one again
// was most of the cost of checking append and set histories.
type ListMemo struct {
	Raw  []byte  // the list's JSON text (an operation's output, never changed)
	IDs  []int32 // its elements, interned, in the order of the text
	Ends []int32 // the offset in Raw just after each element
}

// Shared returns how many of the memo's leading elements raw has too: the
// bytes up to the end of each are the same, and in raw that end is the end
// of a token (an integer 12 is not a prefix of 123).
func (m *ListMemo) Shared(raw []byte) int {
	n := min(len(m.Raw), len(raw))
	common := 0
	// A read mostly repeats the last one and adds to it, or sees a prefix
	// of it, so the two texts mostly differ first at the shorter's
	// closing bracket: one comparison of everything before that takes
	// the wide loop of memequal instead of a call per chunk. When it
	// fails, the chunks below find where they part.
	if n > 32 && string(m.Raw[:n-1]) == string(raw[:n-1]) {
		common = n - 1
	}
	// Compare in chunks: most of the text is shared. Then eight bytes at a
	// time, and the first that differ end the common part.
	for common+32 <= n && string(m.Raw[common:common+32]) == string(raw[common:common+32]) {
		common += 32
	}
	for common+8 <= n {
		if x := binary.LittleEndian.Uint64(m.Raw[common:]) ^ binary.LittleEndian.Uint64(raw[common:]); x != 0 {
			common += bits.TrailingZeros64(x) / 8
			n = common
			break
		}
		common += 8
	}
	for common < n && m.Raw[common] == raw[common] {
		common++
	}
	i, _ := slices.BinarySearch(m.Ends, int32(common)+1) // the elements that end within common
	for i > 0 {
		end := int(m.Ends[i-1])
		if end < len(raw) {
			switch raw[end] {
			case ',', ']', ' ', '\t', '\n', '\r':
				return i
			}
		}
		i--
	}
	return 0
}

// ReadList decodes raw, the list a read of key returned, into the elements'
// ids in the order of the text, reusing what it shares with the key's
// previous read. The result is valid until the next call for the same key.
func (vr *Reader) ReadList(memos map[string]*ListMemo, key string, raw []byte, intern *Interner) ([]int32, error) {
	m := memos[key]
	if m == nil {
		m = &ListMemo{}
		memos[key] = m
	}
	n := m.Shared(raw)
	resume := 0
	if n > 0 {
		resume = int(m.Ends[n-1])
	}
	m.IDs, m.Ends = m.IDs[:n], m.Ends[:n]
	err := vr.List(raw, resume, func(b []byte, end int) {
		m.IDs = append(m.IDs, intern.ID(b))
		m.Ends = append(m.Ends, int32(end))
	})
	if err != nil {
		m.Raw, m.IDs, m.Ends = nil, m.IDs[:0], m.Ends[:0]
		return nil, err
	}
	m.Raw = raw
	return m.IDs, nil
}

// Interner numbers distinct strings from 1; 0 is the empty string, which the
// models read as "absent".
type Interner struct {
	ids   map[string]int32
	names []string
}

// NewInterner returns an empty Interner.
func NewInterner() *Interner { return NewInternerSize(0) }

// NewInternerSize returns an Interner with room for n strings.
func NewInternerSize(n int) *Interner {
	in := &Interner{ids: make(map[string]int32, n+1), names: make([]string, 1, n+1)}
	in.ids[""] = 0
	return in
}

// ID returns b's number, giving it the next one if b is new.
func (in *Interner) ID(b []byte) int32 {
	if id, ok := in.ids[string(b)]; ok {
		return id
	}
	s := string(b)
	id := int32(len(in.names))
	in.ids[s] = id
	in.names = append(in.names, s)
	return id
}

// Quote returns the string numbered id, quoted as Go quotes it.
func (in *Interner) Quote(id int32) string { return strconv.Quote(in.names[id]) }

// Names returns the strings by number, "" first. It is the Interner's
// own slice, valid until the next new string: read it, do not change it.
func (in *Interner) Names() []string { return in.names }
