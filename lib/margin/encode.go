package margin

import "github.com/sf-dst/sf/lib/wire"

// Encode writes the margin for a snapshot file, telling an integer margin
// from a float one of the same value.
func (v Value) Encode(w *wire.Writer) {
	w.Bool(v.float)
	w.Float(v.f)
	w.Bool(v.neg)
	w.Uint(v.mag)
}

// Decode reads a margin that Encode wrote.
func Decode(r *wire.Reader) Value {
	return Value{float: r.Bool(), f: r.Float(), neg: r.Bool(), mag: r.Uint()}
}
