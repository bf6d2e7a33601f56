package history

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/compressed"
)

func gzipBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadCompressed: a history compressed with zstd or gzip reads as the
// plain one, in either format, whatever the file is called.
func TestReadCompressed(t *testing.T) {
	histories := map[string]string{
		"jsonl": `{"type":"invoke","process":0,"f":"put","key":"x","value":1,"time":1,"id":0}` + "\n" +
			`{"type":"ok","process":0,"f":"put","key":"x","value":1,"time":2,"id":0}` + "\n",
		"edn": "{:type :invoke, :f :read, :value nil, :process 0, :time 1}\n" +
			"{:type :ok, :f :read, :value 3, :process 0, :time 2}\n",
	}
	dir := t.TempDir()
	for format, plain := range histories {
		want, err := Parse([]byte(plain), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{
			"h." + format + ".zst": compressed.EncodeZstd([]byte(plain)),
			"h." + format + ".gz":  gzipBytes(t, []byte(plain)),
			"misnamed." + format:   compressed.EncodeZstd([]byte(plain)),
		}
		for name, data := range files {
			t.Run(name, func(t *testing.T) {
				path := filepath.Join(dir, name)
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := ReadFile(path, FormatAuto)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) || len(got) != 1 || got[0].Output == nil && want[0].Output != nil {
					t.Fatalf("read %+v, want %+v", got, want)
				}
				got, err = Read(bytes.NewReader(data), ReadOptions{})
				if err != nil || len(got) != 1 {
					t.Fatalf("from a reader: %+v, %v", got, err)
				}
			})
		}
	}
}

// TestReadCompressedBomb: the limits apply to the decompressed bytes, so a
// small file that expands far past them is refused at the limit.
func TestReadCompressedBomb(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine: nothing for -race to watch; the run without -race does it")
	}
	lines := bytes.Repeat([]byte("\n"), 32<<20)
	long := make([]byte, 32<<20)
	tests := []struct {
		name string
		data []byte
		opts ReadOptions
		is   error
		want string
	}{
		{"zstd over the total", compressed.EncodeZstd(lines), ReadOptions{File: "b.zst", InputBytesMax: 1 << 20},
			ErrTooLarge, "b.zst: history is larger than the limit of 1 MiB"},
		{"gzip over the total", gzipBytes(t, lines), ReadOptions{File: "b.gz", InputBytesMax: 1 << 20},
			ErrTooLarge, "b.gz: history is larger than the limit of 1 MiB"},
		{"zstd over the line", compressed.EncodeZstd(long), ReadOptions{File: "b.zst", LineBytesMax: 1 << 20},
			ErrLineTooLong, "b.zst:1: line is longer than the limit of 1 MiB (a history holds one event per line)"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.data) > 1<<20 {
				t.Fatalf("the bomb is %d bytes, meant to be small", len(tt.data))
			}
			path := filepath.Join(dir, tt.opts.File)
			os.WriteFile(path, tt.data, 0o644)
			_, err := ReadFileBytes(path, tt.opts)
			if !errors.Is(err, tt.is) || err.Error() != tt.want {
				t.Fatalf("got %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestReadCorrupt: a compressed history that is cut short is an error that
// names the file and the format.
func TestReadCorrupt(t *testing.T) {
	z := compressed.EncodeZstd([]byte(strings.Repeat("{}\n", 1000)))
	_, err := ReadAll(bytes.NewReader(z[:len(z)-10]), ReadOptions{File: "h.jsonl.zst"})
	if err == nil || !strings.HasPrefix(err.Error(), "h.jsonl.zst: reading history: zstd: ") {
		t.Fatalf("got %v", err)
	}
}
