package history

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sf-dst/sf/lib/history/jsontext"
)

// Jepsen writes history.edn as one operation map per line:
//
//	{:type :invoke, :f :enqueue, :value 1, :process 0, :time 123, :index 0}
//
// (older stores write one vector of such maps). readEDN reads either layout
// with a small EDN reader of our own and turns each map into an Event:
//
//   - :type, :f, :process, :time and :index become the fields of the same name;
//     the index is the invocation's id.
//   - :value becomes JSON: nil is null, booleans stay booleans, vectors, lists
//     and sets become arrays, and every other scalar (integers, keywords,
//     strings, symbols, floats) becomes a string, so the integer 1 and the
//     string "1" are the same value to the checkers.
//   - an optional :key (an extension of ours) becomes the key.
//   - operations whose :process is not an integer (:nemesis) are skipped.
//
// Jepsen pairs a completion with the open invocation of the same process, so
// the process pairer below assigns each completion its invocation's id.

// ednDepthMax bounds the nesting of EDN forms for the same reason as
// jsontext.DepthMax.
const ednDepthMax = 256

type ednKind uint8

const (
	ednNil ednKind = iota
	ednBool
	ednInt    // text holds the digits
	ednNumber // any other number; text holds it
	ednString
	ednKeyword // text holds the name without the colon
	ednSymbol
	ednChar
	ednVector
	ednList
	ednSet
	ednMap // items alternate keys and values
)

var ednKindNames = [...]string{"nil", "a boolean", "an integer", "a number", "a string", "a keyword", "a symbol", "a character", "a vector", "a list", "a set", "a map"}

func (k ednKind) String() string { return ednKindNames[k] }

type ednValue struct {
	kind  ednKind
	b     bool
	text  string
	items []ednValue
	line  int
}

type ednReader struct {
	data []byte
	pos  int
	line int
	file string
}

func (r *ednReader) errorf(format string, args ...any) error {
	return &Error{File: r.file, Line: r.line, Msg: "unreadable EDN: " + fmt.Sprintf(format, args...)}
}

// skipSpace moves past white space, commas and comments.
func (r *ednReader) skipSpace() {
	for r.pos < len(r.data) {
		switch c := r.data[r.pos]; c {
		case '\n':
			r.line++
			r.pos++
		case ' ', '\t', '\r', ',', '\f':
			r.pos++
		case ';':
			for r.pos < len(r.data) && r.data[r.pos] != '\n' {
				r.pos++
			}
		default:
			return
		}
	}
}

func isDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', '\f', '(', ')', '[', ']', '{', '}', '"', ';':
		return true
	}
	return false
}

func (r *ednReader) token() string {
	start := r.pos
	for r.pos < len(r.data) && !isDelimiter(r.data[r.pos]) {
		r.pos++
	}
	return string(r.data[start:r.pos])
}

func (r *ednReader) describeNext() string {
	if r.pos >= len(r.data) {
		return "end of input"
	}
	c, _ := utf8.DecodeRune(r.data[r.pos:])
	return fmt.Sprintf("%q", c)
}

// form reads the next form. It returns ok false at a closing delimiter, which
// it leaves in place.
func (r *ednReader) form(depth int) (v ednValue, err error) {
	r.skipSpace()
	if r.pos >= len(r.data) {
		return v, r.errorf("unexpected end of input")
	}
	if depth > ednDepthMax {
		return v, r.errorf("forms nested deeper than %d levels", ednDepthMax)
	}
	v.line = r.line
	c := r.data[r.pos]
	switch {
	case c == '(':
		r.pos++
		v.kind = ednList
		v.items, err = r.seq(')', depth)
		return v, err
	case c == '[':
		r.pos++
		v.kind = ednVector
		v.items, err = r.seq(']', depth)
		return v, err
	case c == '{':
		r.pos++
		v.kind = ednMap
		v.items, err = r.seq('}', depth)
		if err == nil && len(v.items)%2 != 0 {
			r.line = v.line
			return v, r.errorf("map with an odd number of forms")
		}
		return v, err
	case c == ')' || c == ']' || c == '}':
		return v, r.errorf("unexpected %q", rune(c))
	case c == '"':
		v.kind = ednString
		v.text, err = r.str()
		return v, err
	case c == ':':
		r.pos++
		t := r.token()
		t = strings.TrimPrefix(t, ":") // ::auto-resolved keywords keep their name
		if t == "" {
			return v, r.errorf("empty keyword")
		}
		v.kind, v.text = ednKeyword, t
		return v, nil
	case c == '\\':
		r.pos++
		if r.pos >= len(r.data) {
			return v, r.errorf("unexpected end of input in a character")
		}
		// A character is one rune, or a name such as newline.
		_, size := utf8.DecodeRune(r.data[r.pos:])
		start := r.pos
		r.pos += size
		for r.pos < len(r.data) && !isDelimiter(r.data[r.pos]) {
			r.pos++
		}
		name := string(r.data[start:r.pos])
		v.kind = ednChar
		switch name {
		case "newline":
			v.text = "\n"
		case "space":
			v.text = " "
		case "tab":
			v.text = "\t"
		case "return":
			v.text = "\r"
		default:
			if len(name) == 5 && name[0] == 'u' {
				if n, err := strconv.ParseUint(name[1:], 16, 32); err == nil {
					v.text = string(rune(n))
					return v, nil
				}
			}
			if utf8.RuneCountInString(name) != 1 {
				return v, r.errorf("unknown character \\%s", name)
			}
			v.text = name
		}
		return v, nil
	case c == '#':
		return r.dispatch(depth)
	case c == '^':
		// Metadata: read and drop it, then read the form it annotates.
		r.pos++
		if _, err := r.form(depth + 1); err != nil {
			return v, err
		}
		return r.form(depth)
	case c == '\'' || c == '`' || c == '~' || c == '@':
		return v, r.errorf("reader macro %q is not EDN", rune(c))
	}
	t := r.token()
	if t == "" {
		return v, r.errorf("unexpected %s", r.describeNext())
	}
	return r.atom(v, t)
}

