package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sf-dst/sf/lib/echo"
	"github.com/sf-dst/sf/lib/faults"
)

// maxSuggestDistance is the largest edit distance at which an unknown field gets a "did you mean" hint.
// Two catches a dropped, doubled or swapped letter without suggesting unrelated names.
const maxSuggestDistance = 2

// pathError is a validation error: the file as the user named it (or the -set argument), the JSON path
// of the offending value (empty for the whole document or the override itself), a lowercase message and
// the error it stands for, if any.
type pathError struct {
	file, path, msg string
	err             error
}

func (e *pathError) Error() string {
	if e.path == "" {
		return e.file + ": " + e.msg
	}
	return e.file + ": " + e.path + ": " + e.msg
}

func (e *pathError) Unwrap() error { return e.err }

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

// decoder walks a JSON tree into a struct, field by field, so that every error can name the place where
// the user wrote the value. It knows the fields from the json tags of the struct, so adding a field to a
// world file is adding it to its struct, with its default and, if needed, a check in the struct's
// validate method.
type decoder struct {
	// root is the source of the world's root object, for checks on values that no layer wrote.
	root *source
	// srcs holds the source of every value decoded, by JSON path.
	srcs map[string]*source
	// set collects the fields that were set, when the world being decoded is the one that runs.
	set *setList
}

func newDecoder(root *source, set *setList) *decoder {
	return &decoder{root: root, srcs: make(map[string]*source), set: set}
}

// errorf reports an error about the value at path, in terms of the place the user wrote it.
func (d *decoder) errorf(path, format string, args ...any) error {
	return d.sourceOf(path).errorf(path, format, args...)
}

// sourceOf returns the source of the value at path, or of its nearest decoded ancestor.
func (d *decoder) sourceOf(path string) *source {
	for {
		if s, ok := d.srcs[path]; ok {
			return s
		}
		if path == "" {
			return d.root
		}
		path = parentPath(path)
	}
}

// wasSet reports whether some layer wrote the value at path.
func (d *decoder) wasSet(path string) bool {
	_, ok := d.srcs[path]
	return ok
}

// resolve makes a path from the world file absolute, relative to the directory of the file that wrote
// the value at where.
func (d *decoder) resolve(where, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(d.sourceOf(where).dir, p)
}

// setList collects the fields a world sets, each once, in the order they are met.
type setList struct {
	paths []string
	seen  map[string]bool
}

// add records that the field at the JSON path p was set.
func (l *setList) add(p string) {
	n := normPath(p)
	if l.seen == nil {
		l.seen = make(map[string]bool)
	}
	if !l.seen[n] {
		l.seen[n] = true
		l.paths = append(l.paths, n)
	}
}

// note records that the field at path was set.
func (d *decoder) note(path string) {
	if d.set != nil {
		d.set.add(path)
	}
}

var (
	durationType = reflect.TypeFor[Duration]()
	rangeType    = reflect.TypeFor[Range]()
	worldType    = reflect.TypeFor[World]()
	faultsType   = reflect.TypeFor[Faults]()
	// groupTypes are the objects that only group fields. Set lists their fields, not the objects: an
	// empty "liveness": {} sets nothing.
	groupTypes = map[reflect.Type]bool{
		faultsType:                  true,
		reflect.TypeFor[Liveness](): true,
		reflect.TypeFor[Preempt]():  true,
		reflect.TypeFor[Checker]():  true,
		reflect.TypeFor[Limits]():   true,
	}
)

