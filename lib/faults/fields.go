package faults

import "slices"

// FieldType is what a world-file field of a fault kind holds, and so how
// the world file writes it, how it is checked, and the Go type it has in
// Values.
type FieldType uint8

// The types of a kind's fields.
const (
	// Rate is events per second of virtual time, not negative: a float64.
	Rate FieldType = iota + 1
	// Prob is a probability per event, from 0 to 1: a float64.
	Prob
	// Factor is a number of at least 1: a float64.
	Factor
	// Duration is a length of virtual time, not negative: int64
	// nanoseconds, written as a Go duration string.
	Duration
	// Range is two durations to draw from, the first not larger than the
	// second: [2]int64 nanoseconds, written as two duration strings.
	Range
	// Choices is a list of names from the field's Choices, at least one and
	// none twice: []string.
	Choices
	// Switch is on or off: a bool.
	Switch
)

// Field is one world-file field of a fault kind, under the world's faults
// object.
type Field struct {
	Name string
	Type FieldType
	// Default is the field's value when no layer of the world sets it, of
	// the Go type Type gives; nil is that type's zero.
	Default any
	// Choices, for a Choices field, are the names it may list, in the order
	// messages give them; Noun names one of them ("topology").
	Choices []string
	Noun    string
	// ChoiceNodes are the choices that need a number of programs in the
	// world, workloads included, to be taken at all.
	ChoiceNodes map[string]int
	// Needs, when set, is a top-level switch of the world file that the
	// field needs when it is above 0, and Why says why.
	Needs, Why string
}

// Fields lists every field of every kind, each once, in the order the
// registry declares them.
func Fields() []Field {
	var out []Field
	for _, k := range registry {
		out = append(out, k.Fields...)
	}
	return out
}

// LookupField returns the kind field named name.
func LookupField(name string) (Field, bool) {
	for _, k := range registry {
		for _, f := range k.Fields {
			if f.Name == name {
				return f, true
			}
		}
	}
	return Field{}, false
}

// Values are the settings of the kinds' fields, by field name, each of the
// Go type its FieldType gives. The world file's loader fills in every field
// (lib/config); a field that is missing reads as its type's zero, so that a
// run built in code sets only what it needs.
type Values map[string]any

// Float is a Rate, Prob or Factor field's value; a Switch reads as 1 when
// on.
func (v Values) Float(name string) float64 {
	switch x := v[name].(type) {
	case float64:
		return x
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

// Duration is a Duration field's value, in nanoseconds.
func (v Values) Duration(name string) int64 { x, _ := v[name].(int64); return x }

// Range is a Range field's value, in nanoseconds.
func (v Values) Range(name string) [2]int64 { x, _ := v[name].([2]int64); return x }

// Choices is a Choices field's value.
func (v Values) Choices(name string) []string { x, _ := v[name].([]string); return x }

// Bool is a Switch field's value.
func (v Values) Bool(name string) bool { x, _ := v[name].(bool); return x }

// Rate is the named kind's rate or probability: its first field's value, 1
// for a kind switched on by a Switch, 0 for a kind without fields.
func (v Values) Rate(kind string) float64 {
	if f := RateField(kind); f != "" {
		return v.Float(f)
	}
	return 0
}

// Clone returns a copy of v that shares nothing that changes.
func (v Values) Clone() Values {
	if v == nil {
		return nil
	}
	c := make(Values, len(v))
	for k, x := range v {
		if s, ok := x.([]string); ok {
			x = slices.Clone(s)
		}
		c[k] = x
	}
	return c
}

// Defaults returns every kind field at its default.
func Defaults() Values {
	v := Values{}
	for _, f := range Fields() {
		v[f.Name] = f.zero()
	}
	return v
}

// zero is the field's default, of its Go type even when Default is nil.
func (f Field) zero() any {
	if f.Default != nil {
		if s, ok := f.Default.([]string); ok {
			return slices.Clone(s)
		}
		return f.Default
	}
	switch f.Type {
	case Rate, Prob, Factor:
		return 0.0
	case Duration:
		return int64(0)
	case Range:
		return [2]int64{}
	case Choices:
		return []string(nil)
	}
	return false
}
