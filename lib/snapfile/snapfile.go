// Package snapfile is the file sf-run -snapshot writes and sf-run -from
// reads: a world forked at a scheduler step (engine.Fork), with what binds
// it to the run it came from, so that it is only ever continued by the same
// sf, the same world and the same modules.
//
// A file is the magic line, a header and the fork's encoding (lib/wire,
// core.Fork.Encode) compressed with zstd. The header is not compressed and
// carries a CRC of its own, so that a snapshot of another world or build is
// refused, naming the difference, before anything is decompressed, and a
// header damaged on disk reads as corrupt rather than as another world. The
// payload's size is in the header and bounded (BytesMax); zstd's frame
// checksum catches damage to the payload. Every error of a file that is not
// such an encoding wraps wire.ErrCorrupt.
package snapfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime/debug"

	"github.com/klauspost/compress/zstd"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/wire"
)

// Magic starts every snapshot file.
const Magic = "sf-snapshot\n"

// Format is the version of the encoding. A file of another format is
// refused as written by another sf. Format 2: a mapping holds its shadow's
// bytes, kept by the host, instead of the guest address of a copy. Format
// 3: a sparse file's pages past the dense list are written too. Format 4: a
// file removed while closed says that its bytes no longer count in the
// disk's usage.
const Format = 4

const (
	// HeaderBytesMax bounds the header.
	HeaderBytesMax = 1 << 20
	// BytesMax bounds the decompressed fork: sixteen guests at the engine's
	// limit of 1 GiB of memory each would not fit, a world that size does
	// not fork in a sensible time anyway.
	BytesMax = 8 << 30
	// windowMax bounds the window a zstd frame may ask the decoder for.
	windowMax = 128 << 20
)

// Module is the module a node runs, or upgrades to, by its SHA-256.
type Module struct {
	Node    string
	SHA256  string
	Upgrade string // the module of upgrade_to, or ""
}

// Header is what binds a snapshot to the run it was taken from.
type Header struct {
	// Version is the sf that wrote it (Version).
	Version string
	// Config, Profile and Set are the world as the user named it, for the
	// message that refuses another world; WorldKey is its content's.
	Config   string
	Profile  string
	Set      []string
	WorldKey string
	Modules  []Module
	// Seed is the run's seed; Step and AtNs are where it was forked, and
	// StopAtNs what -stop-at asked.
	Seed     uint64
	Step     uint64
	AtNs     int64
	StopAtNs int64
	// Bytes is the size of the fork's encoding, decompressed.
	Bytes uint64
}

// Version is this build's version for a snapshot: sf's release and, when the
// build records it, the VCS revision it was built from ("+dirty" when the
// tree had changes), since the encoding follows the engine's state.
func Version(release string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return release
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return release
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return release + " (" + rev + ")"
}

func (h *Header) encode(w *wire.Writer) {
	w.Uint(Format)
	w.String(h.Version)
	w.String(h.Config)
	w.String(h.Profile)
	w.Strings(h.Set)
	w.String(h.WorldKey)
	w.Uint(uint64(len(h.Modules)))
	for _, m := range h.Modules {
		w.String(m.Node)
		w.String(m.SHA256)
		w.String(m.Upgrade)
	}
	w.Word(h.Seed)
	w.Uint(h.Step)
	w.Int(h.AtNs)
	w.Int(h.StopAtNs)
	w.Uint(h.Bytes)
}

// FormatError is a file of another format: written by another sf.
type FormatError struct{ Format uint64 }

func (e *FormatError) Error() string {
	return fmt.Sprintf("it is in snapshot format %d, this sf reads format %d: it was written by another sf version", e.Format, Format)
}

func decodeHeader(b []byte) (*Header, error) {
	r := wire.NewReader(b)
	if f := r.Uint(); r.Err() == nil && f != Format {
		return nil, &FormatError{f}
	}
	h := &Header{Version: r.String(wire.StringMax), Config: r.String(wire.StringMax), Profile: r.String(wire.StringMax)}
	h.Set = r.Strings(1<<16, wire.StringMax)
	h.WorldKey = r.String(wire.StringMax)
	h.Modules = make([]Module, r.Len(1<<16))
	for i := range h.Modules {
		h.Modules[i] = Module{Node: r.String(wire.StringMax), SHA256: r.String(wire.StringMax), Upgrade: r.String(wire.StringMax)}
	}
	h.Seed, h.Step, h.AtNs, h.StopAtNs = r.Word(), r.Uint(), r.Int(), r.Int()
	h.Bytes = r.UintIn(BytesMax)
	if err := r.Done(); err != nil {
		return nil, err
	}
	return h, nil
}

// Encode returns the whole file of a fork's encoding payload under h, whose
// Bytes it sets.
func Encode(h Header, payload []byte) ([]byte, error) {
	if len(payload) > BytesMax {
		return nil, fmt.Errorf("the fork's encoding is %d bytes, more than a snapshot holds (%d)", len(payload), BytesMax)
	}
	h.Bytes = uint64(len(payload))
	hw := wire.NewWriter(256)
	h.encode(hw)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true), zstd.WithWindowSize(8<<20))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	return enc.EncodeAll(payload, frameHeader(hw.Data())), nil
}

