package compressed

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
)

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestOpen(t *testing.T) {
	plain := []byte(strings.Repeat(`{"type":"invoke","f":"read"}`+"\n", 1000))
	tests := []struct {
		name string
		in   []byte
		want []byte
	}{
		{"plain", plain, plain},
		{"empty", nil, nil},
		{"shorter than a magic", []byte("{"), []byte("{")},
		{"zstd", EncodeZstd(plain), plain},
		{"zstd of nothing", EncodeZstd(nil), nil},
		{"two zstd frames", append(EncodeZstd(plain[:10]), EncodeZstd(plain[10:])...), plain},
		{"gzip", gz(t, plain), plain},
		{"two gzip members", append(gz(t, plain[:10]), gz(t, plain[10:])...), plain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Open(bytes.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("read %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
}

func TestDetect(t *testing.T) {
	for in, want := range map[string]Format{
		"\x28\xb5\x2f\xfd\x00": Zstd,
		"\x1f\x8b\x08":         Gzip,
		"\x28\xb5\x2f":         None, // cut short
		"\x1f":                 None,
		`{"type"`:              None,
	} {
		if got := Detect([]byte(in)); got != want {
			t.Errorf("Detect(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCorrupt(t *testing.T) {
	plain := []byte(strings.Repeat("history line\n", 500))
	z := EncodeZstd(plain)
	g := gz(t, plain)
	tests := []struct {
		name, prefix string
		in           []byte
	}{
		{"zstd cut short", "zstd: ", z[:len(z)/2]},
		{"gzip cut short", "gzip: ", g[:len(g)/2]},
		{"gzip bad checksum", "gzip: ", append(append([]byte{}, g[:len(g)-8]...), 0, 0, 0, 0, 0, 0, 0, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Open(bytes.NewReader(tt.in))
			if err == nil {
				_, err = io.ReadAll(r)
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.prefix) {
				t.Fatalf("err = %v, want one that starts %q", err, tt.prefix)
			}
		})
	}
}

// TestBomb reads about a megabyte that expands to a gigabyte through a
// limit, as every caller does: reading stops at the limit with the memory
// of the limit, not of the expansion. The gzip bomb is 1,024 members of a
// megabyte of zeros each, which a gzip reader reads as one stream: made from
// one compressed megabyte, it costs no gigabyte of compression to build
// (minutes under the race detector; issue 29).
func TestBomb(t *testing.T) {
	var member bytes.Buffer
	w := gzip.NewWriter(&member)
	w.Write(make([]byte, 1<<20))
	w.Close()
	gz := bytes.Repeat(member.Bytes(), 1<<10)
	bombs := map[string][]byte{"gzip": gz, "zstd": EncodeZstd(make([]byte, 64<<20))}
	for name, bomb := range bombs {
		t.Run(name, func(t *testing.T) {
			if len(bomb) > 2<<20 {
				t.Fatalf("the bomb is %d bytes, meant to be small", len(bomb))
			}
			r, err := Open(bytes.NewReader(bomb))
			if err != nil {
				t.Fatal(err)
			}
			const limit = 1 << 20
			got, err := io.ReadAll(io.LimitReader(r, limit+1))
			if err != nil || len(got) != limit+1 {
				t.Fatalf("read %d bytes, %v; want %d", len(got), err, limit+1)
			}
		})
	}
}
