package report

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/sf-dst/sf/lib/compressed"
)

// TestReadCompressed: a record stream compressed with zstd or gzip gives the
// report of the plain one.
func TestReadCompressed(t *testing.T) {
	var want bytes.Buffer
	Text(&want, build(t, "run.jsonl"))
	plain, err := os.ReadFile(filepath.Join("testdata", "run.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	for name, data := range map[string][]byte{"run.jsonl.zst": compressed.EncodeZstd(plain), "run.jsonl.gz": gz.Bytes()} {
		t.Run(name, func(t *testing.T) {
			sweeps, err := Build([]Input{{Name: name, R: bytes.NewReader(data)}})
			if err != nil {
				t.Fatal(err)
			}
			Schedules(sweeps, ".")
			var got bytes.Buffer
			Text(&got, sweeps)
			if got.String() != want.String() {
				t.Fatalf("report of %s:\n%s\nwant:\n%s", name, got.String(), want.String())
			}
		})
	}
}
