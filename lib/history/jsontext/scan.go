// Package jsontext is a small JSON scanner for the history formats: it reads one
// value at a time from a byte slice, returns strings without allocating when they
// hold no escapes, and reports errors with the byte offset where they occur.
//
// It exists because encoding/json spends most of its time on reflection for the
// fixed, flat shapes a history holds, and because a checker that reads a million
// transactions should not allocate a string per read element.
package jsontext

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// DepthMax is the deepest nesting of arrays and objects the scanner accepts.
// Histories nest at most four levels (a transaction, a micro-op, a read list);
// the limit only keeps hostile input from exhausting the stack.
const DepthMax = 256

// Kind is the kind of the next JSON value, from its first byte.
type Kind uint8

// The kinds of JSON values.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// String returns the kind's name as used in error messages ("a string").
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Array:
		return "an array"
	case Object:
		return "an object"
	}
	return "nothing"
}

// SyntaxError is a malformed JSON text. Offset is the byte offset in the
// scanned slice.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("column %d: %s", e.Offset+1, e.Msg)
}

// Scanner reads JSON values from Data starting at Pos.
type Scanner struct {
	Data []byte
	Pos  int
	buf  []byte // scratch space for unescaped strings
}

// plain[c] is true for the bytes that stand for themselves inside a string.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// New returns a scanner over data.
func New(data []byte) *Scanner { return &Scanner{Data: data} }

// Reset makes the scanner read data from its start, keeping its scratch buffer.
func (s *Scanner) Reset(data []byte) {
	s.Data = data
	s.Pos = 0
}

func (s *Scanner) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: s.Pos, Msg: fmt.Sprintf(format, args...)}
}

// SkipSpace moves past JSON white space.
func (s *Scanner) SkipSpace() {
	if s.Pos < len(s.Data) && s.Data[s.Pos] > ' ' {
		return // the common case: no space at all
	}
	for s.Pos < len(s.Data) {
		switch s.Data[s.Pos] {
		case ' ', '\t', '\n', '\r':
			s.Pos++
		default:
			return
		}
	}
}

// AtEnd reports whether only white space is left.
func (s *Scanner) AtEnd() bool {
	s.SkipSpace()
	return s.Pos >= len(s.Data)
}

// Peek returns the kind of the next value after white space.
func (s *Scanner) Peek() Kind {
	s.SkipSpace()
	if s.Pos >= len(s.Data) {
		return Invalid
	}
	switch c := s.Data[s.Pos]; {
	case c == 'n':
		return Null
	case c == 't' || c == 'f':
		return Bool
	case c == '-' || (c >= '0' && c <= '9'):
		return Number
	case c == '"':
		return String
	case c == '[':
		return Array
	case c == '{':
		return Object
	}
	return Invalid
}

func (s *Scanner) describeNext() string {
	if s.Pos >= len(s.Data) {
		return "end of input"
	}
	c := s.Data[s.Pos]
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("%q", rune(c))
}

// Expect consumes the byte c after white space or fails.
func (s *Scanner) Expect(c byte) error {
	s.SkipSpace()
	if s.Pos < len(s.Data) && s.Data[s.Pos] == c {
		s.Pos++
		return nil
	}
	return s.errorf("expected %q, found %s", rune(c), s.describeNext())
}

// Next consumes c after white space if it is there.
func (s *Scanner) Next(c byte) bool {
	s.SkipSpace()
	if s.Pos < len(s.Data) && s.Data[s.Pos] == c {
		s.Pos++
		return true
	}
	return false
}

// Null consumes a null literal if it is next.
func (s *Scanner) Null() bool {
	s.SkipSpace()
	if len(s.Data)-s.Pos >= 4 && string(s.Data[s.Pos:s.Pos+4]) == "null" {
		s.Pos += 4
		return true
	}
	return false
}

