package faults

import (
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/wire"
)

// Encode writes the fault for a snapshot file: every field.
func (f Fault) Encode(w *wire.Writer) {
	w.Int(int64(f.At))
	w.String(f.Kind)
	w.String(f.Node)
	w.String(f.Site)
	w.Int(int64(f.Until))
	w.Int(f.Op)
	w.String(f.Path)
	w.Int(f.Offset)
	w.Int(f.Target)
	w.Int(int64(f.Delta))
	w.Int(f.Bytes)
	w.Uint(uint64(len(f.Groups)))
	for _, g := range f.Groups {
		w.Strings(g)
	}
	w.Strings(f.Side)
	w.String(f.From)
	w.String(f.To)
	w.String(f.Dir)
	w.String(f.Mode)
	w.Int(int64(f.Delay))
	w.Float(f.Factor)
}

// DecodeFault reads a fault that Encode wrote.
func DecodeFault(r *wire.Reader) Fault {
	f := Fault{At: Dur(r.Int()), Kind: r.String(wire.StringMax), Node: r.String(wire.StringMax), Site: r.String(wire.StringMax)}
	f.Until, f.Op = Dur(r.Int()), r.Int()
	f.Path, f.Offset, f.Target = r.String(wire.StringMax), r.Int(), r.Int()
	f.Delta, f.Bytes = Dur(r.Int()), r.Int()
	if k := r.Len(wire.ListMax); k > 0 {
		f.Groups = make([][]string, k)
		for i := range f.Groups {
			f.Groups[i] = r.Strings(wire.ListMax, wire.StringMax)
		}
	}
	f.Side = r.Strings(wire.ListMax, wire.StringMax)
	f.From, f.To, f.Dir, f.Mode = r.String(wire.StringMax), r.String(wire.StringMax), r.String(wire.StringMax), r.String(wire.StringMax)
	f.Delay, f.Factor = Dur(r.Int()), r.Float()
	return f
}

// EncodeList writes a list of faults, telling a nil list from an empty one:
// a run replays a schedule when its list of faults is not nil, even empty.
func EncodeList(w *wire.Writer, fs []Fault) {
	w.Bool(fs != nil)
	w.Uint(uint64(len(fs)))
	for _, f := range fs {
		f.Encode(w)
	}
}

// DecodeList reads a list that EncodeList wrote.
func DecodeList(r *wire.Reader) []Fault {
	present := r.Bool()
	k := r.Len(wire.ListMax)
	if !present {
		if k > 0 {
			r.Failf("%d faults in a list that is none", k)
		}
		return nil
	}
	fs := make([]Fault, k)
	for i := range fs {
		fs[i] = DecodeFault(r)
	}
	return fs
}

// Encode writes the planner's state for a snapshot file: where each
// generator's stream stands, what it drew ahead and its next fault, or the
// list being replayed and how far.
func (pl *Planner) Encode(w *wire.Writer) {
	w.Uint(uint64(len(pl.Gens)))
	for _, g := range pl.Gens {
		w.Uint(uint64(g.Kind))
		w.String(g.Node)
		w.Word(g.S.State())
		w.Int(g.T)
		EncodeList(w, g.Ahead)
		w.Bool(g.Done)
	}
	for _, h := range pl.heads {
		h.f.Encode(w)
		w.Bool(h.ok)
	}
	EncodeList(w, pl.list)
	w.Int(int64(pl.next))
}

// DecodePlanner reads a planner that Encode wrote, checking that each
// generator names a kind of this build's registry: a planner draws with
// its kind's code.
func DecodePlanner(r *wire.Reader) *Planner {
	pl := &Planner{}
	if k := r.Len(wire.ListMax); k > 0 {
		pl.Gens = make([]Gen, k)
		for i := range pl.Gens {
			g := Gen{Kind: r.Index(len(registry)), Node: r.String(wire.StringMax)}
			g.S = *rng.FromState(r.Word())
			g.T, g.Ahead, g.Done = r.Int(), DecodeList(r), r.Bool()
			pl.Gens[i] = g
		}
		pl.heads = make([]head, k)
		for i := range pl.heads {
			pl.heads[i] = head{f: DecodeFault(r), ok: r.Bool()}
		}
	}
	pl.list = DecodeList(r)
	pl.next = int(r.IntIn(0, int64(len(pl.list))))
	if r.Err() != nil {
		return nil
	}
	return pl
}
