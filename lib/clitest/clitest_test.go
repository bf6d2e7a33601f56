package clitest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestTail(t *testing.T) {
	if got := Tail("a\nb\nc\n", 2); got != "... (1 lines before)\nb\nc" {
		t.Errorf("Tail = %q", got)
	}
	if got := Tail("a\nb", 5); got != "a\nb" {
		t.Errorf("Tail = %q", got)
	}
}

// TestCopyWorld: the copy's relative packages and modules are absolute
// against the original's folder; absolute ones and other fields stay.
func TestCopyWorld(t *testing.T) {
	src := filepath.Join(t.TempDir(), "w", "seedfall.json")
	WriteFile(t, src, `{"nodes": [{"name": "s", "pkg": "./server"}, {"name": "m", "wasm": "/abs/m.wasm"}],
		"workload": {"name": "c", "pkg": "./client"}, "finally": {"name": "f", "pkg": "check"}, "duration": "5s",
		"workloads": [{"name": "l", "pkg": "./loader"}]}`)
	dst := filepath.Join(t.TempDir(), "copy.json")
	CopyWorld(t, src, dst)
	w := ReadJSON(t, dst)
	dir := filepath.Dir(src)
	nodes := w["nodes"].([]any)
	if got := nodes[0].(map[string]any)["pkg"]; got != filepath.Join(dir, "server") {
		t.Errorf("node pkg %v", got)
	}
	if got := nodes[1].(map[string]any)["wasm"]; got != "/abs/m.wasm" {
		t.Errorf("absolute wasm became %v", got)
	}
	if got := w["workload"].(map[string]any)["pkg"]; got != filepath.Join(dir, "client") {
		t.Errorf("workload pkg %v", got)
	}
	if got := w["workloads"].([]any)[0].(map[string]any)["pkg"]; got != filepath.Join(dir, "loader") {
		t.Errorf("workloads[0] pkg %v", got)
	}
	if got := w["finally"].(map[string]any)["pkg"]; got != filepath.Join(dir, "check") {
		t.Errorf("finally pkg %v", got)
	}
	if w["duration"] != "5s" {
		t.Errorf("duration %v", w["duration"])
	}
}

// TestExec: the exit status, both streams, stdin, the environment, argv[0]
// and a file for stdout; Shell's pipefail.
func TestExec(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	r := Exec(t, Cmd{Stdin: "in", Env: []string{"X=1"}, Name: "named"},
		sh, "-c", `read l; echo "$l $X $0"; echo err >&2; [ -t 1 ] || [ -p /dev/stdout ] && exit 3; exit 4`)
	if r.Code != 3 || r.Stdout != "in 1 named\n" || r.Stderr != "err\n" || !strings.HasPrefix(r.Cmdline, "named -c ") {
		t.Errorf("pipe: %s", r)
	}
	r = Exec(t, Cmd{StdoutFile: true}, sh, "-c", `echo out; [ -f /dev/stdout ] || [ ! -p /dev/stdout ] && exit 5`)
	if r.Code != 5 || r.Stdout != "out\n" {
		t.Errorf("file: %s", r)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	if r = Shell(t, Cmd{}, "exit 7 | true"); r.Code != 0 || r.Cmdline != "exit 7 | true" {
		t.Errorf("without pipefail: %s", r)
	}
	if r = Shell(t, Cmd{Pipefail: true}, "exit 7 | true"); r.Code != 7 {
		t.Errorf("with pipefail: %s", r)
	}
}
