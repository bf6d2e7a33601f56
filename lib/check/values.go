package check

import (
	"fmt"
	"strconv"

	"github.com/sf-dst/sf/lib/history/jsontext"
)

// Values in a history are JSON. A string value may also be written as an
// integer (Jepsen histories and hand-written files often do): the integer's
// text is the string, so 1 and "1" are the same value. An integer value may
// likewise be a string holding a decimal integer.

// describeJSON shortens a raw value for an error message.
func describeJSON(raw []byte) string {
	const max = 60
	if len(raw) > max {
		return string(raw[:max]) + "..."
	}
	return string(raw)
}

// valueReader decodes raw values with one reusable scanner.
type valueReader struct {
	s jsontext.Scanner
}

// scalar reads a string or an integer's text. null gives ok false.
func (vr *valueReader) scalar() (b []byte, isNull bool, err error) {
	switch vr.s.Peek() {
	case jsontext.Null:
		vr.s.Null()
		return nil, true, nil
	case jsontext.String:
		b, err = vr.s.String()
		return b, false, err
	case jsontext.Number:
		b, err = vr.s.IntText()
		return b, false, err
	}
	return nil, false, fmt.Errorf("found %s", vr.s.Peek())
}

// str decodes a whole raw value as a string; null is "" when nullOK.
func (vr *valueReader) str(raw []byte, nullOK bool) ([]byte, error) {
	vr.s.Reset(raw)
	b, isNull, err := vr.scalar()
	if err == nil && isNull && !nullOK {
		err = fmt.Errorf("found null")
	}
	if err == nil && !vr.s.AtEnd() {
		err = fmt.Errorf("found trailing text")
	}
	return b, err
}

// integer decodes a whole raw value as an int64 (a JSON integer or a string
// holding one).
func (vr *valueReader) integer(raw []byte) (int64, error) {
	vr.s.Reset(raw)
	var n int64
	var err error
	switch vr.s.Peek() {
	case jsontext.Number:
		n, err = vr.s.Int()
	case jsontext.String:
		var b []byte
		if b, err = vr.s.String(); err == nil {
			var perr error
			if n, perr = strconv.ParseInt(string(b), 10, 64); perr != nil {
				err = fmt.Errorf("found a string that is not an integer")
			}
		}
	default:
		err = fmt.Errorf("found %s", vr.s.Peek())
	}
	if err == nil && !vr.s.AtEnd() {
		err = fmt.Errorf("found trailing text")
	}
	return n, err
}

// list decodes a raw array of scalars (null is the empty list), calling each
// with every element.
func (vr *valueReader) list(raw []byte, each func([]byte)) error {
	vr.s.Reset(raw)
	if vr.s.Null() {
		if !vr.s.AtEnd() {
			return fmt.Errorf("found trailing text")
		}
		return nil
	}
	if err := vr.s.Expect('['); err != nil {
		return fmt.Errorf("found %s", vr.s.Peek())
	}
	if !vr.s.Next(']') {
		for {
			b, isNull, err := vr.scalar()
			if err != nil {
				return fmt.Errorf("an element: %w", err)
			}
			if isNull {
				return fmt.Errorf("an element is null")
			}
			each(b)
			if vr.s.Next(']') {
				break
			}
			if err := vr.s.Expect(','); err != nil {
				return err
			}
		}
	}
	if !vr.s.AtEnd() {
		return fmt.Errorf("found trailing text")
	}
	return nil
}

// interner numbers distinct strings from 1; 0 is the empty string, which the
// models read as "absent".
type interner struct {
	ids   map[string]int32
	names []string
}

func newInterner() *interner {
	return &interner{ids: map[string]int32{"": 0}, names: []string{""}}
}

func (in *interner) id(b []byte) int32 {
	if id, ok := in.ids[string(b)]; ok {
		return id
	}
	s := string(b)
	id := int32(len(in.names))
	in.ids[s] = id
	in.names = append(in.names, s)
	return id
}

func (in *interner) quote(id int32) string { return strconv.Quote(in.names[id]) }
