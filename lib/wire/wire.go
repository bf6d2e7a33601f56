// Package wire is the binary encoding of a run's state in a snapshot file
// (lib/snapfile): varints, fixed words, floats by their bits, and byte
// strings with their length. Each package that holds a part of the state
// writes and reads its own types with it, next to them (lib/disk's FS,
// lib/simnet's Net, the faults planner, the history recorder, the engine
// core's run).
//
// A Reader is made for input that may be truncated or corrupt: every length
// it reads is bounded by the bytes left (an element takes at least one), so
// no length makes it allocate more than the input could fill; its first
// error sticks and every later read returns a zero value, so a decoder reads
// on and checks Err once. It never panics on any input.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Writer appends an encoding to a buffer.
type Writer struct {
	buf []byte
}

// NewWriter returns a Writer whose buffer starts with room for n bytes.
func NewWriter(n int) *Writer { return &Writer{buf: make([]byte, 0, n)} }

// Data is what was written so far. It is the Writer's own buffer.
func (w *Writer) Data() []byte { return w.buf }

// Len is how many bytes were written so far.
func (w *Writer) Len() int { return len(w.buf) }

// Uint writes v as a uvarint.
func (w *Writer) Uint(v uint64) { w.buf = binary.AppendUvarint(w.buf, v) }

// Int writes v as a zig-zag varint.
func (w *Writer) Int(v int64) { w.buf = binary.AppendVarint(w.buf, v) }

// Word writes v as 8 bytes, little-endian: for hashes and stream states,
// which a varint would make longer.
func (w *Writer) Word(v uint64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }

// Float writes f by its bits, so that it reads back exactly, NaNs and
// negative zero included.
func (w *Writer) Float(f float64) { w.Word(math.Float64bits(f)) }

// Bool writes b as one byte.
func (w *Writer) Bool(b bool) {
	if b {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

// Bytes writes b with its length.
func (w *Writer) Bytes(b []byte) {
	w.Uint(uint64(len(b)))
	w.buf = append(w.buf, b...)
}

// String writes s with its length.
func (w *Writer) String(s string) {
	w.Uint(uint64(len(s)))
	w.buf = append(w.buf, s...)
}

// Strings writes a list of strings.
func (w *Writer) Strings(ss []string) {
	w.Uint(uint64(len(ss)))
	for _, s := range ss {
		w.String(s)
	}
}

// Ints writes a list of int64s.
func (w *Writer) Ints(vs []int64) {
	w.Uint(uint64(len(vs)))
	for _, v := range vs {
		w.Int(v)
	}
}

// Reader reads an encoding, with bounds on everything it allocates.
type Reader struct {
	buf []byte
	off int
	err error
}

// NewReader returns a Reader of b. The byte strings it returns are copies,
// but for View's.
func NewReader(b []byte) *Reader { return &Reader{buf: b} }

// ErrCorrupt is what every error of a Reader wraps.
var ErrCorrupt = errors.New("corrupt")

// Err is the first error the Reader met, or nil.
func (r *Reader) Err() error { return r.err }

// Left is how many bytes are left to read.
func (r *Reader) Left() int { return len(r.buf) - r.off }

// Failf records an error, unless one was recorded already: a decoder calls
// it when a value it read makes no sense (an index out of range, an unknown
// kind). Its message says what, at which byte.
func (r *Reader) Failf(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w at byte %d: %s", ErrCorrupt, r.off, fmt.Sprintf(format, args...))
	}
}

// Done fails the Reader when bytes are left over: an encoding that goes on
// past its end is not one this version wrote.
func (r *Reader) Done() error {
	if r.err == nil && r.off != len(r.buf) {
		r.Failf("%d bytes left over after the end", len(r.buf)-r.off)
	}
	return r.err
}

func (r *Reader) short(what string) {
	r.Failf("it ends inside %s", what)
	r.off = len(r.buf)
}

// Uint reads a uvarint.
func (r *Reader) Uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.buf[r.off:])
	if n <= 0 {
		r.short("a number")
		return 0
	}
	r.off += n
	return v
}

