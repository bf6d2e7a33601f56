package history

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
)

// TestReadLimits: reading stops at the first byte past a limit, with an error
// that names the input, the line and the limit, in either format.
func TestReadLimits(t *testing.T) {
	const event = `{"type":"invoke","process":1,"f":"get","key":"x","value":null,"time":1,"id":0}` + "\n"
	tests := []struct {
		name        string
		in          string
		total, line int64
		want        string // "" for success
		is          error
	}{
		{"within both", event + event, 1000, 100, "", nil},
		{"exactly the total", event, int64(len(event)), 100, "", nil},
		{"one byte over the total", event + "\n", int64(len(event)), 100,
			"h.jsonl: history is larger than the limit of 79 bytes", ErrTooLarge},
		{"exactly the line", event, 1000, int64(len(event) - 1), "", nil},
		{"a line one byte over", event + "\n" + strings.Repeat(" ", 20) + "\n", 1000, 19,
			"h.jsonl:1: line is longer than the limit of 19 bytes (a history holds one event per line)", ErrLineTooLong},
		{"a long line later", "\n\n" + strings.Repeat("x", 30), 1000, 20,
			"h.jsonl:3: line is longer than the limit of 20 bytes (a history holds one event per line)", ErrLineTooLong},
		{"the line limit before the total", strings.Repeat("x", 5000), 4096, 1024,
			"h.jsonl:1: line is longer than the limit of 1 KiB (a history holds one event per line)", ErrLineTooLong},
		{"EDN", "{:type :invoke, :f :read, :value nil, :process 0, :time 1}\n[" + strings.Repeat(" ", 50), 1000, 40,
			"h.jsonl:1: line is longer than the limit of 40 bytes (a history holds one event per line)", ErrLineTooLong},
	}
	for _, tt := range tests {
		opts := ReadOptions{File: "h.jsonl", InputBytesMax: tt.total, LineBytesMax: tt.line}
		// Whole, and one byte at a time so that lines and limits straddle reads.
		for _, r := range []struct {
			how string
			r   io.Reader
		}{{"whole", strings.NewReader(tt.in)}, {"bytewise", iotest.OneByteReader(strings.NewReader(tt.in))}} {
			t.Run(tt.name+"/"+r.how, func(t *testing.T) {
				data, err := ReadAll(r.r, opts)
				switch {
				case tt.want == "" && err != nil:
					t.Fatalf("unexpected error: %v", err)
				case tt.want == "" && string(data) != tt.in:
					t.Fatalf("read %q, want %q", data, tt.in)
				case tt.want != "" && (err == nil || err.Error() != tt.want):
					t.Fatalf("got %v\nwant %s", err, tt.want)
				case tt.want != "" && !errors.Is(err, tt.is):
					t.Errorf("%v is not %v", err, tt.is)
				}
			})
		}
	}
}

// TestReadLimitEndless: an endless input without newlines ends at the line
// limit, and one of short lines at the total limit, after reading at most one
// byte past it.
func TestReadLimitEndless(t *testing.T) {
	z := &countingReader{b: 'x'}
	_, err := ReadAll(z, ReadOptions{File: "zero", InputBytesMax: 1 << 20, LineBytesMax: 1 << 10})
	if !errors.Is(err, ErrLineTooLong) || z.n > 64<<10 {
		t.Errorf("no newlines: %v after %d bytes", err, z.n)
	}
	y := &countingReader{b: '\n'}
	_, err = ReadAll(y, ReadOptions{File: "yes", InputBytesMax: 1 << 20, LineBytesMax: 1 << 10})
	if !errors.Is(err, ErrTooLarge) || y.n != 1<<20+1 {
		t.Errorf("newlines: %v after %d bytes", err, y.n)
	}
}

type countingReader struct {
	b byte
	n int
}

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.b
	}
	r.n += len(p)
	return len(p), nil
}

// TestReadFileLimits: ReadFile and ReadFileBytes apply the default limits, and
// a failed read is an *Error that names the input.
func TestReadFileLimits(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "h.jsonl")
	if err := os.WriteFile(p, []byte(`{"type":"invoke","process":1,"f":"get","key":"x","value":null,"time":1,"id":0}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ops, err := ReadFile(p, FormatAuto); err != nil || len(ops) != 1 {
		t.Errorf("ReadFile = %v, %v", ops, err)
	}
	if _, err := ReadFileBytes(p, ReadOptions{File: p, InputBytesMax: 10}); err == nil || err.Error() != p+": history is larger than the limit of 10 bytes" {
		t.Errorf("ReadFileBytes over the limit: %v", err)
	}
	_, err := Read(iotest.ErrReader(errors.New("broken pipe")), ReadOptions{File: "<stdin>"})
	if want := "<stdin>: reading history: broken pipe"; err == nil || err.Error() != want {
		t.Errorf("failed read: %v, want %s", err, want)
	}
}

func TestParseInterrupt(t *testing.T) {
	// 5,000 operations, 10,000 events: Parse looks at the flag twice.
	var jsonl, edn strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&jsonl, `{"index":%d,"type":"invoke","process":0,"f":"put","key":"k","value":"%d","time":%d,"id":%d}`+"\n", 2*i, i, 2*i, i)
		fmt.Fprintf(&jsonl, `{"index":%d,"type":"ok","process":0,"f":"put","key":"k","value":null,"time":%d,"id":%d}`+"\n", 2*i+1, 2*i+1, i)
		fmt.Fprintf(&edn, "{:type :invoke, :f :write, :value %d, :process 0, :time %d, :index %d}\n", i, 2*i, 2*i)
		fmt.Fprintf(&edn, "{:type :ok, :f :write, :value %d, :process 0, :time %d, :index %d}\n", i, 2*i+1, 2*i+1)
	}
	for _, c := range []struct {
		format Format
		data   string
	}{{FormatJSONL, jsonl.String()}, {FormatEDN, edn.String()}} {
		flag := new(atomic.Bool)
		ops, err := Parse([]byte(c.data), ReadOptions{Format: c.format, Interrupt: flag})
		if err != nil || len(ops) != 5000 {
			t.Fatalf("%s, not interrupted: %d operations, %v", c.format, len(ops), err)
		}
		flag.Store(true)
		if ops, err := Parse([]byte(c.data), ReadOptions{Format: c.format, Interrupt: flag}); !errors.Is(err, ErrInterrupted) || ops != nil {
			t.Errorf("%s, interrupted: %d operations, error %v", c.format, len(ops), err)
		}
	}
}

// TestBombHeldWithinLimit: a gzip bomb is refused having allocated about
// its limit, not a multiple of it: the decompressed bytes are counted as
// they come, into blocks that are never copied (issue 30, item 10). Before,
// a buffer grown by append allocated some three times the limit.
func TestBombHeldWithinLimit(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine: nothing for -race to watch; the run without -race does it")
	}
	const limit = 32 << 20
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	line := []byte(`{"type":"invoke","process":0,"f":"write","key":"k","value":1}` + "\n")
	for range (4 * limit) / len(line) {
		zw.Write(line)
	}
	zw.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadAll(bytes.NewReader(gz.Bytes()), ReadOptions{File: "bomb.gz", InputBytesMax: limit})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > limit+limit/4 {
		t.Errorf("reading allocated %d MiB for a limit of %d MiB", got>>20, limit>>20)
	}
}