func (r *ednReader) atom(v ednValue, t string) (ednValue, error) {
	switch t {
	case "nil":
		v.kind = ednNil
		return v, nil
	case "true", "false":
		v.kind, v.b = ednBool, t == "true"
		return v, nil
	}
	c := t[0]
	if c >= '0' && c <= '9' || ((c == '-' || c == '+') && len(t) > 1 && t[1] >= '0' && t[1] <= '9') {
		digits := strings.TrimPrefix(t, "+")
		digits = strings.TrimSuffix(digits, "N")
		if isDecimal(digits) {
			v.kind, v.text = ednInt, canonicalInt(digits)
			return v, nil
		}
		if _, err := strconv.ParseFloat(strings.TrimSuffix(t, "M"), 64); err == nil || strings.Contains(t, "/") {
			v.kind, v.text = ednNumber, t
			return v, nil
		}
		return v, r.errorf("malformed number %q", t)
	}
	v.kind, v.text = ednSymbol, t
	return v, nil
}

func isDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// canonicalInt drops leading zeros so that 007 and 7 are the same value.
func canonicalInt(s string) string {
	neg := strings.HasPrefix(s, "-")
	d := strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
	if d == "" {
		return "0"
	}
	if neg {
		return "-" + d
	}
	return d
}

func (r *ednReader) dispatch(depth int) (v ednValue, err error) {
	r.pos++ // '#'
	v.line = r.line
	if r.pos >= len(r.data) {
		return v, r.errorf("unexpected end of input after '#'")
	}
	switch c := r.data[r.pos]; {
	case c == '{':
		r.pos++
		v.kind = ednSet
		v.items, err = r.seq('}', depth)
		return v, err
	case c == '_':
		r.pos++
		if _, err := r.form(depth + 1); err != nil {
			return v, err
		}
		r.skipSpace()
		if r.pos < len(r.data) && isCloser(r.data[r.pos]) {
			return v, errDiscardedLast
		}
		return r.form(depth)
	case c == '#':
		r.pos++
		t := r.token()
		switch t {
		case "Inf", "-Inf", "NaN":
			v.kind, v.text = ednNumber, t
			return v, nil
		}
		return v, r.errorf("unknown symbolic value ##%s", t)
	case c == '"':
		v.kind = ednString
		v.text, err = r.str() // a regular expression: keep its text
		return v, err
	}
	// A tagged element such as #inst "..." or #jepsen.history.Op{...}: the
	// value is the element; the tag is dropped.
	tag := r.token()
	if tag == "" {
		return v, r.errorf("unexpected %s after '#'", r.describeNext())
	}
	return r.form(depth + 1)
}

func isCloser(c byte) bool { return c == ')' || c == ']' || c == '}' }

// errDiscardedLast reports a #_ form that was the last one in its sequence; seq
// treats it as the end of the sequence.
var errDiscardedLast = fmt.Errorf("discarded last form")

