package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// jvalue is a JSON value held as a tree. Objects keep their members in the order of the text, and every
// value remembers its source, so that a world merged from several files, a profile and -set overrides
// still reports each error against the text where the user wrote the value.
type jvalue struct {
	kind    byte      // '{', '[', '"', 't', 'f', 'n', or '0' for a number
	str     string    // a string's value, or a number's literal text
	members []member  // an object's members, in order, each key once
	elems   []*jvalue // an array's elements
	src     *source
	// shorthand marks the string of "faults": "name", which stands for {"preset": "name"}.
	shorthand bool
}

// member is one key and value of a JSON object.
type member struct {
	key   string
	value *jvalue
}

// source says where a value was written: which file or -set argument, how its paths are shown, and what
// its relative paths are relative to.
type source struct {
	// name starts every message about a value from this source: the file as the user named it, or
	// "-set path=value".
	name string
	// dir is the absolute directory that relative paths in the values are resolved against.
	dir string
	// prefix is where the world's root sits in the file: "" for a world file, "profiles.ci" for the
	// values of profile ci.
	prefix string
	// set is true for a -set override; its messages leave the path out when it is the override's own.
	set bool
	// at is the world path a -set override replaces.
	at string
	// preset names the fault preset that set the value; place is then where the preset was chosen.
	preset string
	place  *place
}

// place is a location to name in a message: a file (or -set argument) and a JSON path in it.
type place struct {
	name, path string
}

// locate turns a path in the merged world into the place where the user wrote the value.
func (s *source) locate(p string) place {
	switch {
	case s.preset != "":
		return *s.place
	case s.set && p == s.at:
		return place{name: s.name}
	case s.set:
		return place{name: s.name, path: p}
	}
	return place{name: s.name, path: concatPath(s.prefix, p)}
}

// concatPath appends the path p to the path prefix.
func concatPath(prefix, p string) string {
	switch {
	case prefix == "":
		return p
	case p == "":
		return prefix
	case strings.HasPrefix(p, "["):
		return prefix + p
	}
	return prefix + "." + p
}

func (s *source) errorf(p, format string, args ...any) error {
	pl := s.locate(p)
	return &pathError{file: pl.name, path: pl.path, msg: fmt.Sprintf(format, args...)}
}

// parseTree reads syntactically valid JSON into a tree whose values all come from src. A key repeated in
// one object is an error. at is the JSON path of the value, for messages.
func parseTree(data []byte, src *source, at string) (*jvalue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return readValue(dec, src, at)
}

func readValue(dec *json.Decoder, src *source, path string) (*jvalue, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			v := &jvalue{kind: '{', src: src}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				mp := joinPath(path, key)
				if v.index(key) >= 0 {
					return nil, src.errorf(mp, "duplicate key")
				}
				e, err := readValue(dec, src, mp)
				if err != nil {
					return nil, err
				}
				v.members = append(v.members, member{key: key, value: e})
			}
			_, err := dec.Token() // '}'
			return v, err
		}
		v := &jvalue{kind: '[', src: src}
		for dec.More() {
			e, err := readValue(dec, src, fmt.Sprintf("%s[%d]", path, len(v.elems)))
			if err != nil {
				return nil, err
			}
			v.elems = append(v.elems, e)
		}
		_, err := dec.Token() // ']'
		return v, err
	case string:
		return &jvalue{kind: '"', str: t, src: src}, nil
	case json.Number:
		return &jvalue{kind: '0', str: t.String(), src: src}, nil
	case bool:
		if t {
			return &jvalue{kind: 't', src: src}, nil
		}
		return &jvalue{kind: 'f', src: src}, nil
	default:
		return &jvalue{kind: 'n', src: src}, nil
	}
}

// index returns the position of the member key in an object, or -1.
func (v *jvalue) index(key string) int {
	return slices.IndexFunc(v.members, func(m member) bool { return m.key == key })
}

// get returns the value of the member key of an object, or nil.
func (v *jvalue) get(key string) *jvalue {
	if i := v.index(key); i >= 0 {
		return v.members[i].value
	}
	return nil
}

// put sets the member key of an object, in place if it exists and at the end otherwise.
func (v *jvalue) put(key string, e *jvalue) {
	if i := v.index(key); i >= 0 {
		v.members[i].value = e
		return
	}
	v.members = append(v.members, member{key: key, value: e})
}

// without returns a shallow copy of an object without the member key.
func (v *jvalue) without(key string) *jvalue {
	c := *v
	c.members = slices.DeleteFunc(slices.Clone(v.members), func(m member) bool { return m.key == key })
	return &c
}

// merge lays over on top of base: objects merge member by member, recursively, and anything else in
// over replaces what base has. Members new in over come after base's, in over's order. Neither input
// is changed.
func merge(base, over *jvalue) *jvalue {
	if base == nil || base.kind != '{' || over.kind != '{' {
		return over
	}
	out := &jvalue{kind: '{', src: over.src, members: slices.Clone(base.members)}
	for _, m := range over.members {
		if i := out.index(m.key); i >= 0 {
			out.members[i].value = merge(out.members[i].value, m.value)
		} else {
			out.members = append(out.members, m)
		}
	}
	return out
}

// resource returns a deep copy of v with every source replaced by f of it.
func resource(v *jvalue, f func(*source) *source) *jvalue {
	c := *v
	c.src = f(v.src)
	if v.members != nil {
		c.members = make([]member, len(v.members))
		for i, m := range v.members {
			c.members[i] = member{key: m.key, value: resource(m.value, f)}
		}
	}
	if v.elems != nil {
		c.elems = make([]*jvalue, len(v.elems))
		for i, e := range v.elems {
			c.elems[i] = resource(e, f)
		}
	}
	return &c
}

// mergeWorld lays the world tree over on top of base like merge. A preset shorthand ("faults": "name")
// is a string, so in over it replaces the faults below it; in base, under a faults object, it counts as
// {"preset": "name"}, so that the object's fields merge with the preset.
func mergeWorld(base, over *jvalue) *jvalue {
	if of := over.get("faults"); of != nil && of.kind == '{' {
		base = expandPresetShorthand(base)
	}
	return merge(base, over)
}

// expandPresetShorthand turns "faults": "name" at the root of a world tree into "faults": {"preset":
// "name"}. It returns root itself when there is nothing to expand.
func expandPresetShorthand(root *jvalue) *jvalue {
	f := root.get("faults")
	if f == nil || f.kind != '"' {
		return root
	}
	c := *root
	c.members = slices.Clone(root.members)
	c.put("faults", presetObject(f))
	return &c
}

// presetObject returns {"preset": s} for the JSON string s of the shorthand "faults": s.
func presetObject(s *jvalue) *jvalue {
	p := *s
	p.shorthand = true
	return &jvalue{kind: '{', src: s.src, members: []member{{key: "preset", value: &p}}}
}
