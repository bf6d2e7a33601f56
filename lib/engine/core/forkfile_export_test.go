package core

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"
)

// ForkDiff compares the states of two forks by value, deep, and names each
// place where they differ: a field an encoding forgot shows there. It
// leaves out what runs the guests and what only compares by identity
// (functions, the disks' free pages), and takes a nil slice or map for an
// empty one.
func ForkDiff(a, b *Fork) []string {
	d := &differ{seen: map[[2]uintptr]bool{}}
	d.diff(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), "fork")
	return d.found
}

// notState are fields that are no part of a run's state by value.
var notState = map[string]bool{"exec": true, "compiled": true, "pool": true, "now": true}

type differ struct {
	seen  map[[2]uintptr]bool
	found []string
}

func (d *differ) differs(path, format string, args ...any) {
	if len(d.found) < 20 {
		d.found = append(d.found, path+": "+fmt.Sprintf(format, args...))
	}
}

func (d *differ) diff(a, b reflect.Value, path string) {
	if a.IsValid() != b.IsValid() {
		d.differs(path, "one is missing")
		return
	}
	if !a.IsValid() {
		return
	}
	switch a.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				d.differs(path, "nil %v, the other nil %v", a.IsNil(), b.IsNil())
			}
			return
		}
		key := [2]uintptr{a.Pointer(), b.Pointer()}
		if d.seen[key] {
			return
		}
		d.seen[key] = true
		d.diff(a.Elem(), b.Elem(), path)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				d.differs(path, "nil %v, the other nil %v", a.IsNil(), b.IsNil())
			}
			return
		}
		if a.Elem().Type() != b.Elem().Type() {
			d.differs(path, "a %v, the other a %v", a.Elem().Type(), b.Elem().Type())
			return
		}
		d.diff(a.Elem(), b.Elem(), path)
	case reflect.Map:
		if a.Len() != b.Len() {
			d.differs(path, "%d entries, the other %d", a.Len(), b.Len())
			return
		}
		for _, k := range a.MapKeys() {
			d.diff(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", path, k))
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			d.differs(path, "%d elements, the other %d", a.Len(), b.Len())
			return
		}
		for i := range a.Len() {
			d.diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Struct:
		a, b = addressable(a), addressable(b)
		for i := range a.NumField() {
			name := a.Type().Field(i).Name
			if notState[name] {
				continue
			}
			d.diff(open(a.Field(i)), open(b.Field(i)), path+"."+name)
		}
	case reflect.Float32, reflect.Float64:
		if math.Float64bits(a.Float()) != math.Float64bits(b.Float()) {
			d.differs(path, "%v, the other %v", a.Float(), b.Float())
		}
	default:
		if a.Interface() != b.Interface() {
			d.differs(path, "%v, the other %v", a.Interface(), b.Interface())
		}
	}
}

// open makes an unexported field's value readable.
func open(v reflect.Value) reflect.Value {
	if v.CanInterface() || !v.CanAddr() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// addressable is v, or a copy of it that its unexported fields can be read
// from.
func addressable(v reflect.Value) reflect.Value {
	if v.CanAddr() {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}
