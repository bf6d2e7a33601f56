package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

// tools is the real sf-check, built once into a temporary directory that
// is removed afterwards.
var tools clitest.Tools

func TestMain(m *testing.M) { os.Exit(tools.Main(m, "sf-check")) }

func sfCheck(t *testing.T) string {
	t.Helper()
	tools.Need(t)
	return tools.Path("sf-check")
}

func runBin(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	r := clitest.Exec(t, clitest.Cmd{Dir: "testdata", Stdin: stdin}, append([]string{sfCheck(t)}, args...)...)
	return r.Stdout, r.Stderr, r.Code
}

// inProcess runs sf-check's run in testdata, as runBin runs the binary
// there. The fast tests use it; the binary is kept for the tests of a real
// process's standard input and files.
func inProcess(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Chdir("testdata")
	r := clitest.Run(t, run, stdin, append([]string{"sf-check"}, args...)...)
	return r.Stdout, r.Stderr, r.Code
}

func TestScenarios(t *testing.T) {
	tmp := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // lines or fragments that must appear
		stderr string   // exact, "" for empty
	}{
		{"queue passes", []string{"-history", "queue-ok.jsonl", "-model", "queue"}, 0,
			[]string{"ok    history of 5 operations is linearizable (model queue)\n"}, ""},
		{"queue loses an item", []string{"-history", "queue-lost.jsonl", "-model", "queue", "-timeline", filepath.Join(tmp, "q.html")}, 1,
			[]string{
				`nonlinearizable: key "q": no order of its 3 operations is legal; the longest legal order places 2, not q: dequeue → "1-1" (id 2, process 2); see the timeline`,
				"timeline: " + filepath.Join(tmp, "q.html"),
				`FAIL  history of 4 operations is not linearizable (model queue): key "q"`,
			}, ""},
		{"the same file is linearizable as a kv history", []string{"-history", "queue-ok.jsonl", "-model", "set"}, 2,
			nil, "sf-check: queue-ok.jsonl:1: history (model set): operation \"enqueue\" is not one of add, read\n"},
		{"typo in an operation", []string{"-history", "kv-typo.jsonl"}, 2,
			nil, "sf-check: kv-typo.jsonl:3: history (model kv): operation \"gte\" is not one of get, put, read, write\n"},
		{"malformed line", []string{"-history", "malformed.jsonl"}, 2,
			nil, "sf-check: malformed.jsonl:2: malformed event: column 86: expected ',' or '}' after a field\n"},
		{"completion with no invocation", []string{"-history", "orphan.jsonl"}, 2,
			nil, "sf-check: orphan.jsonl:2: ok completion of id 7 has no invocation before it\n"},
		{"duplicate id", []string{"-history", "duplicate-id.jsonl"}, 2,
			nil, "sf-check: duplicate-id.jsonl:2: duplicate id 0: it was already invoked at line 1\n"},
		{"Jepsen list-append with G-single", []string{"-history", "jepsen-append.edn", "-model", "list-append"}, 1,
			[]string{
				`G-single: T1 -rw x-> T0 -wr y-> T1; T1 (client 1, ok) [r x [], r y ["1"]]; T0 (client 0, ok) [append x "1", append y "1"]`,
				"FAIL  history of 4 transactions is not serializable: G-single",
			}, ""},
		{"Jepsen list-append, serializable", []string{"-history", "jepsen-append-ok.edn", "-model", "list-append", "-format", "edn"}, 0,
			[]string{"ok    history of 3 transactions is serializable"}, ""},
		{"Jepsen register: a failed cas took effect", []string{"-history", "jepsen-register.edn", "-model", "cas", "-timeline", filepath.Join(tmp, "r.html")}, 1,
			[]string{"FAIL  history of 3 operations is not linearizable (model cas)\n"}, ""},
		{"Jepsen independent keys", []string{"-history", "jepsen-independent.edn", "-model", "cas", "-timeline", filepath.Join(tmp, "i.html")}, 1,
			[]string{
				`nonlinearizable: key "1": no order of its 3 operations is legal; the longest legal order places 2, not 1: get → "5" (id 8, process 0); see the timeline`,
				"keys: from Jepsen's independent [key value] tuples",
				`FAIL  history of 5 operations is not linearizable (model cas): key "1"`,
			}, ""},
		{"EDN read as JSON Lines", []string{"-history", "jepsen-register.edn", "-format", "jsonl"}, 2,
			nil, "sf-check: jepsen-register.edn:1: malformed event: column 2: expected a string, found ':'\n"},
		{"unreadable EDN", []string{"-history", "bad.edn", "-model", "list-append"}, 2,
			nil, "sf-check: bad.edn:2: unreadable EDN: '{' opened here is never closed\n"},
		{"gave up", []string{"-history", "kv-hard.jsonl", "-max-steps", "1000"}, 1,
			[]string{"GAVE UP  gave up checking 81 operations for linearizability at 1000 steps per key: the history neither passed nor failed"}, ""},
		{"negative step limit", []string{"-history", "kv-hard.jsonl", "-max-steps", "-1"}, 2,
			nil, "sf-check: -max-steps must not be negative (see sf-check -h)\n"},
		{"unknown model", []string{"-history", "queue-ok.jsonl", "-model", "stack"}, 2,
			nil, "sf-check: unknown model \"stack\": want one of append, cas, counter, kv, list-append, queue, set\n"},
		{"manual again, in the same process", []string{"-h"}, 0,
			[]string{"Sf-check checks a recorded history", "kv, cas, append, queue, set, counter or list-append", "(default kv)"}, ""},
		{"unknown format", []string{"-history", "queue-ok.jsonl", "-format", "csv"}, 2,
			nil, "sf-check: unknown history format \"csv\": want auto, jsonl or edn\n"},
		{"unknown flag", []string{"-histroy", "queue-ok.jsonl"}, 2,
			nil, "sf-check: unknown flag -histroy: did you mean -history? (see sf-check -h)\n"},
		{"missing file", []string{"-history", "nope.jsonl"}, 2,
			nil, "sf-check: reading history: open nope.jsonl: no such file or directory\n"},
		{"flags after the file", []string{"queue-ok.jsonl", "-model", "queue"}, 0,
			[]string{"ok    history of 5 operations is linearizable (model queue)\n"}, ""},
		{"flags on both sides of the file", []string{"-model", "queue", "queue-ok.jsonl", "-format", "jsonl"}, 0,
			[]string{"ok    history of 5 operations is linearizable (model queue)\n"}, ""},
		{"two files", []string{"queue-ok.jsonl", "-model", "queue", "kv-hard.jsonl"}, 2,
			nil, "sf-check: unexpected argument kv-hard.jsonl (see sf-check -h)\n"},
		{"a file after --", []string{"-model", "queue", "--", "queue-ok.jsonl"}, 0,
			[]string{"ok    history of 5 operations is linearizable (model queue)\n"}, ""},
		{"negative timeout", []string{"queue-ok.jsonl", "-timeout", "-1s"}, 2,
			nil, "sf-check: -timeout -1s: must be more than 0, since checking linearizability may take exponential time (see sf-check -h)\n"},
		{"zero timeout", []string{"queue-ok.jsonl", "-timeout", "0s"}, 2,
			nil, "sf-check: -timeout 0s: must be more than 0, since checking linearizability may take exponential time (see sf-check -h)\n"},
		// The words sf_check's timeout gets for it too (lib/cmdspec).
		{"bad timeout", []string{"queue-ok.jsonl", "-timeout", "soon"}, 2,
			nil, "sf-check: -timeout: invalid duration \"soon\" (see sf-check -h)\n"},
		{"manual", []string{"-h"}, 0,
			[]string{"Sf-check checks a recorded history", "Exit status: 0 the history passed", "  -timeout DURATION"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := inProcess(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout does not contain %q:\n%s", want, stdout)
				}
			}
			if stderr != tt.stderr {
				t.Errorf("stderr\n %q\nwant\n %q", stderr, tt.stderr)
			}
			if strings.Contains(stdout+stderr, "goroutine ") {
				t.Errorf("output has a Go stack trace")
			}
		})
	}
}

