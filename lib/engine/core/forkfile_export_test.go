package core

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unsafe"
)

// ForkDiff compares the states of two forks by value, deep, and names each
// place where they differ: a field an encoding forgot shows there. It
// leaves out what runs the guests and what only compares by identity
// (functions, the disks' free pages), and takes a nil slice or map for an
// empty one.
func ForkDiff(a, b *Fork) []string {
	d := &differ{seen: map[[2]uintptr]bool{}}
	d.diff(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem())
	return d.found
}

// notState are fields that are no part of a run's state by value.
var notState = map[string]bool{"exec": true, "compiled": true, "pool": true, "now": true}

type differ struct {
	seen  map[[2]uintptr]bool
	found []string
	// path is where diff is, from the fork down, kept as steps and made a
	// string only for a difference: the states hold megabytes of memory and
	// file content, and a string per element made the fork tests spend
	// most of their time in fmt.
	path []step
}

// step is a field name, or else an element's index or a map's key.
type step struct {
	field string
	index int
	key   reflect.Value
}

func (d *differ) differs(format string, args ...any) {
	if len(d.found) >= 20 {
		return
	}
	var b strings.Builder
	b.WriteString("fork")
	for _, s := range d.path {
		switch {
		case s.field != "":
			b.WriteString("." + s.field)
		case s.key.IsValid():
			fmt.Fprintf(&b, "[%v]", s.key)
		default:
			fmt.Fprintf(&b, "[%d]", s.index)
		}
	}
	d.found = append(d.found, b.String()+": "+fmt.Sprintf(format, args...))
}

// under runs diff one step further down.
func (d *differ) under(s step, a, b reflect.Value) {
	d.path = append(d.path, s)
	d.diff(a, b)
	d.path = d.path[:len(d.path)-1]
}

func (d *differ) diff(a, b reflect.Value) {
	if a.IsValid() != b.IsValid() {
		d.differs("one is missing")
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
				d.differs("nil %v, the other nil %v", a.IsNil(), b.IsNil())
			}
			return
		}
		key := [2]uintptr{a.Pointer(), b.Pointer()}
		if d.seen[key] {
			return
		}
		d.seen[key] = true
		d.diff(a.Elem(), b.Elem())
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				d.differs("nil %v, the other nil %v", a.IsNil(), b.IsNil())
			}
			return
		}
		if a.Elem().Type() != b.Elem().Type() {
			d.differs("a %v, the other a %v", a.Elem().Type(), b.Elem().Type())
			return
		}
		d.diff(a.Elem(), b.Elem())
	case reflect.Map:
		if a.Len() != b.Len() {
			d.differs("%d entries, the other %d", a.Len(), b.Len())
			return
		}
		for _, k := range a.MapKeys() {
			d.under(step{key: k}, a.MapIndex(k), b.MapIndex(k))
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			d.differs("%d elements, the other %d", a.Len(), b.Len())
			return
		}
		if a.Type().Elem().Kind() == reflect.Uint8 {
			ab, bb := byteView(a), byteView(b)
			if bytes.Equal(ab, bb) {
				return
			}
			i := 0
			for ab[i] == bb[i] {
				i++
			}
			d.under(step{index: i}, a.Index(i), b.Index(i))
			return
		}
		for i := range a.Len() {
			d.under(step{index: i}, a.Index(i), b.Index(i))
		}
	case reflect.Struct:
		a, b = addressable(a), addressable(b)
		for i := range a.NumField() {
			name := a.Type().Field(i).Name
			if notState[name] {
				continue
			}
			d.under(step{field: name}, open(a.Field(i)), open(b.Field(i)))
		}
	case reflect.Float32, reflect.Float64:
		if math.Float64bits(a.Float()) != math.Float64bits(b.Float()) {
			d.differs("%v, the other %v", a.Float(), b.Float())
		}
	default:
		if a.Interface() != b.Interface() {
			d.differs("%v, the other %v", a.Interface(), b.Interface())
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

// byteView returns the bytes of a byte slice or array, copied when the
// array cannot be addressed.
func byteView(v reflect.Value) []byte {
	if v.Kind() == reflect.Slice || v.CanAddr() {
		return open(v).Bytes()
	}
	out := make([]byte, v.Len())
	reflect.Copy(reflect.ValueOf(out), v)
	return out
}
