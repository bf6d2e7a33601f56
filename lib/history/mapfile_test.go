package history

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// kvLines is a valid kv history of n put operations, about 150 bytes each.
func kvLines(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"type":"invoke","process":%d,"f":"put","key":"k%d","value":"%d","time":%d,"id":%d}`+"\n", i%7, i%13, i, 2*i, i)
		fmt.Fprintf(&b, `{"type":"ok","process":%d,"f":"put","key":"k%d","value":null,"time":%d,"id":%d}`+"\n", i%7, i%13, 2*i+1, i)
	}
	return b.Bytes()
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMapFileBytes: a mapped history has the bytes a read one has, and every
// file that is not mapped (small, compressed, too large, with a line too
// long) gets what ReadFileBytes gives it, error for error.
func TestMapFileBytes(t *testing.T) {
	big := kvLines(15_000)
	if len(big) < 2*mapBytesMin {
		t.Fatalf("test history of %d bytes is too small to be mapped", len(big))
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.NoCompression) // stays over mapBytesMin
	zw.Write(big)
	zw.Close()
	longLine := append(append([]byte(nil), big[:mapBytesMin/2]...), bytes.Repeat([]byte("x"), mapBytesMin)...)
	longLine = append(append(longLine, '\n'), big[:mapBytesMin/2]...)

	tests := []struct {
		name string
		data []byte
		opts ReadOptions
		err  string // empty: the bytes are read
	}{
		{"large", big, ReadOptions{}, ""},
		{"no final newline", big[:len(big)-1], ReadOptions{}, ""},
		{"small", big[:4096], ReadOptions{}, ""},
		{"gzip", gz.Bytes(), ReadOptions{}, ""},
		{"over the size limit", big, ReadOptions{InputBytesMax: int64(len(big) - 1)}, "history is larger than the limit"},
		{"line too long", longLine, ReadOptions{LineBytesMax: mapBytesMin - 1}, "line is longer than the limit"},
		{"last line too long", bytes.Repeat([]byte("y"), 2*mapBytesMin), ReadOptions{LineBytesMax: mapBytesMin}, "line is longer than the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "h.jsonl", tt.data)
			tt.opts.File = path
			read, rerr := ReadFileBytes(path, tt.opts)
			mapped, merr := MapFileBytes(path, tt.opts)
			if fmt.Sprint(rerr) != fmt.Sprint(merr) {
				t.Fatalf("mapped: %v\nread: %v", merr, rerr)
			}
			if tt.err != "" {
				if merr == nil || !strings.Contains(merr.Error(), tt.err) || !strings.Contains(merr.Error(), path) {
					t.Fatalf("error %v, want one naming %s and saying %q", merr, path, tt.err)
				}
				return
			}
			if merr != nil || !bytes.Equal(read, mapped) {
				t.Fatalf("mapped %d bytes (%v), read %d", len(mapped), merr, len(read))
			}
			// A mapping is exactly the file's size; a read buffer has a byte
			// more, to see the end of the file without growing.
			if wantMapped := canMap && tt.name != "small" && tt.name != "gzip"; wantMapped != (cap(mapped) == len(mapped)) {
				t.Errorf("mapped: %v, want %v", cap(mapped) == len(mapped), wantMapped)
			}
		})
	}

	// A directory and a missing file fail as they do when read.
	for _, path := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing.jsonl")} {
		_, rerr := ReadFileBytes(path, ReadOptions{File: path})
		_, merr := MapFileBytes(path, ReadOptions{File: path})
		if rerr == nil || fmt.Sprint(rerr) != fmt.Sprint(merr) {
			t.Errorf("%s: mapped: %v, read: %v", path, merr, rerr)
		}
	}
}

// TestMapFileBytesTruncated: a mapped history that is truncated while in use
// faults when its lost part is touched; under SetPanicOnFault that is a panic
// FaultError turns into an error naming the file, and no other panic is.
func TestMapFileBytesTruncated(t *testing.T) {
	path := writeTemp(t, "h.jsonl", kvLines(12_000))
	data, err := MapFileBytes(path, ReadOptions{File: path})
	if err != nil {
		t.Fatal(err)
	}
	if os.Getpagesize() >= len(data) {
		t.Skip("the history fits in one page")
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	touch := func() (p any) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { p = recover() }()
		var sum byte
		for i := 0; i < len(data); i += os.Getpagesize() {
			sum += data[i]
		}
		return sum
	}
	p := touch()
	err = FaultError(p, path, data)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "changed while it was being checked") {
		t.Fatalf("recovered %v, error %v", p, err)
	}
	if err := FaultError("some other panic", path, data); err != nil {
		t.Errorf("a panic that is not a fault: %v", err)
	}
	if err := FaultError(p, path, kvLines(10)); err != nil {
		t.Errorf("a fault outside the data: %v", err)
	}
}

// TestMapFileBytesTruncatedBeforeReturn: a file truncated between its
// mapping and MapFileBytes's own pass over the lines faults in that pass,
// where the caller does not yet hold the bytes FaultError needs: the pass
// returns the error naming the file instead of panicking.
func TestMapFileBytesTruncatedBeforeReturn(t *testing.T) {
	if !canMap {
		t.Skip("no mmap on this platform")
	}
	path := writeTemp(t, "h.jsonl", kvLines(12_000))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	data, ok := mapReadOnly(f, int(fi.Size()))
	if !ok {
		t.Fatal("the history was not mapped")
	}
	defer unmap(data)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	err = func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		return checkMappedLines(data, path, LineBytesMax)
	}()
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "changed while it was being checked") {
		t.Fatalf("the line pass over a truncated mapping: %v", err)
	}
}