func TestTimelineNextToHistory(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/queue-lost.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	hist := filepath.Join(dir, "seed-1.history.jsonl")
	if err := os.WriteFile(hist, data, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, code := runBin(t, "", "-history", hist, "-model", "queue")
	if code != 1 {
		t.Fatalf("exit status %d", code)
	}
	html := filepath.Join(dir, "seed-1.history.html")
	if !strings.Contains(stdout, "timeline: "+html) {
		t.Errorf("stdout does not name the timeline:\n%s", stdout)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("<html")) || bytes.Contains(b, []byte(`src="http`)) {
		t.Errorf("the timeline is not one self-contained HTML file")
	}
}

func TestStdinAndJSON(t *testing.T) {
	data, err := os.ReadFile("testdata/jepsen-append.edn")
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBin(t, string(data), "-history", "-", "-model", "list-append", "-json")
	if code != 1 || stderr != "" {
		t.Fatalf("exit status %d, stderr %q", code, stderr)
	}
	if strings.Count(stdout, "\n") != 1 {
		t.Fatalf("want exactly one JSON line, got:\n%s", stdout)
	}
	var rec struct {
		Tool, Format, Model, Verdict, Class, Summary string
		Schema, Operations, ExitStatus               int
		Passed                                       bool
		Anomalies                                    []struct {
			Kind, Example string
			Count         int
			Ops           []int64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Tool != "sf-check" || rec.Schema != 1 || rec.Format != "edn" || rec.Verdict != "illegal" || rec.Passed ||
		rec.Class != "isolation" || rec.Operations != 4 || len(rec.Anomalies) != 1 || rec.Anomalies[0].Kind != "G-single" {
		t.Errorf("record %+v", rec)
	}
	if !strings.Contains(stdout, `"exit_status":1`) || !strings.Contains(stdout, "-rw x->") {
		t.Errorf("record %s", stdout)
	}

	// A bad input gives an error record and exit status 2.
	stdout, _, code = runBin(t, "{\"type\":\"ok\"}\n", "-json")
	if code != 2 || !strings.Contains(stdout, `"error":"<stdin>:1: event has no \"process\" field"`) {
		t.Errorf("exit status %d, stdout %s", code, stdout)
	}
}

// kvHistory is a small kv history that passes: a put, then a get that sees it.
const kvHistory = `{"type":"invoke","process":1,"f":"put","key":"x","value":"1","time":8,"id":0}
{"type":"ok","process":1,"f":"put","key":"x","value":null,"time":100,"id":0}
{"type":"invoke","process":2,"f":"get","key":"x","value":null,"time":200,"id":1}
{"type":"ok","process":2,"f":"get","key":"x","value":"1","time":300,"id":1}
`

// TestStdinAndLimits: - reads the history from standard input, as -history or
// as the argument, and every input is bounded: an endless stream or a file
// over -max-bytes is an input error (exit status 2) that names the input and
// the limit, reached quickly and without a stack trace.
func TestStdinAndLimits(t *testing.T) {
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string // a fragment that must appear
		stderr string // exact
	}{
		{"-history -", kvHistory, []string{"-history", "-", "-model", "kv"}, 0,
			"ok    history of 2 operations is linearizable (model kv)\n", ""},
		{"- as the argument", kvHistory, []string{"-model", "kv", "-"}, 0,
			"ok    history of 2 operations is linearizable (model kv)\n", ""},
		{"stdin error names <stdin>", "{\"type\":\"ok\"}\n", []string{"-history", "-"}, 2,
			"", "sf-check: <stdin>:1: event has no \"process\" field\n"},
		{"/dev/zero", "", []string{"-history", "/dev/zero"}, 2,
			"", "sf-check: /dev/zero:1: line is longer than the limit of 64 MiB (a history holds one event per line)\n"},
		{"over -max-bytes", "", []string{"-history", "queue-ok.jsonl", "-max-bytes", "100"}, 2,
			"", "sf-check: queue-ok.jsonl: history is larger than the limit of 100 bytes (raise it with -max-bytes)\n"},
		{"stdin within -max-bytes", kvHistory, []string{"-max-bytes", "1024", "-"}, 0,
			"ok    history of 2 operations", ""},
		{"-max-bytes takes a number of bytes", kvHistory, []string{"-max-bytes", "1k", "-"}, 2,
			"", "sf-check: invalid value \"1k\" for flag -max-bytes: parse error (see sf-check -h)\n"},
		{"-max-bytes 0", "", []string{"-history", "queue-ok.jsonl", "-max-bytes", "0"}, 2,
			"", "sf-check: -max-bytes must be at least 1 (see sf-check -h)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			stdout, stderr, code := inProcess(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout does not contain %q:\n%s", tt.stdout, stdout)
			}
			if stderr != tt.stderr {
				t.Errorf("stderr\n %q\nwant\n %q", stderr, tt.stderr)
			}
			if strings.Contains(stdout+stderr, "goroutine ") {
				t.Errorf("output has a Go stack trace")
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestMappedHistory: a history file large enough to be mapped into memory
// rather than read gets the verdict, record and report it gets on standard
// input, where it is read.
func TestMappedHistory(t *testing.T) {
	var b strings.Builder
	for i := range 12_000 {
		fmt.Fprintf(&b, `{"type":"invoke","process":%d,"f":"put","key":"k%d","value":"%d","time":%d,"id":%d}`+"\n", i%5, i%11, i, 4*i, 2*i)
		fmt.Fprintf(&b, `{"type":"ok","process":%d,"f":"put","key":"k%d","value":null,"time":%d,"id":%d}`+"\n", i%5, i%11, 4*i+1, 2*i)
		fmt.Fprintf(&b, `{"type":"invoke","process":%d,"f":"get","key":"k%d","value":null,"time":%d,"id":%d}`+"\n", 5+i%5, i%11, 4*i+2, 2*i+1)
		fmt.Fprintf(&b, `{"type":"ok","process":%d,"f":"get","key":"k%d","value":"%d","time":%d,"id":%d}`+"\n", 5+i%5, i%11, i-i%7, 4*i+3, 2*i+1)
	}
	history := b.String()
	if len(history) < 2<<20 {
		t.Fatalf("history of %d bytes: too small to be mapped", len(history))
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(history), 0o644); err != nil {
		t.Fatal(err)
	}
	normalize := func(out string) string {
		out = regexp.MustCompile(`"(history|elapsed_ms|timeline)":("[^"]*"|[0-9]+),?`).ReplaceAllString(out, "")
		return strings.ReplaceAll(out, path, "<file>")
	}
	fileOut, fileErr, fileCode := runBin(t, "", "-history", path, "-model", "kv", "-json", "-timeline", filepath.Join(t.TempDir(), "t.html"))
	stdinOut, stdinErr, stdinCode := runBin(t, history, "-history", "-", "-model", "kv", "-json", "-timeline", filepath.Join(t.TempDir(), "t.html"))
	if fileCode != 1 || fileCode != stdinCode || fileErr != stdinErr {
		t.Fatalf("file: exit %d, stderr %q; stdin: exit %d, stderr %q", fileCode, fileErr, stdinCode, stdinErr)
	}
	if normalize(fileOut) != normalize(stdinOut) || !strings.Contains(fileOut, `"operations":24000`) {
		t.Errorf("file:\n%s\nstdin:\n%s", fileOut, stdinOut)
	}
}

// TestListAppendJSONL runs the binary on list-append histories in JSON
// Lines, which sf-check reads without validating the values of invocations
// and ok completions and has the checker decode or check strictly (check.ParseAndCheck): a broken value
// gets the error a strict reading gives, the one sf-check gave before it
// read that way, naming the file and line, with exit status 2.
func TestListAppendJSONL(t *testing.T) {
	tests := []struct {
		file   string
		code   int
		stdout []string
		stderr string
	}{
		{"list-append-gsingle.jsonl", 1, []string{
			`G-single: T1 -rw x-> T0 -wr y-> T1; T1 (client 1, ok) [r x [], r y ["1"]]; T0 (client 0, ok) [append x "1", append y "1"]`,
			"FAIL  history of 3 transactions is not serializable: G-single\n",
		}, ""},
		{"list-append-bad-output.jsonl", 2, nil,
			"sf-check: list-append-bad-output.jsonl:4: malformed event: \"value\": column 85: expected a value, found ']'\n"},
		// Invocations' values are not validated by the reader either: a
		// broken one, of an ok transaction or of one that never returned,
		// still gets the strict reading's error.
		{"list-append-bad-invocation.jsonl", 2, nil,
			"sf-check: list-append-bad-invocation.jsonl:3: malformed event: \"value\": column 83: invalid literal, expected null\n"},
		{"list-append-bad-pending.jsonl", 2, nil,
			"sf-check: list-append-bad-pending.jsonl:3: malformed event: \"value\": column 92: expected a value, found ']'\n"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			stdout, stderr, code := runBin(t, "", "-model", "list-append", tt.file)
			if code != tt.code || stderr != tt.stderr {
				t.Errorf("exit status %d, stderr %q; want %d, %q", code, stderr, tt.code, tt.stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout does not contain %q:\n%s", want, stdout)
				}
			}
		})
	}
	stdout, _, code := runBin(t, "", "-model", "list-append", "-json", "list-append-bad-output.jsonl")
	if want := `"error":"list-append-bad-output.jsonl:4: malformed event: \"value\": column 85: expected a value, found ']'","exit_status":2}`; code != 2 || !strings.Contains(stdout, want) {
		t.Errorf("exit status %d, stdout %s; want 2 and %s", code, stdout, want)
	}
	stdout, _, code = runBin(t, "", "-model", "list-append", "-json", "list-append-bad-invocation.jsonl")
	if want := `"error":"list-append-bad-invocation.jsonl:3: malformed event: \"value\": column 83: invalid literal, expected null","exit_status":2}`; code != 2 || !strings.Contains(stdout, want) {
		t.Errorf("exit status %d, stdout %s; want 2 and %s", code, stdout, want)
	}
}
