package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// Lines of a session written by hand, as printf would send them.
const (
	initLine        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func callLine(id int, tool string, args map[string]any) string {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		panic(err)
	}
	return string(b)
}

func listLine(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id)
}

// answers runs sf-mcp -dir dir on the lines and returns its answers, one
// decoded object per line of its output, after checking that it ended
// with status 0 at the end of its input.
func answers(t *testing.T, dir string, lines ...string) []map[string]any {
	t.Helper()
	tools.Need(t)
	r := clitest.Exec(t, clitest.Cmd{Dir: dir, Stdin: strings.Join(lines, "\n") + "\n"}, tools.Path("sf-mcp"), "-dir", dir)
	r.WantExitClean(t, 0)
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimRight(r.Stdout, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("an answer that is not JSON: %q: %v\n%s", clitest.Tail(l, 1), err, r)
		}
		out = append(out, m)
	}
	return out
}

// answerTo returns the answer with the given id (a JSON number or
// string, or nil for null), failing the test if there is not exactly one.
func answerTo(t *testing.T, as []map[string]any, id any) map[string]any {
	t.Helper()
	var found []map[string]any
	for _, a := range as {
		if fmt.Sprint(a["id"]) == fmt.Sprint(id) {
			found = append(found, a)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d answers with id %v, want 1: %v", len(found), id, as)
	}
	return found[0]
}

// TestEveryRequestAnswered: requests written all at once, the input then
// closed (printf ... | sf-mcp), are all answered before sf-mcp exits,
// a tool call that takes a while included (issue 30, item 4).
func TestEveryRequestAnswered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyWorld(t, dir, "examples/kvlog/seedfall.json")
	for trial := range 3 {
		as := answers(t, dir, initLine, initializedLine,
			callLine(2, "sf_run", map[string]any{"config": "seedfall.json", "seeds": "1-4"}), listLine(3))
		if len(as) != 3 {
			t.Fatalf("trial %d: %d answers, want 3: %v", trial, len(as), as)
		}
		answerTo(t, as, 1.0)
		if res, _ := answerTo(t, as, 2.0)["result"].(map[string]any); res == nil || res["structuredContent"] == nil {
			t.Errorf("trial %d: sf_run's answer has no result: %v", trial, as)
		}
		if res, _ := answerTo(t, as, 3.0)["result"].(map[string]any); res == nil || res["tools"] == nil {
			t.Errorf("trial %d: tools/list's answer has no tools: %v", trial, as)
		}
	}
}