// frameHeader is the start of a file whose header's encoding is head: the
// magic line, head's length, head and its CRC.
func frameHeader(head []byte) []byte {
	out := append([]byte(Magic), binary.AppendUvarint(nil, uint64(len(head)))...)
	out = append(out, head...)
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(head))
}

// Write writes a fork's encoding payload under h to path, atomically, and
// returns the file's size.
func Write(path string, h Header, payload []byte) (int, error) {
	b, err := Encode(h, payload)
	if err != nil {
		return 0, err
	}
	if err := atomicfile.WriteFile(path, b, 0o644); err != nil {
		return 0, err
	}
	return len(b), nil
}

// ReadHeader reads a snapshot file's header, and returns it with the rest of
// the file, still compressed (Payload decompresses it).
func ReadHeader(path string) (*Header, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > BytesMax {
		return nil, nil, fmt.Errorf("%w: %d bytes, more than a snapshot file holds (%d)", wire.ErrCorrupt, st.Size(), int64(BytesMax))
	}
	b, err := io.ReadAll(io.LimitReader(f, BytesMax+1))
	if err != nil {
		return nil, nil, err
	}
	return Parse(b)
}

// Parse reads the header of a snapshot file's content b, and returns it
// with the compressed rest.
func Parse(b []byte) (*Header, []byte, error) {
	if !bytes.HasPrefix(b, []byte(Magic)) {
		if len(b) < len(Magic) && bytes.HasPrefix([]byte(Magic), b) {
			return nil, nil, fmt.Errorf("%w: it ends inside its first line", wire.ErrCorrupt)
		}
		return nil, nil, fmt.Errorf("%w: it does not start as an sf snapshot does (%q)", wire.ErrCorrupt, Magic[:len(Magic)-1])
	}
	b = b[len(Magic):]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > HeaderBytesMax || uint64(len(b)-k) < n+4 {
		return nil, nil, fmt.Errorf("%w: its header is cut short or damaged", wire.ErrCorrupt)
	}
	head := b[k : k+int(n)]
	if crc := binary.LittleEndian.Uint32(b[k+int(n):]); crc != crc32.ChecksumIEEE(head) {
		return nil, nil, fmt.Errorf("%w: its header is damaged (its checksum does not match)", wire.ErrCorrupt)
	}
	h, err := decodeHeader(head)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	return h, b[k+int(n)+4:], nil
}

// Payload decompresses the fork's encoding that follows h.
func Payload(h *Header, compressed []byte) ([]byte, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(windowMax),
		zstd.WithDecoderMaxMemory(max(h.Bytes, 1)))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	out, err := dec.DecodeAll(compressed, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: its compressed state: %v", wire.ErrCorrupt, err)
	}
	if uint64(len(out)) != h.Bytes {
		return nil, fmt.Errorf("%w: its state is %d bytes, its header says %d", wire.ErrCorrupt, len(out), h.Bytes)
	}
	return out, nil
}

// MismatchError says how a snapshot differs from the sf, world or modules
// that were to continue it.
type MismatchError struct{ What string }

func (e *MismatchError) Error() string { return e.What }

// Check compares the snapshot's header h with cur, the header a snapshot
// of the same seed would have now, and returns a MismatchError naming the
// first difference: the sf version, the world, then each node's module.
func (h *Header) Check(cur Header) error {
	differ := func(format string, args ...any) error { return &MismatchError{fmt.Sprintf(format, args...)} }
	switch {
	case h.Version != cur.Version:
		return differ("it was written by sf %s, this is sf %s: continue it with the sf that wrote it", h.Version, cur.Version)
	case h.WorldKey != cur.WorldKey:
		return differ("it is a snapshot of another world: it was taken of %s, whose content (key %.12s) differs from that of %s now (key %.12s); give the world, -profile and -set it was taken with",
			h.worldName(), h.WorldKey, cur.worldName(), cur.WorldKey)
	case len(h.Modules) != len(cur.Modules):
		return differ("it holds the modules of %d nodes, the world has %d", len(h.Modules), len(cur.Modules))
	}
	for i, m := range h.Modules {
		c := cur.Modules[i]
		switch {
		case m.Node != c.Node:
			return differ("its node %d is %s, the world's is %s", i+1, m.Node, c.Node)
		case m.SHA256 != c.SHA256:
			return differ("node %s runs another module build: sha256 %.12s in the snapshot, %.12s now (its code or its build changed since)", m.Node, m.SHA256, c.SHA256)
		case m.Upgrade != c.Upgrade:
			return differ("node %s upgrades to another module build: sha256 %.12s in the snapshot, %.12s now", m.Node, m.Upgrade, c.Upgrade)
		}
	}
	return nil
}

// worldName is the world as the user named it, with its profile and -set.
func (h *Header) worldName() string {
	s := h.Config
	if h.Profile != "" {
		s += " -profile " + h.Profile
	}
	for _, o := range h.Set {
		s += " -set " + o
	}
	return s
}
