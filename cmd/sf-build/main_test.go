package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestRunInProcess: sf-build's usage and input errors, and its manual,
// through run in this process. The end-to-end tests of the binary are in
// cmd/sf-run.
func TestRunInProcess(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("nostart.json", `{"workload": {"name": "client", "wasm": "empty.wasm"}}`)
	write("empty.wasm", "\x00asm\x01\x00\x00\x00")
	write("torn.json", `{"workload": {"name": "client", "wasm": "torn.wasm"}}`)
	write("torn.wasm", "\x00asm\x01\x00\x00\x00\x01\xff\xff\xff")
	t.Chdir(dir)
	abs, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"stray argument", []string{"extra"}, "sf-build: unexpected argument \"extra\" (see sf-build -h)\n"},
		{"flag after a stray argument", []string{"extra", "-q"}, "sf-build: unexpected argument \"extra\" (see sf-build -h)\n"},
		{"unknown flag", []string{"-quiet"}, "sf-build: unknown flag -quiet (see sf-build -h)\n"},
		{"missing world", []string{"-c", "nosuch.json"}, "sf-build: nosuch.json: no such file or directory (looked in " + abs + "; -c FILE names the world file)\n"},
		{"no world file here", nil, "sf-build: seedfall.json: no such file or directory (looked in " + abs + "; -c FILE names the world file)\n"},
		{"prebuilt module without _start", []string{"-c", "nostart.json"},
			"sf-build: workload (client): wasm: " + filepath.Join(abs, "empty.wasm") +
				" is not a wasip1 command: it exports no _start function (build it with GOOS=wasip1 GOARCH=wasm)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := clitest.Run(t, run, "", append([]string{"sf-build"}, tc.args...)...)
			if r.Stderr != tc.stderr && strings.Contains(tc.stderr, abs) {
				// The world's directory may be spelled through a symbolic link.
				tc.stderr = strings.ReplaceAll(tc.stderr, abs, dir)
			}
			r.Want(t, 2, tc.stderr)
			if r.Stdout != "" {
				t.Errorf("an error wrote on stdout\n%s", r)
			}
		})
	}
	t.Run("torn module", func(t *testing.T) {
		r := clitest.Run(t, run, "", "sf-build", "-c", "torn.json")
		if r.Code != 2 || !strings.HasPrefix(r.Stderr, "sf-build: workload (client): wasm: ") || !strings.Contains(r.Stderr, "torn.wasm is not a WebAssembly module: ") {
			t.Errorf("want the torn module refused\n%s", r)
		}
		r.NoStackTrace(t)
	})
	t.Run("manual twice", func(t *testing.T) {
		for range 2 {
			r := clitest.Run(t, run, "", "sf-build", "-h")
			if r.Code != 0 || r.Stderr != "" || !strings.Contains(r.Stdout, "Sf-build") || !strings.Contains(r.Stdout, "-q  ") {
				t.Errorf("want the manual on stdout\n%s", r)
			}
		}
	})
}
