package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxSuggestDistance is the largest edit distance at which an unknown field gets a "did you mean" hint.
// Two catches a dropped, doubled or swapped letter without suggesting unrelated names.
const maxSuggestDistance = 2

// pathError is a validation error: the file as the user named it, the JSON path of the offending value
// (empty for the whole document) and a lowercase message.
type pathError struct {
	file, path, msg string
}

func (e *pathError) Error() string {
	if e.path == "" {
		return e.file + ": " + e.msg
	}
	return e.file + ": " + e.path + ": " + e.msg
}

// syntaxError is malformed JSON, located by line and column (both 1-based, the column in characters).
type syntaxError struct {
	file      string
	line, col int
	err       *json.SyntaxError
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.file, e.line, e.col, e.err.Error())
}

func (e *syntaxError) Unwrap() error { return e.err }

// checkSyntax reports the first syntax error in data with its line and column.
func checkSyntax(file string, data []byte) error {
	var raw json.RawMessage
	err := json.Unmarshal(data, &raw)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("%s: %w", file, err)
	}
	line, col := position(data, se)
	return &syntaxError{file: file, line: line, col: col, err: se}
}

// position turns the offset of a syntax error into a line and a column. The decoder's offset counts the
// offending byte itself, so the byte is at Offset-1; at the end of the input there is no byte, and the
// position is just past the last one.
func position(data []byte, se *json.SyntaxError) (line, col int) {
	idx := int(se.Offset) - 1
	if strings.HasPrefix(se.Error(), "unexpected end") {
		idx = int(se.Offset)
	}
	idx = max(0, min(idx, len(data)))
	before := data[:idx]
	start := bytes.LastIndexByte(before, '\n') + 1
	return 1 + bytes.Count(before, []byte{'\n'}), 1 + utf8.RuneCount(data[start:idx])
}

// validator is implemented by the structs of a world file that check themselves once all their fields are
// decoded. path is the struct's own JSON path.
type validator interface {
	validate(d *decoder, path string) error
}

// decoder walks syntactically valid JSON into a struct, field by field, so that every error can name its
// JSON path. It knows the fields from the json tags of the struct, so adding a field to a world file is
// adding it to its struct, with its default and, if needed, a check in the struct's validate method.
type decoder struct {
	file string // the file as the user named it, for messages
	dir  string // absolute directory that relative paths are resolved against
}

func (d *decoder) errorf(path, format string, args ...any) error {
	return &pathError{file: d.file, path: path, msg: fmt.Sprintf(format, args...)}
}

var (
	durationType = reflect.TypeFor[Duration]()
	rangeType    = reflect.TypeFor[Range]()
	faultsType   = reflect.TypeFor[Faults]()
)