// TestBadInput: every malformed line is answered with a JSON-RPC error and
// the session goes on; a tool that would write outside -dir, or read a
// world's file that is not a regular file, returns a tool error.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	clitest.WriteFile(t, filepath.Join(dir, "zero.json"), []byte(`{"workload": {"name": "client", "pkg": "`+
		filepath.Join(tools.Root, "lib", "engine", "testdata", "guests", "sleeper")+`", "files": {"x": "/dev/zero"}}}`))
	clitest.WriteFile(t, filepath.Join(outside, "seedfall.json"), []byte(`{}`))
	clitest.WriteFile(t, filepath.Join(dir, "h.jsonl"), []byte(`{"type":"invoke","process":0,"f":"write","key":"k","value":1}`+"\n"))
	if err := os.Symlink(outside, filepath.Join(dir, "away")); err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, tc := range []struct {
		name string
		line string
		id   any    // of the answer: nil for null
		code int    // JSON-RPC error code; 0 for a tool error in a result
		want string // in the error's message or the tool error's text
	}{
		{"not JSON", `INIT`, nil, -32700, "parse error: invalid character 'I' looking for beginning of value"},
		{"torn JSON", `{"jsonrpc":"2.0","id":7,"method":`, nil, -32700, "parse error: unexpected end of JSON input"},
		{"empty line", ``, nil, -32700, "parse error: an empty line"},
		{"an array", `[]`, nil, -32600, "invalid request: a message is a JSON object (batches are not supported)"},
		{"a batch", `[` + listLine(8) + `]`, nil, -32600, "invalid request: a message is a JSON object (batches are not supported)"},
		{"a number", `5`, nil, -32600, "invalid request: a message is a JSON object"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":5,"method":"tools/list"}`, 5.0, -32600, `invalid request: "jsonrpc" must be "2.0"`},
		{"no jsonrpc", `{"id":6,"method":"tools/list"}`, 6.0, -32600, `invalid request: "jsonrpc" must be "2.0"`},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, nil, -32600, "invalid request: id must be a string or a number"},
		{"a boolean id", `{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, nil, -32600, "invalid request: id must be a string or a number"},
		{"no method", `{"jsonrpc":"2.0","id":"m"}`, "m", -32600, "invalid request: no method"},
		{"an over-long line", strings.Repeat("a", 16<<20+10), nil, -32700, "parse error: the line is longer than 16777216 bytes"},
		{"deep nesting", deep, nil, -32700, "parse error: "},
		{"unknown method", `{"jsonrpc":"2.0","id":"u","method":"nope"}`, "u", -32601, ""},
		// -dir confines what the tools write (issue 30, item 4).
		{"sf_report md outside", callLine(20, "sf_report", map[string]any{"records": []string{"r.jsonl"}, "md": filepath.Join(outside, "r.md")}), 20.0, 0,
			"sf_report: md: " + filepath.Join(outside, "r.md") + " is outside the server's folder " + dir + " (-dir), and it would be written there"},
		{"sf_report html through a link", callLine(21, "sf_report", map[string]any{"records": []string{"r.jsonl"}, "html": "away/r.html"}), 21.0, 0,
			"sf_report: html: away/r.html is outside the server's folder"},
		{"sf_report findings outside", callLine(22, "sf_report", map[string]any{"records": []string{"r.jsonl"}, "findings": "../f.json"}), 22.0, 0,
			"sf_report: findings: ../f.json is outside the server's folder"},
		{"sf_run world outside", callLine(23, "sf_run", map[string]any{"config": filepath.Join(outside, "seedfall.json")}), 23.0, 0,
			"sf_run: config: " + filepath.Join(outside, "seedfall.json") + " is outside the server's folder " + dir + " (-dir), and its artifacts would be written next to it"},
		{"sf_faults_edit out outside", callLine(24, "sf_faults_edit", map[string]any{"config": "zero.json", "seed": 1, "out": "/tmp/x.faults.json"}), 24.0, 0,
			"sf_faults_edit: out: /tmp/x.faults.json is outside the server's folder"},
		{"sf_check timeline outside", callLine(25, "sf_check", map[string]any{"history": "h.jsonl", "timeline": filepath.Join(outside, "t.html")}), 25.0, 0,
			"sf_check: timeline: " + filepath.Join(outside, "t.html") + " is outside the server's folder"},
		{"sf_mutate md outside", callLine(26, "sf_mutate", map[string]any{"config": "zero.json", "md": "../m.md"}), 26.0, 0,
			"sf_mutate: md: ../m.md is outside the server's folder"},
		// What a world names is read only when it is a regular file (item 1).
		{"sf_run files from a device", callLine(30, "sf_run", map[string]any{"config": "zero.json", "seeds": "1"}), 30.0, 0,
			"sf-run: zero.json: workload.files.x: host file /dev/zero is not a regular file (it is a character device) (resolved to /dev/zero)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := answers(t, dir, initLine, initializedLine, tc.line, listLine(99))
			if len(as) != 3 {
				t.Fatalf("%d answers, want 3 (initialize, the line, tools/list): %v", len(as), as)
			}
			if res, _ := answerTo(t, as, 99.0)["result"].(map[string]any); res == nil || res["tools"] == nil {
				t.Errorf("the session did not go on: %v", as)
			}
			a := answerTo(t, as, tc.id)
			if tc.code != 0 {
				e, _ := a["error"].(map[string]any)
				if e == nil || e["code"] != float64(tc.code) || !strings.Contains(fmt.Sprint(e["message"]), tc.want) {
					t.Errorf("answer %v, want error %d with %q", clitest.Tail(fmt.Sprint(a), 1), tc.code, tc.want)
				}
				return
			}
			res, _ := a["result"].(map[string]any)
			b, _ := json.Marshal(res["content"])
			if res == nil || res["isError"] != true || !strings.Contains(string(b), jsonText(tc.want)) {
				t.Errorf("answer %v, want a tool error with %q", a, tc.want)
			}
		})
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
