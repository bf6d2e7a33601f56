package clitest

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// WriteFile writes a file, making its folder.
func WriteFile[Data string | []byte](t testing.TB, path string, data Data) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// AgeFiles sets the times of every file and folder under path to a minute
// ago, a time of its own on each call: as if nothing had changed there
// since. sf's build keeps no listing of files changed in the two seconds
// before it was taken.
func AgeFiles(t testing.TB, path string) {
	t.Helper()
	then := time.Now().Add(-time.Minute)
	err := filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, then, then)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ReadFile returns a file's content.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// WriteJSON writes v as an indented JSON file.
func WriteJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	WriteFile(t, path, append(b, '\n'))
}

// ReadJSON decodes a JSON object file.
func ReadJSON(t testing.TB, path string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(ReadFile(t, path)), &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// CopyWorld copies the world file src to dst with every pkg and wasm (of the
// nodes, the workload or workloads and the finally check) made absolute against src's
// folder, so that the copy builds the real packages but keeps its .seedfall
// next to itself.
func CopyWorld(t testing.TB, src, dst string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(ReadFile(t, src)), &w); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	abs := func(n any) {
		node, ok := n.(map[string]any)
		if !ok {
			return
		}
		for _, k := range []string{"pkg", "wasm"} {
			if p, ok := node[k].(string); ok && !filepath.IsAbs(p) {
				node[k] = filepath.Join(filepath.Dir(src), p)
			}
		}
	}
	for _, list := range []string{"nodes", "workloads"} {
		if nodes, ok := w[list].([]any); ok {
			for _, n := range nodes {
				abs(n)
			}
		}
	}
	abs(w["workload"])
	abs(w["finally"])
	WriteJSON(t, dst, w)
}

// Records parses a command's -json standard output: a JSON object with a
// kind on every line, a start record first and a summary last.
func Records(t testing.TB, r Result) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for i, line := range strings.Split(strings.TrimRight(r.Stdout, "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("stdout line %d is not a JSON object (%v): %q\n%s", i+1, err, line, r)
		}
		if _, ok := rec["kind"].(string); !ok {
			t.Fatalf("stdout line %d has no kind: %q", i+1, line)
		}
		recs = append(recs, rec)
	}
	if len(recs) < 2 || recs[0]["kind"] != "start" || recs[len(recs)-1]["kind"] != "summary" {
		t.Fatalf("want a start record first and a summary last\n%s", r)
	}
	return recs
}