// Bool reads true or false.
func (s *Scanner) Bool() (bool, error) {
	s.SkipSpace()
	rest := s.Data[s.Pos:]
	if len(rest) >= 4 && string(rest[:4]) == "true" {
		s.Pos += 4
		return true, nil
	}
	if len(rest) >= 5 && string(rest[:5]) == "false" {
		s.Pos += 5
		return false, nil
	}
	return false, s.errorf("expected true or false, found %s", s.describeNext())
}

// String reads a string and returns its unescaped bytes. The result aliases
// Data when the string has no escapes and the scanner's scratch buffer
// otherwise, so it is only valid until the next call.
func (s *Scanner) String() ([]byte, error) {
	s.SkipSpace()
	if s.Pos >= len(s.Data) || s.Data[s.Pos] != '"' {
		return nil, s.errorf("expected a string, found %s", s.describeNext())
	}
	start := s.Pos + 1
	i := start
	for i < len(s.Data) {
		c := s.Data[i]
		if !plain[c] {
			switch {
			case c == '"':
				s.Pos = i + 1
				return s.Data[start:i], nil
			case c == '\\':
				return s.slowString(start, i)
			}
			s.Pos = i
			return nil, s.errorf("control character 0x%02x in string", c)
		}
		i++
	}
	s.Pos = i
	return nil, s.errorf("unterminated string")
}

