package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestBadInput: inputs sf-check refuses through the built binary, with
// exit 2 and the message (issue 30, items 9 and 10).
func TestBadInput(t *testing.T) {
	tools.Need(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A queue that loses an item: not linearizable, so a timeline is due.
	data, err := os.ReadFile(filepath.Join("testdata", "queue-lost.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	bad := string(data)
	clitest.WriteFile(t, filepath.Join(dir, "bad.jsonl"), bad)
	// A gzip bomb and a zstd one: 64 MiB of events each, a few hundred KB
	// compressed, refused at -max-bytes 1 MiB.
	line := `{"type":"invoke","process":0,"f":"write","key":"k","value":1}` + "\n"
	plain := bytes.Repeat([]byte(line), (64<<20)/len(line))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	zst := enc.EncodeAll(plain, nil)
	clitest.WriteFile(t, filepath.Join(dir, "bomb.jsonl.gz"), gz.Bytes())
	clitest.WriteFile(t, filepath.Join(dir, "bomb.jsonl.zst"), zst)
	for _, tc := range []struct {
		name  string
		files map[string]string
		args  []string
		want  string // all of stderr
	}{
		{"gzip bomb", nil, []string{"-history", "bomb.jsonl.gz", "-max-bytes", "1048576"},
			"sf-check: bomb.jsonl.gz: history is larger than the limit of 1 MiB (raise it with -max-bytes)\n"},
		{"zstd bomb", nil, []string{"-history", "bomb.jsonl.zst", "-max-bytes", "1048576"},
			"sf-check: bomb.jsonl.zst: history is larger than the limit of 1 MiB (raise it with -max-bytes)\n"},
		{"value not UTF-8", map[string]string{"u.jsonl": `{"type":"invoke","process":0,"f":"write","key":"k","value":"ok` + "\xff" + `","time":1,"index":0,"id":0}` + "\n"},
			[]string{"-history", "u.jsonl"},
			"sf-check: u.jsonl:1: malformed event: \"value\": byte 3 is not UTF-8 (a history is UTF-8 text)\n"},
		{"EDN value not UTF-8", map[string]string{"u.edn": `[{:type :invoke, :f :write, :value "a` + "\xff" + `b", :process 0, :time 1, :index 0}]` + "\n"},
			[]string{"-history", "u.edn"},
			"sf-check: u.edn:1: :value holds bytes that are not UTF-8 (a history is UTF-8 text)\n"},
		{"value not UTF-8 on the fast path", map[string]string{"f.jsonl": `{"index":0,"type":"invoke","process":0,"f":"write","key":"k","value":"` + "\xc3(" + `","time":1,"id":0}` + "\n"},
			[]string{"-history", "f.jsonl"},
			"sf-check: f.jsonl:1: malformed event: \"value\": byte 1 is not UTF-8 (a history is UTF-8 text)\n"},
		{"timeline is a folder", nil, []string{"-history", "bad.jsonl", "-model", "queue", "-timeline", "out"},
			"sf-check: -timeline out: is a directory: name a file to write (see sf-check -h)\n"},
		{"timeline next to the history is a folder", map[string]string{"h2.jsonl": bad, "h2.html/x": ""}, []string{"-history", "h2.jsonl", "-model", "queue"},
			"sf-check: writing the timeline: write h2.html: is a directory: name a file to write\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, content := range tc.files {
				clitest.WriteFile(t, filepath.Join(dir, name), content)
			}
			r := clitest.Exec(t, clitest.Cmd{Dir: dir}, append([]string{tools.Path("sf-check")}, tc.args...)...)
			r.WantExitClean(t, 2)
			if r.Stderr != tc.want {
				t.Errorf("stderr\n  %q\nwant\n  %q", r.Stderr, tc.want)
			}
		})
	}
}