// decodeValue decodes raw into v, which is a world file struct or one of the field types it uses.
func (d *decoder) decodeValue(path string, raw []byte, v reflect.Value) error {
	t := v.Type()
	switch t {
	case durationType:
		x, msg := parseDuration(raw)
		if msg != "" {
			return d.errorf(path, "%s", msg)
		}
		v.SetInt(int64(x))
		return nil
	case rangeType:
		r, msg := parseRange(raw)
		if msg != "" {
			return d.errorf(path, "%s", msg)
		}
		v.Set(reflect.ValueOf(r))
		return nil
	}
	k := kindOf(raw)
	wrong := func() error { return d.errorf(path, "expected %s", expected(t)) }
	switch t.Kind() {
	case reflect.Bool:
		if k != 't' && k != 'f' {
			return wrong()
		}
		v.SetBool(k == 't')
	case reflect.String:
		s, ok := unquote(raw)
		if !ok {
			return wrong()
		}
		v.SetString(s)
	case reflect.Float32, reflect.Float64:
		if !isNumber(k) {
			return wrong()
		}
		f, err := strconv.ParseFloat(string(raw), t.Bits())
		if err != nil {
			return d.errorf(path, "number %s is out of range", raw)
		}
		v.SetFloat(f)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !isNumber(k) {
			return wrong()
		}
		n, err := strconv.ParseInt(string(raw), 10, t.Bits())
		if errors.Is(err, strconv.ErrRange) {
			return d.errorf(path, "number %s is out of range", raw)
		} else if err != nil {
			return wrong()
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !isNumber(k) {
			return wrong()
		}
		n, err := strconv.ParseUint(string(raw), 10, t.Bits())
		if errors.Is(err, strconv.ErrRange) && k != '-' {
			return d.errorf(path, "number %s is out of range", raw)
		} else if err != nil {
			return wrong()
		}
		v.SetUint(n)
	case reflect.Slice:
		elems, ok := arrayElems(raw)
		if !ok {
			return wrong()
		}
		if len(elems) == 0 {
			v.SetZero() // [] and a missing field mean the same, and encode the same
			return nil
		}
		s := reflect.MakeSlice(t, len(elems), len(elems))
		for i, e := range elems {
			if err := d.decodeValue(fmt.Sprintf("%s[%d]", path, i), e, s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic("config: map field with non-string keys: " + t.String())
		}
		members, ok := objectMembers(raw)
		if !ok {
			return wrong()
		}
		if len(members) == 0 {
			v.SetZero()
			return nil
		}
		m := reflect.MakeMapWithSize(t, len(members))
		for _, mb := range members {
			mp := joinPath(path, mb.key)
			key := reflect.ValueOf(mb.key).Convert(t.Key())
			if m.MapIndex(key).IsValid() {
				return d.errorf(mp, "duplicate key")
			}
			e := reflect.New(t.Elem()).Elem()
			if err := d.decodeValue(mp, mb.value, e); err != nil {
				return err
			}
			m.SetMapIndex(key, e)
		}
		v.Set(m)
	case reflect.Pointer:
		if k == 'n' {
			return wrong()
		}
		p := reflect.New(t.Elem())
		if err := d.decodeValue(path, raw, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Struct:
		return d.decodeStruct(path, raw, v)
	default:
		panic("config: unsupported field type " + t.String())
	}
	return nil
}

// decodeStruct decodes a JSON object into the struct v, which holds the defaults for missing fields, and
// then lets the struct validate itself. Members are handled in the order of the file, so the first error
// reported is the first one in the file.
func (d *decoder) decodeStruct(path string, raw []byte, v reflect.Value) error {
	t := v.Type()
	if t == faultsType && kindOf(raw) == '"' {
		preset, _ := unquote(raw)
		return d.errorf(path, "preset %q is not supported yet by this version of sf", preset)
	}
	members, ok := objectMembers(raw)
	if !ok {
		return d.errorf(path, "expected an object")
	}
	fields := jsonFields(t)
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		mp := joinPath(path, m.key)
		if seen[m.key] {
			return d.errorf(mp, "duplicate field")
		}
		seen[m.key] = true
		i := slices.IndexFunc(fields, func(f jsonField) bool { return f.name == m.key })
		switch {
		case i >= 0:
			if err := d.decodeValue(mp, m.value, v.Field(fields[i].index)); err != nil {
				return err
			}
		case slices.Contains(notSupported[t], m.key):
			return d.errorf(mp, "not supported yet by this version of sf")
		default:
			if s := suggest(m.key, t); s != "" {
				return d.errorf(mp, "unknown field (did you mean %q?)", s)
			}
			return d.errorf(mp, "unknown field")
		}
	}
	if val, ok := v.Addr().Interface().(validator); ok {
		return val.validate(d, path)
	}
	return nil
}

// jsonField is a struct field that a world file can set.
type jsonField struct {
	name  string
	index int
}

// jsonFields lists the fields of t that have a json tag, in declaration order.
func jsonFields(t reflect.Type) []jsonField {
	var fs []jsonField
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		fs = append(fs, jsonField{name: name, index: i})
	}
	return fs
}

// suggest returns the known field of t closest to key, counting the fields that are not supported yet, if
// it is within maxSuggestDistance edits. Ties go to the field declared first.
func suggest(key string, t reflect.Type) string {
	var names []string
	for _, f := range jsonFields(t) {
		names = append(names, f.name)
	}
	names = append(names, notSupported[t]...)
	best, bestDist := "", maxSuggestDistance+1
	for _, n := range names {
		if dist := editDistance(strings.ToLower(key), n); dist < bestDist {
			best, bestDist = n, dist
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b: the number of inserted, deleted
// or replaced characters and swapped neighbours that turn a into b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// expected describes the JSON form of a value of type t, for "expected ..." messages.
func expected(t reflect.Type) string {
	switch t {
	case durationType:
		return `a duration string like "250ms"`
	case rangeType:
		return `a range of two durations like ["1ms", "10ms"]`
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer of 0 or more"
	case reflect.Slice:
		return "an array of " + plural(t.Elem())
	case reflect.Map:
		return "an object of " + plural(t.Elem())
	default:
		return "an object"
	}
}

// plural names values of type t in the plural, for "an array of ..." messages.
func plural(t reflect.Type) string {
	switch t {
	case durationType:
		return "durations"
	case rangeType:
		return "ranges"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "booleans"
	case reflect.String:
		return "strings"
	case reflect.Float32, reflect.Float64:
		return "numbers"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integers"
	case reflect.Slice:
		return "arrays"
	default:
		return "objects"
	}
}

// joinPath appends an object key to a JSON path: .key for plain keys, ["key"] for any other.
func joinPath(path, key string) string {
	plain := key != ""
	for _, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return path + "[" + strconv.Quote(key) + "]"
	case path == "":
		return key
	default:
		return path + "." + key
	}
}

// kindOf returns the first byte of a JSON value: '{', '[', '"', 't', 'f', 'n', or the start of a number.
func kindOf(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

func isNumber(k byte) bool { return k == '-' || k >= '0' && k <= '9' }

// unquote decodes a JSON string.
func unquote(raw []byte) (string, bool) {
	if kindOf(raw) != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// member is one key and value of a JSON object.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers returns the members of a JSON object in the order of the file, duplicates included. It
// returns false when raw is not a well-formed object.
func objectMembers(raw []byte) ([]member, bool) {
	if kindOf(raw) != '{' {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	var ms []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		ms = append(ms, member{key: key, value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	return ms, true
}

// arrayElems returns the elements of a JSON array, or false when raw is not a well-formed array.
func arrayElems(raw []byte) ([]json.RawMessage, bool) {
	if kindOf(raw) != '[' {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	var es []json.RawMessage
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		es = append(es, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	return es, true
}