// Int reads a zig-zag varint.
func (r *Reader) Int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.buf[r.off:])
	if n <= 0 {
		r.short("a number")
		return 0
	}
	r.off += n
	return v
}

// Word reads 8 bytes, little-endian.
func (r *Reader) Word() uint64 {
	if r.err != nil {
		return 0
	}
	if r.Left() < 8 {
		r.short("a word")
		return 0
	}
	v := binary.LittleEndian.Uint64(r.buf[r.off:])
	r.off += 8
	return v
}

// Float reads a float64 by its bits.
func (r *Reader) Float() float64 { return math.Float64frombits(r.Word()) }

// Bool reads one byte that must be 0 or 1.
func (r *Reader) Bool() bool {
	if r.err != nil {
		return false
	}
	if r.Left() < 1 {
		r.short("a flag")
		return false
	}
	b := r.buf[r.off]
	r.off++
	if b > 1 {
		r.Failf("a flag of %d, neither 0 nor 1", b)
		return false
	}
	return b == 1
}

// Len reads the length of a list whose elements take at least one byte
// each, and that holds at most max of them.
func (r *Reader) Len(max int) int {
	n := r.Uint()
	switch {
	case r.err != nil:
		return 0
	case n > uint64(r.Left()):
		r.Failf("a length of %d, more than the %d bytes left", n, r.Left())
		return 0
	case n > uint64(max):
		r.Failf("a length of %d, more than the most of %d", n, max)
		return 0
	}
	return int(n)
}

// IntIn reads a number that must lie in [lo, hi].
func (r *Reader) IntIn(lo, hi int64) int64 {
	v := r.Int()
	if v < lo || v > hi {
		r.Failf("%d, outside [%d, %d]", v, lo, hi)
		return 0
	}
	return v
}

// UintIn reads a number that must be at most hi.
func (r *Reader) UintIn(hi uint64) uint64 {
	v := r.Uint()
	if v > hi {
		r.Failf("%d, more than %d", v, hi)
		return 0
	}
	return v
}

// Index reads an index into a list of n elements.
func (r *Reader) Index(n int) int { return int(r.UintIn(uint64(max(n, 1) - 1))) }

// Ref reads a reference into a list of n elements, 0 being none and i+1
// element i; it returns -1 for none.
func (r *Reader) Ref(n int) int { return int(r.UintIn(uint64(n))) - 1 }

// View reads a byte string of at most max bytes and returns it in place:
// it shares the Reader's input, and holds no more than its own bytes.
func (r *Reader) View(max int) []byte {
	n := r.Len(max)
	if r.err != nil {
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// Bytes reads a byte string of at most max bytes, as a copy; nil when it is
// empty.
func (r *Reader) Bytes(max int) []byte {
	b := r.View(max)
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// String reads a string of at most max bytes.
func (r *Reader) String(max int) string { return string(r.View(max)) }

// Strings reads a list of at most n strings of at most max bytes each.
func (r *Reader) Strings(n, max int) []string {
	k := r.Len(n)
	if k == 0 {
		return nil
	}
	out := make([]string, k)
	for i := range out {
		out[i] = r.String(max)
	}
	return out
}

// Ints reads a list of at most n int64s.
func (r *Reader) Ints(n int) []int64 {
	k := r.Len(n)
	if k == 0 {
		return nil
	}
	out := make([]int64, k)
	for i := range out {
		out[i] = r.Int()
	}
	return out
}

// Bounds of what a decoder accepts, for values whose real bound is
// elsewhere (a path's length, a trace line's) or none at all: each is far
// above what a run makes and keeps a corrupt length from costing much.
const (
	// StringMax bounds names, paths, messages and trace lines.
	StringMax = 1 << 20
	// ListMax bounds the elements of a list (sockets, events, faults,
	// inodes, trace lines).
	ListMax = 1 << 26
	// BytesMax bounds a byte string with no bound of its own (a socket's
	// buffer, a pending write): the input's own length bounds it first.
	BytesMax = 1 << 40
)
