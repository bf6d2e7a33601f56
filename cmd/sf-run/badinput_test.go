package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestBadInput: every broken input exits 2 with a message that names the
// file, field or node at fault, and never a Go stack trace. Where sf-build
// reads the same input, it is held to the same.
func TestBadInput(t *testing.T) {
	tools.Need(t)
	guest := func(name string) string {
		return filepath.Join(tools.Root, "lib", "engine", "testdata", "guests", name)
	}
	emptyDir := t.TempDir() // PATH without a Go toolchain
	for _, tc := range []struct {
		name  string
		files map[string]string // relative path -> content
		args  []string          // sf-run arguments after -c world.json
		path  string            // PATH, when not inherited
		build bool              // sf-build must fail the same way
		want  []string          // substrings of stderr
	}{
		{
			name:  "malformed JSON",
			files: map[string]string{"world.json": "{\n  \"nodes\": [\n    {\"name\": \"a\",}\n  ]\n}\n"},
			build: true,
			want:  []string{"world.json:3:18: invalid character '}'"},
		},
		{
			name:  "unknown field",
			files: map[string]string{"world.json": `{"nodes": [{"name": "server", "pgk": "./server"}], "workload": {"name": "client", "pkg": "."}}`},
			build: true,
			want:  []string{"world.json: nodes[0].pgk: unknown field", `did you mean "pkg"`},
		},
		{
			name:  "bad duration",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "pkg": "."}, "duration": "soon"}`},
			build: true,
			want:  []string{"world.json: duration:", "soon"},
		},
		{
			name:  "missing package directory",
			files: map[string]string{"world.json": `{"nodes": [{"name": "server", "pkg": "./nope"}], "workload": {"name": "client", "pkg": "."}}`},
			build: true,
			want:  []string{"world.json: nodes[0].pkg: package directory ./nope does not exist"},
		},
		{
			name: "package does not compile",
			files: map[string]string{
				"world.json":      `{"nodes": [{"name": "srv", "pkg": "./broken"}], "workload": {"name": "client", "pkg": "./broken"}}`,
				"broken/go.mod":   "module example.com/broken\n\ngo 1.26\n",
				"broken/main.go":  "package main\n\nfunc main() {\n\tundefinedFunction()\n}\n",
				"broken/other.go": "package main\n",
			},
			build: true,
			want:  []string{"nodes[0] (srv)", "go build", "main.go:4:2: undefined: undefinedFunction"},
		},
		{
			name: "no Go toolchain",
			files: map[string]string{
				"world.json": `{"workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
			},
			path:  emptyDir,
			build: true,
			want:  []string{"no Go toolchain"},
		},
		{
			name: "wasm file that is not wasm",
			files: map[string]string{
				"world.json": `{"workload": {"name": "client", "wasm": "random.wasm"}}`,
				"random.wasm": "\x8f\x11\xc3\x00\x7f\x05\x99\x10junk bytes that are no module at all \x01\x02\x03\xfe\xff" +
					"\x42\x17\x00\x00\xaa\xbb\xcc\xdd\xee\xff\x00\x11\x22\x33\x44\x55",
			},
			build: true,
			want:  []string{"(client)", "random.wasm is not a WebAssembly module"},
		},
		{
			name: "wasm with a valid header but a broken body",
			files: map[string]string{
				"world.json": `{"workload": {"name": "client", "wasm": "torn.wasm"}}`,
				"torn.wasm":  "\x00asm\x01\x00\x00\x00\x01\xff\xff\xff",
			},
			build: true,
			want:  []string{"client", "torn.wasm", "not a WebAssembly module"},
		},
		{
			name: "wasm that is not a wasip1 command",
			files: map[string]string{
				"world.json": `{"workload": {"name": "client", "wasm": "empty.wasm"}}`,
				"empty.wasm": "\x00asm\x01\x00\x00\x00",
			},
			build: true,
			want:  []string{": workload (client): /", "/empty.wasm is not a wasip1 command: it exports no _start function (build it with GOOS=wasip1 GOARCH=wasm)\n"},
		},
		{
			// A valid wasip1 command, but not Go's: preemption cannot count
			// its calls, and says so instead of running it without.
			name: "preempt with a module that is not Go's",
			files: map[string]string{
				"world.json": `{"workload": {"name": "client", "wasm": "tiny.wasm"}, "preempt": {"strategy": "random"}}`,
				"tiny.wasm": "\x00asm\x01\x00\x00\x00" + "\x01\x04\x01\x60\x00\x00" + "\x03\x02\x01\x00" +
					"\x07\x0a\x01\x06_start\x00\x00" + "\x0a\x04\x01\x02\x00\x0b",
			},
			want: []string{"node client (", "tiny.wasm)", "preempt: the module cannot be instrumented to count calls (preempt needs a module built by Go for wasip1)"},
		},
		{
			name: "faults naming an unknown node",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": [{"at": "1s", "kind": "crash", "node": "nosuch", "until": "2s"}]}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[0].node: \"nosuch\" is not a node of this world (server, client)"},
		},
		{
			name: "faults file missing",
			files: map[string]string{
				"world.json": `{"workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
			},
			args: []string{"-seed", "1", "-faults", "nosuch.faults.json"},
			want: []string{"-faults", "nosuch.faults.json"},
		},
		{
			name: "faults file malformed",
			files: map[string]string{
				"world.json":  `{"workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": [{"at": "soon", "kind": "crash", "node": "client"}]}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range tc.files {
				clitest.WriteFile(t, filepath.Join(dir, name), []byte(content))
			}
			args := append([]string{"-c", "world.json"}, tc.args...)
			if len(tc.args) == 0 {
				args = append(args, "-seeds", "1")
			}
			c := clitest.Cmd{Dir: dir}
			if tc.path != "" {
				c.Env = []string{"PATH=" + tc.path}
			}
			r := runBin(t, c, tools.Path("sf-run"), args...)
			check := func(r result) {
				t.Helper()
				r.WantExit(t, 2)
				for _, w := range tc.want {
					if !strings.Contains(r.Stderr, w) {
						t.Errorf("stderr lacks %q\n%s", w, r)
					}
				}
				r.NoStackTrace(t)
			}
			check(r)
			if tc.build {
				check(runBin(t, c, tools.Path("sf-build"), "-c", "world.json"))
			}
		})
	}
}

