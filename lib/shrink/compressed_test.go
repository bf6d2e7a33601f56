package shrink

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sf-dst/sf/lib/compressed"
)

// TestReadStreamsCompressed: sf-shrink takes the same failing seeds from a
// record stream compressed with zstd or gzip, as a file or on stdin.
func TestReadStreamsCompressed(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("..", "report", "testdata", "run.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	read := func(stdin []byte, inputs ...string) []job {
		t.Helper()
		c := &Command{Inputs: inputs, Max: DefaultMax, Stdin: bytes.NewReader(stdin)}
		jobs, _, err := c.readStreams()
		if err != nil {
			t.Fatal(err)
		}
		return jobs
	}
	os.WriteFile(filepath.Join(dir, "run.jsonl"), plain, 0o644)
	want := read(nil, filepath.Join(dir, "run.jsonl"))
	if len(want) == 0 {
		t.Fatal("the plain stream has no failing seeds")
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	for name, data := range map[string][]byte{"run.jsonl.zst": compressed.EncodeZstd(plain), "run.jsonl.gz": gz.Bytes()} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			os.WriteFile(path, data, 0o644)
			if got := read(nil, path); !reflect.DeepEqual(got, want) {
				t.Fatalf("read %+v, want %+v", got, want)
			}
			if got := read(data, "-"); !reflect.DeepEqual(got, want) {
				t.Fatalf("from stdin: %+v, want %+v", got, want)
			}
		})
	}
}
