package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/sf-dst/sf/lib/echo"
)

// step is one step of a -set path: an object key, or an array index.
type step struct {
	key     string
	index   int
	isIndex bool
}

// parseSetPath splits a -set path such as nodes[0].args or faults.crash_per_sec into steps. Keys are
// separated by dots; an index is a decimal number in brackets after a key or another index.
func parseSetPath(p string) ([]step, string) {
	var steps []step
	for i := 0; i < len(p); {
		j := i
		for j < len(p) && p[j] != '.' && p[j] != '[' && p[j] != ']' {
			j++
		}
		if j == i {
			return nil, "invalid path: expected a field name at offset " + strconv.Itoa(i)
		}
		steps = append(steps, step{key: p[i:j]})
		for j < len(p) && p[j] == '[' {
			k := strings.IndexByte(p[j:], ']')
			if k < 0 {
				return nil, "invalid path: missing ]"
			}
			n, err := strconv.Atoi(p[j+1 : j+k])
			if err != nil || n < 0 || !isDigits(p[j+1:j+k]) {
				return nil, fmt.Sprintf("invalid path: index %s is not a number of 0 or more", echo.Quote(p[j+1:j+k]))
			}
			steps = append(steps, step{index: n, isIndex: true})
			j += k + 1
		}
		switch {
		case j == len(p):
			return steps, ""
		case p[j] != '.':
			return nil, fmt.Sprintf("invalid path: unexpected %q at offset %d", p[j], j)
		case j+1 == len(p):
			return nil, "invalid path: ends with a dot"
		}
		i = j + 1
	}
	return nil, "invalid path: empty"
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// renderPath writes steps as a JSON path in the form messages use.
func renderPath(steps []step) string {
	p := ""
	for _, s := range steps {
		if s.isIndex {
			p = fmt.Sprintf("%s[%d]", p, s.index)
		} else {
			p = joinPath(p, s.key)
		}
	}
	return p
}

// schemaType follows steps through the types of a world and returns the type of the value they reach,
// or a message saying why they reach none.
func schemaType(steps []step) (reflect.Type, string) {
	t := worldType
	for i, s := range steps {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		where := renderPath(steps[:i])
		switch {
		case t == durationType || t == rangeType ||
			t.Kind() != reflect.Struct && t.Kind() != reflect.Slice && t.Kind() != reflect.Map:
			return nil, fmt.Sprintf("%s has no fields or elements: set it whole", where)
		case t.Kind() == reflect.Slice && !s.isIndex:
			return nil, fmt.Sprintf("%s is an array: give an index, like %s[0]", where, where)
		case t.Kind() == reflect.Slice:
			t = t.Elem()
		case s.isIndex:
			return nil, fmt.Sprintf("%s is an object, not an array", where)
		case t.Kind() == reflect.Map:
			t = t.Elem()
		case t == worldType && s.key == "extends":
			return nil, "extends cannot be changed with -set"
		case t == worldType && s.key == "profiles":
			return nil, "profiles cannot be changed with -set; choose one with -profile"
		default:
			fields := jsonFields(t)
			k := slices.IndexFunc(fields, func(f jsonField) bool { return f.name == s.key })
			if k >= 0 {
				t = t.Field(fields[k].index).Type
				continue
			}
			if fd, ok := kindField(s.key); ok && t == faultsType {
				t = kindType(fd.Type)
				continue
			}
			msg := "unknown field"
			if i < len(steps)-1 {
				msg += " " + renderPath(steps[:i+1])
			}
			if hint := suggest(s.key, t); hint != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", hint)
			}
			return nil, msg
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, ""
}

// applySet applies one -set override, path=value, to a world's tree and returns the new tree; the input
// is not changed. The value is JSON if it parses as JSON and a string otherwise. For a field that holds
// a string or a duration it is always a string, so that env.PORT=8080 and duration=10s need no quotes;
// for faults, a string is a preset. Relative paths in the value are relative to dir, the world file's
// directory.
func applySet(root *jvalue, arg, dir string) (*jvalue, error) {
	name := "-set " + echo.Cut(arg)
	fail := func(format string, args ...any) error {
		return &pathError{file: name, msg: fmt.Sprintf(format, args...)}
	}
	p, text, ok := strings.Cut(arg, "=")
	if !ok || p == "" {
		return nil, fail("expected path=value, like faults.crash_per_sec=0.5")
	}
	steps, msg := parseSetPath(p)
	if msg != "" {
		return nil, fail("%s", msg)
	}
	leaf, msg := schemaType(steps)
	if msg != "" {
		return nil, fail("%s", msg)
	}
	src := &source{name: name, dir: dir, set: true, at: renderPath(steps)}
	var val *jvalue
	if json.Valid([]byte(text)) {
		v, err := parseTree([]byte(text), src, src.at)
		if err != nil {
			return nil, err
		}
		val = v
	}
	stringy := leaf.Kind() == reflect.String || leaf == durationType
	if val == nil || stringy && val.kind != '"' && val.kind != '[' && val.kind != '{' {
		val = &jvalue{kind: '"', str: text, src: src}
	}
	if leaf == faultsType && val.kind == '"' {
		val = presetObject(val)
	}
	if len(steps) > 1 && steps[0].key == "faults" {
		root = expandPresetShorthand(root) // faults.crash_per_sec=1 keeps a preset written as "faults": "name"
	}
	return setIn(root, steps, "", val, src)
}

// setIn returns a copy of v with the value at steps (below the path at) replaced by val. Objects
// missing on the way are created; an index must name an element that exists.
func setIn(v *jvalue, steps []step, at string, val *jvalue, src *source) (*jvalue, error) {
	if len(steps) == 0 {
		return val, nil
	}
	s := steps[0]
	if s.isIndex {
		n := 0
		if v != nil && v.kind == '[' {
			n = len(v.elems)
		}
		if s.index >= n {
			return nil, src.errorf(src.at, "index %d is out of range: %s has %s", s.index, at, count(n, "element"))
		}
		next := fmt.Sprintf("%s[%d]", at, s.index)
		e, err := setIn(v.elems[s.index], steps[1:], next, val, src)
		if err != nil {
			return nil, err
		}
		c := *v
		c.elems = slices.Clone(v.elems)
		c.elems[s.index] = e
		return &c, nil
	}
	c := jvalue{kind: '{', src: src}
	if v != nil && v.kind == '{' {
		c = *v
		c.members = slices.Clone(v.members)
	}
	e, err := setIn(c.get(s.key), steps[1:], joinPath(at, s.key), val, src)
	if err != nil {
		return nil, err
	}
	c.put(s.key, e)
	return &c, nil
}

// count writes n things, such as "1 element" or "2 elements".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
