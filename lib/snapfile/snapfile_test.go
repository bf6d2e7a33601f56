package snapfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/wire"
)

func testHeader() Header {
	return Header{Version: "0.1.0 (abc)", Config: "seedfall.json", Profile: "ci", Set: []string{"duration=5s"},
		WorldKey: strings.Repeat("ab", 32),
		Modules:  []Module{{Node: "server", SHA256: strings.Repeat("11", 32)}, {Node: "client", SHA256: strings.Repeat("22", 32), Upgrade: strings.Repeat("33", 32)}},
		Seed:     7, Step: 295, AtNs: 1_001_988_273, StopAtNs: 1_000_000_000}
}

// testPayload is shaped like a fork's encoding: some state, then a guest's
// memory, mostly zero.
func testPayload() []byte {
	p := make([]byte, 3<<20)
	for i := range 4096 {
		p[i] = byte(i * 7)
	}
	return p
}

// TestRoundTrip: a file written reads back to the same header, Bytes set,
// and the same payload, and is much smaller than its mostly zero payload.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.snap")
	h, payload := testHeader(), testPayload()
	n, err := Write(path, h, payload)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != int64(n) {
		t.Fatalf("Write said %d bytes; the file: %v %v", n, st, err)
	}
	if n > len(payload)/20 {
		t.Errorf("%d bytes for a payload of %d, mostly zero: not compressed", n, len(payload))
	}
	got, rest, err := ReadHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	h.Bytes = uint64(len(payload))
	if !reflect.DeepEqual(*got, h) {
		t.Errorf("header read back\n\t%+v\nwritten\n\t%+v", *got, h)
	}
	back, err := Payload(got, rest)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, payload) {
		t.Error("the payload read back differs")
	}
	if got.Check(h) != nil {
		t.Errorf("a header checked against itself: %v", got.Check(h))
	}
}

// TestCorrupt: a file cut short anywhere is an error that says it is
// corrupt; one with any byte changed is such an error or, where zstd's
// encoding has slack, the very payload written; never a panic nor another
// payload. A file of another format says so.
func TestCorrupt(t *testing.T) {
	payload := testPayload()
	b, err := Encode(testHeader(), payload)
	if err != nil {
		t.Fatal(err)
	}
	read := func(b []byte) error {
		h, rest, err := Parse(b)
		if err != nil {
			return err
		}
		p, err := Payload(h, rest)
		if err == nil && !bytes.Equal(p, payload) {
			t.Fatalf("a damaged file read as another payload")
		}
		return err
	}
	for n := 0; n < len(b); n += 1 + n/100 {
		if err := read(b[:n]); !errors.Is(err, wire.ErrCorrupt) {
			t.Fatalf("the first %d bytes of %d: error %v, want one that says it is corrupt", n, len(b), err)
		}
	}
	for i := 0; i < len(b); i += 1 + i/300 {
		c := bytes.Clone(b)
		c[i] ^= 0x5a
		if err := read(c); err != nil && !errors.Is(err, wire.ErrCorrupt) {
			t.Fatalf("byte %d of %d changed: error %v, want one that says it is corrupt", i, len(b), err)
		}
	}
	if err := read([]byte("not a snapshot at all\n")); err == nil || !strings.Contains(err.Error(), "does not start as an sf snapshot does") {
		t.Errorf("another file: %v", err)
	}

	// Format 2: the same header bytes but the first, under a checksum of
	// their own.
	hw := wire.NewWriter(0)
	h := testHeader()
	h.encode(hw)
	head := hw.Data()
	head[0] = Format + 1
	c := rebuild(t, head, b)
	var fe *FormatError
	if _, _, err := Parse(c); !errors.As(err, &fe) || !strings.Contains(err.Error(), "written by another sf version") {
		t.Errorf("a file of format %d: %v", Format+1, err)
	}
}

// rebuild is file b with its header replaced by head, its checksum made
// again.
func rebuild(t *testing.T, head, b []byte) []byte {
	t.Helper()
	_, rest, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return append(frameHeader(head), rest...)
}

// TestCheck: each difference between a snapshot and the sf, world and
// modules that would continue it is refused with a message that names it.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		change func(*Header)
		want   string
	}{
		{func(h *Header) { h.Version = "0.2.0" }, "it was written by sf 0.1.0 (abc), this is sf 0.2.0"},
		{func(h *Header) { h.WorldKey = strings.Repeat("cd", 32); h.Config = "other.json"; h.Set = nil },
			"it is a snapshot of another world: it was taken of seedfall.json -profile ci -set duration=5s, whose content (key abababababab) differs from that of other.json -profile ci now (key cdcdcdcdcdcd)"},
		{func(h *Header) { h.Modules = h.Modules[:1] }, "it holds the modules of 2 nodes, the world has 1"},
		{func(h *Header) { h.Modules = []Module{{Node: "srv"}, h.Modules[1]} }, "its node 1 is server, the world's is srv"},
		{func(h *Header) {
			h.Modules = []Module{{Node: "server", SHA256: strings.Repeat("44", 32)}, h.Modules[1]}
		},
			"node server runs another module build: sha256 111111111111 in the snapshot, 444444444444 now"},
		{func(h *Header) {
			h.Modules = []Module{h.Modules[0], {Node: "client", SHA256: strings.Repeat("22", 32)}}
		},
			"node client upgrades to another module build: sha256 333333333333 in the snapshot,  now"},
	} {
		snap, cur := testHeader(), testHeader()
		c.change(&cur)
		err := snap.Check(cur)
		var me *MismatchError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one with %q", err, c.want)
		}
	}
}

// TestReadHeaderNotRegular: a directory or a missing file is refused with
// the system's error, not read.
func TestReadHeaderNotRegular(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ReadHeader(dir); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	if _, _, err := ReadHeader(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