func (s *Scanner) slowString(start, i int) ([]byte, error) {
	b := append(s.buf[:0], s.Data[start:i]...)
	for i < len(s.Data) {
		c := s.Data[i]
		switch {
		case c == '"':
			s.Pos = i + 1
			s.buf = b
			return b, nil
		case c < 0x20:
			s.Pos = i
			return nil, s.errorf("control character 0x%02x in string", c)
		case c != '\\':
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(s.Data) {
			s.Pos = i
			return nil, s.errorf("unterminated string")
		}
		e := s.Data[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(s.Data, i)
			if !ok {
				s.Pos = i - 2
				return nil, s.errorf(`invalid \u escape`)
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(s.Data, i+2); ok && i+1 < len(s.Data) && s.Data[i] == '\\' && s.Data[i+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						i += 6
						r = d
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			s.Pos = i - 2
			return nil, s.errorf("invalid escape %q in string", "\\"+string(rune(e)))
		}
	}
	s.Pos = i
	return nil, s.errorf("unterminated string")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number scans a JSON number and returns its text and whether it is an
// integer (no fraction and no exponent).
func (s *Scanner) number() ([]byte, bool, error) {
	s.SkipSpace()
	start := s.Pos
	i := start
	d := s.Data
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		s.Pos = i
		return nil, false, s.errorf("expected a number, found %s", s.describeNext())
	}
	integer := true
	if i < len(d) && d[i] == '.' {
		integer = false
		i++
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			s.Pos = i
			return nil, false, s.errorf("expected a digit after the decimal point, found %s", s.describeNext())
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		integer = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			s.Pos = i
			return nil, false, s.errorf("expected a digit in the exponent, found %s", s.describeNext())
		}
	}
	s.Pos = i
	return d[start:i], integer, nil
}

// Int reads an integer that fits in an int64.
func (s *Scanner) Int() (int64, error) {
	start := s.Pos
	text, integer, err := s.number()
	if err != nil {
		return 0, err
	}
	if !integer {
		s.Pos = start
		s.SkipSpace()
		return 0, s.errorf("expected an integer, found %s", text)
	}
	// Fast path for the common short case.
	if len(text) <= 18 {
		var v int64
		neg := text[0] == '-'
		digits := text
		if neg {
			digits = text[1:]
		}
		for _, c := range digits {
			v = v*10 + int64(c-'0')
		}
		if neg {
			v = -v
		}
		return v, nil
	}
	v, perr := strconv.ParseInt(string(text), 10, 64)
	if perr != nil {
		s.Pos = start
		s.SkipSpace()
		return 0, s.errorf("integer %s out of range", text)
	}
	return v, nil
}

// IntText reads an integer and returns its text.
func (s *Scanner) IntText() ([]byte, error) {
	start := s.Pos
	text, integer, err := s.number()
	if err != nil {
		return nil, err
	}
	if !integer {
		s.Pos = start
		s.SkipSpace()
		return nil, s.errorf("expected an integer, found %s", text)
	}
	return text, nil
}

// Skip consumes one value of any kind, checking its syntax, and returns its raw
// text without surrounding white space.
func (s *Scanner) Skip() ([]byte, error) {
	s.SkipSpace()
	start := s.Pos
	if end, ok := validate(s.Data, start); ok {
		s.Pos = end
		return s.Data[start:end], nil
	}
	// Invalid: the recursive scanner says where and why.
	if err := s.skip(0); err != nil {
		return nil, err
	}
	return s.Data[start:s.Pos], nil
}

// isSpace tests c > ' ' first: nearly every byte it sees is not white space,
// and then one comparison says so.
func isSpace(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r') }

// validate checks the JSON value starting at i without recursion and returns
// the offset after it. It accepts exactly what skip accepts; on any problem it
// returns ok false and skip produces the error.
func validate(d []byte, i int) (end int, ok bool) {
	return validateMemo(d, i, nil)
}

// validateMemo is validate, which takes flat arrays it has seen the start of
// before from memo when memo is not nil.
func validateMemo(d []byte, i int, memo *ArrayMemo) (end int, ok bool) {
	var stack [DepthMax]byte // open containers: '[' or '{'
	depth := 0
	for {
		// A value.
		for i < len(d) && isSpace(d[i]) {
			i++
		}
		if i >= len(d) {
			return 0, false
		}
		switch c := d[i]; {
		case c == '"':
			if i, ok = validString(d, i); !ok {
				return 0, false
			}
		case c == '[' || c == '{':
			if depth >= DepthMax {
				return 0, false
			}
			if c == '[' && memo != nil && depth >= memoDepthMin {
				end, res := memo.flat(d, i)
				if res == memoInvalid {
					return 0, false
				}
				if res == memoValid {
					i = end
					break
				}
			}
			stack[depth] = c
			depth++
			i++
			for i < len(d) && isSpace(d[i]) {
				i++
			}
			if i < len(d) && d[i] == c+2 { // ']' is '['+2, '}' is '{'+2
				depth--
				i++
				break
			}
			if c == '{' {
				if i, ok = validKey(d, i); !ok {
					return 0, false
				}
			}
			continue
		case c == '-' || (c >= '0' && c <= '9'):
			if i, ok = validNumber(d, i); !ok {
				return 0, false
			}
		case c == 't':
			if len(d)-i < 4 || string(d[i:i+4]) != "true" {
				return 0, false
			}
			i += 4
		case c == 'f':
			if len(d)-i < 5 || string(d[i:i+5]) != "false" {
				return 0, false
			}
			i += 5
		case c == 'n':
			if len(d)-i < 4 || string(d[i:i+4]) != "null" {
				return 0, false
			}
			i += 4
		default:
			return 0, false
		}
		// After a value: close containers or move to the next element.
		for {
			if depth == 0 {
				return i, true
			}
			for i < len(d) && isSpace(d[i]) {
				i++
			}
			if i >= len(d) {
				return 0, false
			}
			top := stack[depth-1]
			if d[i] == top+2 {
				depth--
				i++
				continue
			}
			if d[i] != ',' {
				return 0, false
			}
			if top == '[' && i+1 < len(d) && d[i+1] == '"' {
				// A string right after the comma, as a writer puts the
				// elements of a list of strings, the bulk of a history: take
				// it here rather than through the value switch.
				if i, ok = validString(d, i+1); !ok {
					return 0, false
				}
				continue
			}
			i++
			if top == '{' {
				for i < len(d) && isSpace(d[i]) {
					i++
				}
				if i, ok = validKey(d, i); !ok {
					return 0, false
				}
			}
			break
		}
	}
}

// validKey checks an object key and its colon at i.
func validKey(d []byte, i int) (int, bool) {
	if i >= len(d) || d[i] != '"' {
		return 0, false
	}
	i, ok := validString(d, i)
	if !ok {
		return 0, false
	}
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	if i >= len(d) || d[i] != ':' {
		return 0, false
	}
	return i + 1, true
}

// validString checks the string starting with the quote at i.
func validString(d []byte, i int) (int, bool) {
	for i++; i < len(d); i++ {
		if i+8 <= len(d) {
			// Eight bytes at once: skip them if none needs a look, or go
			// straight to the first that does.
			m := stringStops(binary.LittleEndian.Uint64(d[i:]))
			if m == 0 {
				i += 7
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		}
		c := d[i]
		if plain[c] {
			continue
		}
		switch c {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(d) {
				return 0, false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if _, ok := hex4(d, i+2); !ok {
					return 0, false
				}
				i += 5
			default:
				return 0, false
			}
		default:
			return 0, false // a control character
		}
	}
	return 0, false
}

// stringStops marks, with the high bit of its byte, each byte of x (eight
// bytes of a string, the first in the low byte) that plain does not take: a
// quote, a backslash or a control character. The lowest mark is exact; the
// borrows of the subtractions can mark bytes above it that are plain.
func stringStops(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := x ^ ('"' * lo)
	b := x ^ ('\\' * lo)
	return ((x-0x20*lo) & ^x | (q-lo)&^q | (b-lo)&^b) & hi
}

// validNumber checks the number starting at i.
func validNumber(d []byte, i int) (int, bool) {
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return 0, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			return 0, false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			return 0, false
		}
	}
	return i, true
}

func (s *Scanner) skip(depth int) error {
	switch s.Peek() {
	case Null:
		if !s.Null() {
			return s.errorf("invalid literal, expected null")
		}
	case Bool:
		if _, err := s.Bool(); err != nil {
			return err
		}
	case Number:
		if _, _, err := s.number(); err != nil {
			return err
		}
	case String:
		if _, err := s.String(); err != nil {
			return err
		}
	case Array:
		if depth >= DepthMax {
			return s.errorf("nested deeper than %d levels", DepthMax)
		}
		s.Pos++
		if s.Next(']') {
			return nil
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			if s.Next(']') {
				return nil
			}
			if err := s.Expect(','); err != nil {
				return s.errorf("expected ',' or ']' in array, found %s", s.describeNext())
			}
		}
	case Object:
		if depth >= DepthMax {
			return s.errorf("nested deeper than %d levels", DepthMax)
		}
		s.Pos++
		if s.Next('}') {
			return nil
		}
		for {
			if _, err := s.String(); err != nil {
				return s.errorf("expected a string key in object, found %s", s.describeNext())
			}
			if err := s.Expect(':'); err != nil {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			if s.Next('}') {
				return nil
			}
			if err := s.Expect(','); err != nil {
				return s.errorf("expected ',' or '}' in object, found %s", s.describeNext())
			}
		}
	default:
		return s.errorf("expected a value, found %s", s.describeNext())
	}
	return nil
}

// Valid reports whether data is exactly one JSON value with optional white
// space around it.
func Valid(data []byte) bool {
	s := Scanner{Data: data}
	if _, err := s.Skip(); err != nil {
		return false
	}
	return s.AtEnd()
}

// AppendString appends s to dst as a JSON string literal.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				const hex = "0123456789abcdef"
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// ValidAt checks the JSON value that starts exactly at i, with no white space
// before it, and returns the offset after it. It accepts what Skip accepts;
// on a problem it reports false and says nothing of where, for which Skip is
// the one to call. A non-nil memo remembers the flat arrays it checks, and
// speeds up later calls on the same d; see ArrayMemo.
func ValidAt(d []byte, i int, memo *ArrayMemo) (end int, ok bool) {
	if i >= len(d) || isSpace(d[i]) {
		return 0, false
	}
	return validateMemo(d, i, memo)
}