func (r *ednReader) seq(closer byte, depth int) ([]ednValue, error) {
	start := r.line
	var items []ednValue
	for {
		r.skipSpace()
		if r.pos >= len(r.data) {
			r.line = start
			return nil, r.errorf("%q opened here is never closed", rune(openerOf(closer)))
		}
		if c := r.data[r.pos]; isCloser(c) {
			if c != closer {
				return nil, r.errorf("%q closes a %q opened at line %d", rune(c), rune(openerOf(closer)), start)
			}
			r.pos++
			return items, nil
		}
		v, err := r.form(depth + 1)
		if err == errDiscardedLast {
			continue
		}
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
}

func openerOf(closer byte) byte {
	switch closer {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}

func (r *ednReader) str() (string, error) {
	r.pos++ // opening quote
	start := r.pos
	var b []byte
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		switch c {
		case '"':
			r.pos++
			if b == nil {
				return string(r.data[start : r.pos-1]), nil
			}
			return string(b), nil
		case '\n':
			r.line++
		case '\\':
			if b == nil {
				b = append([]byte{}, r.data[start:r.pos]...)
			}
			if r.pos+1 >= len(r.data) {
				return "", r.errorf("unterminated string")
			}
			e := r.data[r.pos+1]
			r.pos += 2
			switch e {
			case '"', '\\':
				b = append(b, e)
			case 'n':
				b = append(b, '\n')
			case 't':
				b = append(b, '\t')
			case 'r':
				b = append(b, '\r')
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'u':
				if r.pos+4 > len(r.data) {
					return "", r.errorf(`invalid \u escape in string`)
				}
				n, err := strconv.ParseUint(string(r.data[r.pos:r.pos+4]), 16, 32)
				if err != nil {
					return "", r.errorf(`invalid \u escape in string`)
				}
				r.pos += 4
				b = utf8.AppendRune(b, rune(n))
			default:
				return "", r.errorf("invalid escape \\%c in string", e)
			}
			continue
		}
		if b != nil {
			b = append(b, c)
		}
		r.pos++
	}
	return "", r.errorf("unterminated string")
}

// ednUTF8 says whether every string, keyword and symbol in v is UTF-8.
func ednUTF8(v *ednValue) bool {
	if !utf8.ValidString(v.text) {
		return false
	}
	for i := range v.items {
		if !ednUTF8(&v.items[i]) {
			return false
		}
	}
	return true
}

// appendJSON appends v as JSON, with scalars as strings (see above).
func appendJSON(dst []byte, v *ednValue) []byte {
	switch v.kind {
	case ednNil:
		return append(dst, "null"...)
	case ednBool:
		if v.b {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case ednVector, ednList, ednSet:
		dst = append(dst, '[')
		for i := range v.items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, &v.items[i])
		}
		return append(dst, ']')
	case ednMap:
		dst = append(dst, '{')
		for i := 0; i+1 < len(v.items); i += 2 {
			if i > 0 {
				dst = append(dst, ',')
			}
			k := &v.items[i]
			if k.kind == ednVector || k.kind == ednList || k.kind == ednSet || k.kind == ednMap {
				dst = jsontext.AppendString(dst, string(appendJSON(nil, k)))
			} else {
				dst = jsontext.AppendString(dst, scalarText(k))
			}
			dst = append(dst, ':')
			dst = appendJSON(dst, &v.items[i+1])
		}
		return append(dst, '}')
	}
	return jsontext.AppendString(dst, scalarText(v))
}

func scalarText(v *ednValue) string {
	switch v.kind {
	case ednNil:
		return "nil"
	case ednBool:
		return strconv.FormatBool(v.b)
	}
	return v.text
}

// readEDN calls emit with each operation event of a Jepsen history, with ids
// from their :index (or position) for invocations; completions get their ids
// from the process pairer.
func readEDN(data []byte, file string, emit func(*Event) error) error {
	r := &ednReader{data: data, line: 1, file: file}
	ordinal := int64(0)
	handle := func(v *ednValue) error {
		ev, ok, err := r.event(v, ordinal)
		ordinal++
		if err != nil || !ok {
			return err
		}
		return emit(&ev)
	}
	for {
		r.skipSpace()
		if r.pos >= len(r.data) {
			return nil
		}
		c := r.data[r.pos]
		if c == '[' || c == '(' {
			// One sequence of operation maps: read them one at a time.
			closer := byte(']')
			if c == '(' {
				closer = ')'
			}
			start := r.line
			r.pos++
			for {
				r.skipSpace()
				if r.pos >= len(r.data) {
					r.line = start
					return r.errorf("%q opened here is never closed", rune(c))
				}
				if r.data[r.pos] == closer {
					r.pos++
					break
				}
				v, err := r.form(1)
				if err == errDiscardedLast {
					continue
				}
				if err != nil {
					return err
				}
				if err := handle(&v); err != nil {
					return err
				}
			}
			continue
		}
		v, err := r.form(0)
		if err == errDiscardedLast {
			continue
		}
		if err != nil {
			return err
		}
		if err := handle(&v); err != nil {
			return err
		}
	}
}