// decodeValue decodes jv into v, which is a world file struct or one of the field types it uses.
func (d *decoder) decodeValue(path string, jv *jvalue, v reflect.Value) error {
	d.srcs[path] = jv.src
	t := v.Type()
	switch t {
	case durationType:
		x, msg := parseDuration(jv)
		if msg != "" {
			return d.errorf(path, "%s", msg)
		}
		v.SetInt(int64(x))
		return nil
	case rangeType:
		r, msg := parseRange(jv)
		if msg != "" {
			return d.errorf(path, "%s", msg)
		}
		v.Set(reflect.ValueOf(r))
		return nil
	}
	wrong := func() error { return d.errorf(path, "expected %s", expected(t)) }
	switch t.Kind() {
	case reflect.Bool:
		if jv.kind != 't' && jv.kind != 'f' {
			return wrong()
		}
		v.SetBool(jv.kind == 't')
	case reflect.String:
		if jv.kind != '"' {
			return wrong()
		}
		v.SetString(jv.str)
	case reflect.Float32, reflect.Float64:
		if jv.kind != '0' {
			return wrong()
		}
		f, err := strconv.ParseFloat(jv.str, t.Bits())
		if err != nil {
			return d.errorf(path, "number %s is out of range", jv.str)
		}
		v.SetFloat(f)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if jv.kind != '0' {
			return wrong()
		}
		n, err := strconv.ParseInt(jv.str, 10, t.Bits())
		if errors.Is(err, strconv.ErrRange) {
			return d.errorf(path, "number %s is out of range", jv.str)
		} else if err != nil {
			return wrong()
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if jv.kind != '0' {
			return wrong()
		}
		n, err := strconv.ParseUint(jv.str, 10, t.Bits())
		if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(jv.str, "-") {
			return d.errorf(path, "number %s is out of range", jv.str)
		} else if err != nil {
			return wrong()
		}
		v.SetUint(n)
	case reflect.Slice:
		if jv.kind != '[' {
			return wrong()
		}
		if len(jv.elems) == 0 {
			v.SetZero() // [] and a missing field mean the same, and encode the same
			return nil
		}
		s := reflect.MakeSlice(t, len(jv.elems), len(jv.elems))
		for i, e := range jv.elems {
			if err := d.decodeValue(fmt.Sprintf("%s[%d]", path, i), e, s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic("config: map field with non-string keys: " + t.String())
		}
		if jv.kind != '{' {
			return wrong()
		}
		if len(jv.members) == 0 {
			v.SetZero()
			return nil
		}
		m := reflect.MakeMapWithSize(t, len(jv.members))
		for _, mb := range jv.members {
			e := reflect.New(t.Elem()).Elem()
			if err := d.decodeValue(joinPath(path, mb.key), mb.value, e); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(mb.key).Convert(t.Key()), e)
		}
		v.Set(m)
	case reflect.Pointer:
		if jv.kind == 'n' {
			return wrong()
		}
		p := reflect.New(t.Elem())
		if err := d.decodeValue(path, jv, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Struct:
		return d.decodeStruct(path, jv, v)
	default:
		panic("config: unsupported field type " + t.String())
	}
	return nil
}

// decodeStruct decodes a JSON object into the struct v, which holds the defaults for missing fields, and
// then lets the struct validate itself. Members are handled in order, so the first error reported is the
// first one in the file. For the faults, a preset is applied first, whatever its position, so that the
// fields next to it override it.
func (d *decoder) decodeStruct(path string, jv *jvalue, v reflect.Value) error {
	t := v.Type()
	if t == faultsType && jv.kind == '"' {
		jv = presetObject(jv)
	}
	if jv.kind != '{' {
		return d.errorf(path, "expected an object")
	}
	members := jv.members
	if t == faultsType {
		if i := jv.index("preset"); i >= 0 {
			if err := d.applyPreset(path, jv.members[i].value, v.Addr().Interface().(*Faults)); err != nil {
				return err
			}
			members = jv.without("preset").members
		}
	}
	fields := jsonFields(t)
	for _, m := range members {
		mp := joinPath(path, m.key)
		i := slices.IndexFunc(fields, func(f jsonField) bool { return f.name == m.key })
		if fd, ok := kindField(m.key); i < 0 && ok && t == faultsType {
			d.note(mp)
			if err := d.decodeKindField(mp, m.value, fd, v.Addr().Interface().(*Faults)); err != nil {
				return err
			}
			continue
		}
		if i < 0 {
			d.srcs[mp] = m.value.src
			if s := suggest(m.key, t); s != "" {
				return d.errorf(mp, "unknown field (did you mean %q?)", s)
			}
			return d.errorf(mp, "unknown field")
		}
		fv := v.Field(fields[i].index)
		if !groupTypes[fv.Type()] {
			d.note(mp)
		}
		if err := d.decodeValue(mp, m.value, fv); err != nil {
			return err
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

// fieldNames lists the names a world file may use in an object of type t: its json fields, for the world
// the two fields that the loader resolves before decoding (extends and profiles), and for the faults the
// fields of every fault kind.
func fieldNames(t reflect.Type) []string {
	var names []string
	for _, f := range jsonFields(t) {
		names = append(names, f.name)
	}
	switch t {
	case worldType:
		names = append(names, "extends", "profiles")
	case faultsType:
		for _, f := range faults.Fields() {
			names = append(names, f.Name)
		}
	}
	return names
}

// suggest returns the field of t closest to key, if it is within maxSuggestDistance edits.
func suggest(key string, t reflect.Type) string {
	return Closest(key, fieldNames(t))
}

// Closest returns the name closest to key, if it is within maxSuggestDistance edits, for a "did you
// mean" hint; empty when none is that close. Ties go to the name listed first. The tools' flag
// parser (lib/manual) gives its hints with it too, so a mistyped flag and a mistyped field are
// answered alike. A key whose length is further than that from a name's cannot be within it, so a
// long key costs nothing: no distance is computed for it.
func Closest(key string, names []string) string {
	best, bestDist := "", maxSuggestDistance+1
	lower := ""
	for _, n := range names {
		if len(key) > utf8.UTFMax*(len(n)+maxSuggestDistance) {
			continue // more runes than the name has, and two more, whatever they are
		}
		if lower == "" {
			lower = strings.ToLower(key)
		}
		if dist := editDistance(lower, n, bestDist-1); dist < bestDist {
			best, bestDist = n, dist
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b: the number of inserted, deleted
// or replaced characters and swapped neighbours that turn a into b. A distance over limit is reported as
// limit+1, as soon as the lengths show it or a whole row of the table is over it. It keeps three rows of
// the table, not all of it.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	// prev2, prev and cur are rows i-2, i-1 and i: cur[j] is the distance between ra[:i] and rb[:j].
	prev2, prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(rb)], limit+1)
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
		return "an array of " + valuesOf(t.Elem())
	case reflect.Map:
		return "an object of " + valuesOf(t.Elem())
	case reflect.Pointer:
		return expected(t.Elem())
	default:
		return "an object"
	}
}

// valuesOf names values of type t in the plural, for "an array of ..."
// messages: a type's name, not a count (textfmt.Plural counts).
func valuesOf(t reflect.Type) string {
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
	if len(key) > echo.BytesMax {
		// A path is shown in messages; a key megabytes long is shown cut.
		return path + "[" + echo.Quote(key) + "]"
	}
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

// parentPath strips the last key or index from a JSON path made by joinPath.
func parentPath(p string) string {
	switch {
	case strings.HasSuffix(p, `"]`):
		if i := strings.LastIndex(p, `["`); i >= 0 {
			return p[:i]
		}
	case strings.HasSuffix(p, "]"):
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// normPath drops the indices from a JSON path, so that nodes[1].disk becomes nodes[].disk.
func normPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		b.WriteByte(p[i])
		if p[i] != '[' {
			continue
		}
		j := i + 1
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
		}
		if j > i+1 && j < len(p) && p[j] == ']' {
			i = j - 1
		}
	}
	return b.String()
}
