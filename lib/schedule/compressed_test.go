package schedule

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/compressed"
	"github.com/sf-dst/sf/lib/faults"
)

// TestReadCompressed: a schedule compressed with zstd or gzip reads as the
// plain one, from a file or stdin, and the size limit counts decompressed
// bytes.
func TestReadCompressed(t *testing.T) {
	in := &Schedule{Seed: 9, Config: "w.json", Duration: Dur(10 * time.Second), Faults: []Fault{
		{At: Dur(1204 * time.Millisecond), Kind: faults.KindCrash, Node: "server", Until: Dur(1500 * time.Millisecond)},
	}}
	plain := in.Marshal()
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	dir := t.TempDir()
	for name, data := range map[string][]byte{"f.json.zst": compressed.EncodeZstd(plain), "f.json.gz": gz.Bytes()} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			os.WriteFile(path, data, 0o644)
			got, err := ReadFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, in) {
				t.Fatalf("read %+v, want %+v", got, in)
			}
			if got, err = ReadFile("-", bytes.NewReader(data)); err != nil || !reflect.DeepEqual(got, in) {
				t.Fatalf("from stdin: %+v, %v", got, err)
			}
		})
	}
	t.Run("bomb", func(t *testing.T) {
		bomb := compressed.EncodeZstd([]byte(strings.Repeat(" ", 8<<20)))
		_, err := ReadInput("-", bytes.NewReader(bomb), 1<<20)
		want := "<stdin>: larger than the limit of 1048576 bytes for this input"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("got %v, want %s...", err, want)
		}
	})
}