// TestPrebuiltWasmNeedsNoToolchain: a world whose nodes are all prebuilt
// modules runs with no Go toolchain on PATH.
func TestPrebuiltWasmNeedsNoToolchain(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	wasm := filepath.Join(dir, "sleeper.wasm")
	cmd := exec.Command("go", "build", "-o", wasm, "./lib/engine/testdata/guests/sleeper")
	cmd.Dir = tools.Root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	clitest.WriteFile(t, filepath.Join(dir, "world.json"), []byte(`{"workload": {"name": "client", "wasm": "sleeper.wasm", "args": ["-for", "1s"]}}`))
	r := runBin(t, clitest.Cmd{Dir: dir, Env: []string{"PATH=" + t.TempDir()}}, tools.Path("sf-run"), "-c", "world.json", "-seeds", "1-2")
	r.WantExit(t, 0)
	if !strings.Contains(r.Stdout, "ok  2 seeds passed") {
		t.Errorf("want `ok  2 seeds passed`\n%s", r)
	}
	b := runBin(t, clitest.Cmd{Dir: dir, Env: []string{"PATH=" + t.TempDir()}}, tools.Path("sf-build"), "-c", "world.json")
	b.WantExit(t, 0)
}

// TestWorldLimitsInProcess: what the world file may and may not hold, through
// run in-process: a byte order mark is skipped, and a world of more nodes
// than the limit is refused with the count and the limit.
func TestWorldLimitsInProcess(t *testing.T) {
	tools.Need(t)
	sleeper := filepath.Join(tools.Root, "lib", "engine", "testdata", "guests", "sleeper")
	t.Run("byte order mark", func(t *testing.T) {
		dir := t.TempDir()
		clitest.WriteFile(t, filepath.Join(dir, "world.json"), []byte("\xef\xbb\xbf"+`{"workload": {"name": "client", "pkg": "`+sleeper+`", "args": ["-for", "1s"]}}`))
		t.Chdir(dir)
		r := clitest.Run(t, run, "", "sf-run", "-c", "world.json", "-seeds", "1")
		if r.Code != 0 || !strings.Contains(r.Stdout, "ok  1 seeds passed") {
			t.Errorf("want the world with a byte order mark to run\n%s", r)
		}
	})
	t.Run("too many nodes", func(t *testing.T) {
		dir := t.TempDir()
		var nodes []string
		for i := range 64 {
			nodes = append(nodes, fmt.Sprintf(`{"name": "n%d", "pkg": "%s"}`, i, sleeper))
		}
		world := `{"nodes": [` + strings.Join(nodes, ", ") + `], "workload": {"name": "client", "pkg": "` + sleeper + `"}}`
		clitest.WriteFile(t, filepath.Join(dir, "world.json"), []byte(world))
		t.Chdir(dir)
		r := clitest.Run(t, run, "", "sf-run", "-c", "world.json", "-seeds", "1")
		r.Want(t, 2, "sf-run: world.json: nodes: the world has 65 nodes (workloads and finally included), more than the limit of 64\n")
	})
}
