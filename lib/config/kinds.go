package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/sf-dst/sf/lib/faults"
)

// The fields of the fault kinds are not fields of the Faults struct: lib/faults declares each with its
// kind, its type and its default, and the loader decodes, checks, encodes and suggests them from there.
// A new kind adds no code here.

// kindField returns the kind field named key, if the faults object has one.
func kindField(key string) (faults.Field, bool) { return faults.LookupField(key) }

// kindType is the Go type a kind field decodes into, so that it is read, and its errors worded, like a
// field of a struct of the world file.
func kindType(ft faults.FieldType) reflect.Type {
	switch ft {
	case faults.Rate, faults.Prob, faults.Factor:
		return reflect.TypeFor[float64]()
	case faults.Duration:
		return durationType
	case faults.Range:
		return rangeType
	case faults.Choices:
		return reflect.TypeFor[[]string]()
	case faults.Switch:
		return reflect.TypeFor[bool]()
	}
	panic(fmt.Sprintf("config: kind field of unknown type %d", ft))
}

// decodeKindField decodes jv, the value of the kind field fd at path, into f.Kinds.
func (d *decoder) decodeKindField(path string, jv *jvalue, fd faults.Field, f *Faults) error {
	v := reflect.New(kindType(fd.Type)).Elem()
	if err := d.decodeValue(path, jv, v); err != nil {
		return err
	}
	if f.Kinds == nil {
		f.Kinds = faults.Values{}
	}
	switch x := v.Interface().(type) {
	case Duration:
		f.Kinds[fd.Name] = int64(x)
	case Range:
		f.Kinds[fd.Name] = [2]int64{int64(x[0]), int64(x[1])}
	default:
		f.Kinds[fd.Name] = x
	}
	return nil
}

// encodeKindField is the value of a kind field as the world file writes it.
func encodeKindField(fd faults.Field, v faults.Values) any {
	switch fd.Type {
	case faults.Duration:
		return Duration(v.Duration(fd.Name))
	case faults.Range:
		r := v.Range(fd.Name)
		return Range{Duration(r[0]), Duration(r[1])}
	case faults.Choices:
		return v.Choices(fd.Name)
	case faults.Switch:
		return v.Bool(fd.Name)
	}
	return v.Float(fd.Name)
}

// MarshalJSON writes the faults object: the fields of the struct, then every kind's fields in the
// registry's order.
func (f Faults) MarshalJSON() ([]byte, error) {
	type plain Faults // the struct's own fields, without this method
	b, err := json.Marshal(plain(f))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Write(b[:len(b)-1]) // up to the closing brace
	for _, fd := range faults.Fields() {
		x, err := json.Marshal(encodeKindField(fd, f.Kinds))
		if err != nil {
			return nil, err
		}
		out.WriteString("," + strconv.Quote(fd.Name) + ":")
		out.Write(x)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// checkKinds checks the value of every kind field, in the registry's order: a rate is not negative, a
// probability is from 0 to 1, a factor at least 1, a duration not negative, and a list of choices names
// at least one known choice, none twice. Ranges were checked as they were read.
func checkKinds(d *decoder, p string, v faults.Values) error {
	for _, fd := range faults.Fields() {
		fp := joinPath(p, fd.Name)
		x := v.Float(fd.Name)
		switch fd.Type {
		case faults.Rate:
			if x < 0 {
				return d.errorf(fp, "must not be negative, got %v", x)
			}
		case faults.Prob:
			if x < 0 || x > 1 {
				return d.errorf(fp, "must be between 0 and 1, got %v", x)
			}
		case faults.Factor:
			if x < 1 {
				return d.errorf(fp, "must be at least 1, got %v", x)
			}
		case faults.Duration:
			if n := v.Duration(fd.Name); n < 0 {
				return d.errorf(fp, "must not be negative, got %s", Duration(n))
			}
		case faults.Choices:
			if err := checkChoices(d, fp, v.Choices(fd.Name), fd.Choices, fd.Noun); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkKindsInWorld checks what the kind fields need of the rest of the world: the programs a choice
// needs (a majority partition needs three), and a top-level switch a field needs (mmap_early_writeback
// needs compat_overlay). Choices that a preset chose are cut to those that fit instead, so that a
// preset works on any world. fp is the path of the faults object.
func (w *World) checkKindsInWorld(d *decoder, fp string) error {
	// A choice's programs are those its faults may strike (partitions are
	// drawn over the programs that take network faults): counting the
	// others would pass a world whose partitions then have an empty group.
	count := 0
	for _, n := range w.AllNodes() {
		if _, network := w.FaultsFor(n); network {
			count++
		}
	}
	for _, fd := range faults.Fields() {
		p := joinPath(fp, fd.Name)
		if len(fd.ChoiceNodes) > 0 {
			got := w.Faults.Kinds.Choices(fd.Name)
			if d.sourceOf(p).preset != "" {
				kept := []string{}
				for _, c := range got {
					if count >= fd.ChoiceNodes[c] {
						kept = append(kept, c)
					}
				}
				w.Faults.Kinds[fd.Name] = kept
				continue
			}
			for i, c := range got {
				if need := fd.ChoiceNodes[c]; count < need {
					return d.errorf(fmt.Sprintf("%s[%d]", p, i), "%s %s needs at least %d programs that take network faults, the world has %d (workloads count; the finally check and programs with \"faults\": false do not)",
						fd.Noun, c, need, count)
				}
			}
		}
		if fd.Needs != "" && w.Faults.Kinds.Float(fd.Name) > 0 && !w.switchOn(fd.Needs) {
			return d.errorf(p, "needs %s: %s", fd.Needs, fd.Why)
		}
	}
	return nil
}

// switchOn reports whether the world's top-level boolean field named name is on.
func (w *World) switchOn(name string) bool {
	v := reflect.ValueOf(w).Elem()
	for _, f := range jsonFields(worldType) {
		if f.name == name {
			return v.Field(f.index).Bool()
		}
	}
	panic("config: a kind field needs " + name + ", which is no field of the world")
}