// event turns an operation map into an Event. ok is false for operations
// that are not a client's (nemesis operations).
func (r *ednReader) event(v *ednValue, ordinal int64) (ev Event, ok bool, err error) {
	ev.Line = v.line
	fail := func(format string, args ...any) (Event, bool, error) {
		return Event{}, false, &Error{File: r.file, Line: v.line, Msg: fmt.Sprintf(format, args...)}
	}
	if v.kind != ednMap {
		return fail("expected an operation map, found %s", v.kind)
	}
	var haveType, haveProcess, haveF, haveIndex, haveTime bool
	var processIsInt bool
	for i := 0; i+1 < len(v.items); i += 2 {
		k, val := &v.items[i], &v.items[i+1]
		if k.kind != ednKeyword {
			continue
		}
		switch k.text {
		case "type":
			haveType = true
			if val.kind != ednKeyword && val.kind != ednString && val.kind != ednSymbol {
				return fail(":type must be a keyword, not %s", val.kind)
			}
			switch val.text {
			case "invoke":
				ev.Type = Invoke
			case "ok":
				ev.Type = OK
			case "info":
				ev.Type = Info
			case "fail":
				ev.Type = Fail
			default:
				return fail(":type :%s is not one of :invoke, :ok, :info, :fail", val.text)
			}
		case "process":
			haveProcess = true
			if val.kind == ednInt {
				n, perr := strconv.ParseInt(val.text, 10, 64)
				if perr != nil {
					return fail(":process %s is out of range", val.text)
				}
				ev.Process, processIsInt = n, true
			}
		case "f":
			haveF = true
			switch val.kind {
			case ednKeyword, ednString, ednSymbol, ednInt:
				ev.F = validString(val.text)
			default:
				return fail(":f must be a keyword, not %s", val.kind)
			}
		case "value":
			if !ednUTF8(val) {
				// As in JSON Lines (valueUTF8): a value is text.
				return fail(":value holds bytes that are not UTF-8 (a history is UTF-8 text)")
			}
			ev.Value = appendJSON(nil, val)
		case "key":
			switch val.kind {
			case ednNil:
			case ednVector, ednList, ednSet, ednMap:
				return fail(":key must be a scalar, not %s", val.kind)
			default:
				ev.Key = validString(scalarText(val))
			}
		case "time":
			if val.kind != ednInt {
				return fail(":time must be an integer, not %s", val.kind)
			}
			n, perr := strconv.ParseInt(val.text, 10, 64)
			if perr != nil {
				return fail(":time %s is out of range", val.text)
			}
			ev.Time, haveTime = n, true
		case "index":
			if val.kind != ednInt {
				return fail(":index must be an integer, not %s", val.kind)
			}
			n, perr := strconv.ParseInt(val.text, 10, 64)
			if perr != nil {
				return fail(":index %s is out of range", val.text)
			}
			ev.Index, haveIndex = n, true
		}
	}
	switch {
	case !haveType:
		return fail("operation map has no :type")
	case !haveProcess:
		return fail("operation map has no :process")
	case !processIsInt:
		return Event{}, false, nil // a nemesis operation
	case !haveF:
		return fail("operation map has no :f")
	}
	if !haveIndex {
		ev.Index = ordinal
	}
	if !haveTime {
		ev.Time = ev.Index
	}
	ev.ID = ev.Index
	return ev, true, nil
}

type openInvoke struct {
	id   int64
	line int
}

// processPairer gives each completion the id of its process's open
// invocation, as Jepsen pairs them.
type processPairer struct {
	file string
	open map[int64]openInvoke
	next func(*Event) error
}

func newProcessPairer(p *pairer, next func(*Event) error) *processPairer {
	return &processPairer{file: p.file, open: map[int64]openInvoke{}, next: next}
}

func (pp *processPairer) add(ev *Event) error {
	if ev.Type == Invoke {
		if o, ok := pp.open[ev.Process]; ok {
			return &Error{File: pp.file, Line: ev.Line, Msg: fmt.Sprintf("process %d invokes again while its invocation at line %d is still open", ev.Process, o.line)}
		}
		pp.open[ev.Process] = openInvoke{ev.ID, ev.Line}
		return pp.next(ev)
	}
	o, ok := pp.open[ev.Process]
	if !ok {
		return &Error{File: pp.file, Line: ev.Line, Msg: fmt.Sprintf("%s completion of process %d has no invocation before it", ev.Type, ev.Process)}
	}
	delete(pp.open, ev.Process)
	ev.ID = o.id
	return pp.next(ev)
}
