package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
		setup func(t *testing.T, dir string)
		want  []string // substrings of stderr
		short bool     // stderr is at most a few lines: the input is not echoed whole
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
			want:  []string{": workload (client): wasm: /", "/empty.wasm is not a wasip1 command: it exports no _start function (build it with GOOS=wasip1 GOARCH=wasm)\n"},
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
		// issue 30 item 9: a pkg that is not a main package says so.
		{
			name: "pkg that is not a main package",
			files: map[string]string{
				"world.json": `{"workload": {"name": "client", "pkg": "./lib"}}`,
				"lib/go.mod": "module example.com/lib\n\ngo 1.26\n",
				"lib/lib.go": "package lib\n\nfunc F() int { return 1 }\n",
			},
			build: true,
			want:  []string{"workload (client): pkg /", "/lib is not a main package: a node runs a program, so its pkg is a package main with a func main\n"},
		},
		// issue 30 item 6: a schedule is read as strictly as a world file.
		{
			name: "fault with no at",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": [{"kind": "crash", "node": "client", "until": "2s"}]}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[0].at: missing\n"},
		},
		{
			name: "fault with no kind",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": [{"at": "1s", "node": "client", "until": "2s"}]}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[0].kind: missing\n"},
		},
		{
			name: "duplicate key in a fault",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": [{"at": "1s", "at": "2s", "kind": "crash", "node": "client", "until": "3s"}]}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[0].at: duplicate key\n"},
		},
		{
			name: "duplicate key at the top",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "seed": 2, "faults": []}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: seed: duplicate key\n"},
		},
		{
			name: "duplicate key in a bare list",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `[{"at": "1s", "kind": "crash", "kind": "pause", "node": "client", "until": "3s"}]`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[0].kind: duplicate key\n"},
		},
		{
			name: "faults null",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": null}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults: expected a list of faults\n"},
		},
		{
			name: "partition with a node twice in a group",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": [{"at": "1s", "kind": "partition", "groups": [["server"], ["client", "client"]], "until": "2s"}]}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[0].groups[1]: \"client\" is named twice\n"},
		},
		{
			name: "partition with a node twice in a side",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": [{"at": "1s", "kind": "partition", "side": ["server", "server"], "until": "2s"}]}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[0].side: \"server\" is named twice\n"},
		},
		{
			// Issue 27: a node with "faults": false never takes a fault, and
			// a schedule that gives it one is refused with the fault's path.
			name: "crash of a node without faults",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `", "faults": false}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": [{"at": "1s", "kind": "crash", "node": "server", "until": "2s"}]}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"sf-run: -faults: faults.json: faults[0].node: \"server\" takes no faults (\"faults\": false in the world)\n"},
		},
		{
			name: "partition of a node without faults",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `", "faults": false}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `[{"at": "1s", "kind": "partition", "groups": [["client"], ["server"]], "until": "2s"}]`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[0].groups[1]: \"server\" takes no faults (\"faults\": false in the world)\n"},
		},
		{
			name: "clock jump without delta",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `[{"at": "1s", "kind": "clock_jump", "node": "server", "until": "1s"}]`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[0].delta: missing: a clock_jump moves the node's wall clock by delta, so without one it does nothing\n"},
		},
		{
			name: "slow clog without delay",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `[{"at": "1s", "kind": "clog", "from": "client", "to": "server", "mode": "slow", "until": "2s"}]`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[0].delay: missing: a slow clog adds delay to every message, so without one it does nothing\n"},
		},
		{
			name: "ops and budget that differ",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "ops": 5, "budget": 6, "faults": []}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: ops: 5, but budget says 6: they are the same cap, give one\n"},
		},
		{
			name: "crash of a node already down",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": [{"at": "1s", "kind": "crash", "node": "server", "until": "3s"}, {"at": "2s", "kind": "crash", "node": "server", "until": "4s"}]}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[1]: crashes server at 2s, while it is down from the crash of faults[0] (1s to 3s)\n"},
		},
		{
			name: "crash that an earlier-listed later crash falls in",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": [{"at": "2s", "kind": "crash", "node": "server", "until": "4s"}, {"at": "1s", "kind": "crash", "node": "server", "until": "3s"}]}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[1]: crashes server from 1s to 3s, while the crash of faults[0] at 2s would find it down\n"},
		},
		{
			name: "exact duplicate fault",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "faults": [{"at": "1s", "kind": "pause", "node": "server", "until": "2s"}, {"at": "1s", "kind": "pause", "node": "server", "until": "2s"}]}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: faults[1]: the same fault as faults[0]\n"},
		},
		{
			name: "bad branch key",
			files: map[string]string{
				"world.json":  `{"nodes": [{"name": "server", "pkg": "` + guest("sleeper") + `"}], "workload": {"name": "client", "pkg": "` + guest("sleeper") + `"}}`,
				"faults.json": `{"seed": 1, "branches": [{"at": "1s", "key": 1}, {"at": "1s", "key": "x"}], "faults": []}`,
			},
			args: []string{"-seed", "1", "-faults", "faults.json"},
			want: []string{"faults.json: branches[1].key: expected uint64, got string\n"},
		},
		// issue 30 item 1: what a world names is read only when it is a
		// regular file, and within a limit.
		{
			name:  "wasm is a device",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "wasm": "/dev/zero"}}`},
			build: true,
			want:  []string{"world.json: workload.wasm: module file /dev/zero is not a regular file (it is a character device) (resolved to /dev/zero)\n"},
		},
		{
			name:  "wasm is a named pipe",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "wasm": "pipe.wasm"}}`},
			setup: func(t *testing.T, dir string) {
				if err := syscall.Mkfifo(filepath.Join(dir, "pipe.wasm"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			build: true,
			want:  []string{"world.json: workload.wasm: module file pipe.wasm is not a regular file (it is a named pipe) (resolved to /"},
		},
		{
			name:  "wasm is a directory",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "wasm": "mod"}}`, "mod/x": "x"},
			build: true,
			want:  []string{"world.json: workload.wasm: module file mod is a directory (resolved to /"},
		},
		{
			name:  "wasm larger than a module may be",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "wasm": "big.wasm"}}`},
			setup: func(t *testing.T, dir string) { sparse(t, filepath.Join(dir, "big.wasm"), 3<<30) },
			build: true,
			want:  []string{"world.json: workload.wasm: module file big.wasm is larger than the limit of 256 MiB (resolved to /"},
		},
		{
			name: "seeded file is a device",
			files: map[string]string{
				"world.json": `{"workload": {"name": "client", "pkg": "` + guest("sleeper") + `", "files": {"x": "/dev/zero"}}}`,
			},
			build: true,
			want:  []string{"world.json: workload.files.x: host file /dev/zero is not a regular file (it is a character device) (resolved to /dev/zero)\n"},
		},
		{
			name: "seeded file is a named pipe",
			files: map[string]string{
				"world.json": `{"workload": {"name": "client", "pkg": "` + guest("sleeper") + `", "files": {"x": "fifo"}}}`,
			},
			setup: func(t *testing.T, dir string) {
				if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			build: true,
			want:  []string{"world.json: workload.files.x: host file fifo is not a regular file (it is a named pipe) (resolved to /"},
		},
		{
			name: "seeded file larger than the disk holds",
			files: map[string]string{
				"world.json": `{"workload": {"name": "client", "pkg": "` + guest("sleeper") + `", "files": {"x": "big"}}}`,
			},
			setup: func(t *testing.T, dir string) { sparse(t, filepath.Join(dir, "big"), 1<<30+1) },
			build: true,
			want:  []string{"world.json: workload.files.x: host file big is larger than the limit of 1 GiB (resolved to /"},
		},
		{
			name: "disk folder holds a sparse 3 GB file",
			files: map[string]string{
				"world.json":    `{"workload": {"name": "client", "pkg": "` + guest("sleeper") + `", "disk": "seed"}}`,
				"seed/small.db": "abc",
			},
			setup: func(t *testing.T, dir string) { sparse(t, filepath.Join(dir, "seed", "big.db"), 3<<30) },
			want:  []string{"world.json: node client: disk: /", "/seed/big.db is larger than the limit of 1 GiB"},
		},
		{
			name: "disk folder holds a named pipe",
			files: map[string]string{
				"world.json":    `{"workload": {"name": "client", "pkg": "` + guest("sleeper") + `", "disk": "seed"}}`,
				"seed/small.db": "abc",
			},
			setup: func(t *testing.T, dir string) {
				if err := syscall.Mkfifo(filepath.Join(dir, "seed", "pipe"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"world.json: node client: disk: /", "/seed/pipe is not a regular file (it is a named pipe)"},
		},
		{
			name: "disk folder holds a symbolic link",
			files: map[string]string{
				"world.json":    `{"workload": {"name": "client", "pkg": "` + guest("sleeper") + `", "disk": "seed"}}`,
				"seed/small.db": "abc",
			},
			setup: func(t *testing.T, dir string) {
				if err := os.Symlink("/etc/passwd", filepath.Join(dir, "seed", "passwd")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"world.json: node client: disk: /", "/seed/passwd is a symbolic link: put the file itself in the disk folder\n"},
		},
		{
			name: "disk folder and files together over the limit",
			files: map[string]string{
				"world.json": `{"workload": {"name": "client", "pkg": "` + guest("sleeper") + `", "disk": "seed", "files": {"y": "y.db"}}}`,
			},
			setup: func(t *testing.T, dir string) {
				sparse(t, filepath.Join(dir, "seed", "a.db"), 1<<29)
				sparse(t, filepath.Join(dir, "y.db"), 1<<29+1)
			},
			want: []string{"world.json: node client: files.y: /", "/y.db: with the 536870912 bytes before it, the node's disk would start with more than 1 GiB (the limit for its disk folder and files together)"},
		},
		// issue 30 item 8: a long key or value is not echoed whole, and a
		// long unknown key costs no edit distance.
		{
			name:  "5 MB unknown key",
			files: map[string]string{"world.json": `{"` + strings.Repeat("k", 5<<20) + `": 1, "workload": {"name": "client", "pkg": "."}}`},
			build: true,
			want:  []string{`world.json: ["` + strings.Repeat("k", 120) + `"... (5242880 bytes)]: unknown field` + "\n"},
			short: true,
		},
		{
			name:  "5 MB unknown key in a node",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "pkg": ".", "` + strings.Repeat("p", 5<<20) + `": 1}}`},
			build: true,
			want:  []string{`world.json: workload["` + strings.Repeat("p", 120) + `"... (5242880 bytes)]: unknown field` + "\n"},
			short: true,
		},
		{
			name:  "unknown key still gets its suggestion",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "pkg": "."}, "duraton": "1s"}`},
			want:  []string{`world.json: duraton: unknown field (did you mean "duration"?)` + "\n"},
		},
		{
			name:  "5 MB node name",
			files: map[string]string{"world.json": `{"workload": {"name": "` + strings.Repeat("n", 5<<20) + `", "pkg": "."}}`},
			build: true,
			want:  []string{`world.json: workload.name: node name "` + strings.Repeat("n", 120) + `"... (5242880 bytes) is longer than 63 characters` + "\n"},
			short: true,
		},
		{
			name:  "5 MB duration",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "pkg": "."}, "duration": "` + strings.Repeat("9", 5<<20) + `x"}`},
			build: true,
			want:  []string{`world.json: duration: invalid duration "` + strings.Repeat("9", 120) + `"... (5242881 bytes)` + "\n"},
			short: true,
		},
		{
			name:  "long -set path",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "pkg": "."}}`},
			args:  []string{"-seeds", "1", "-set", "faults." + strings.Repeat("s", 100000) + "=1"},
			want:  []string{"sf-run: -set faults." + strings.Repeat("s", 113) + "... (100009 bytes): unknown field\n"},
			short: true,
		},
		{
			name:  "long -profile",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "pkg": "."}}`},
			args:  []string{"-seeds", "1", "-profile", strings.Repeat("p", 100000)},
			want:  []string{"sf-run: world.json: -profile " + strings.Repeat("p", 120) + "... (100000 bytes): unknown profile: the world defines no profiles\n"},
			short: true,
		},
		{
			name:  "long -seeds",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "pkg": "."}}`},
			args:  []string{"-seeds", strings.Repeat("1,", 50000) + "x"},
			want:  []string{`sf-run: -seeds: seed list "` + strings.Repeat("1,", 60) + `"... (100001 bytes): "x" is not a seed`},
			short: true,
		},
		// issue 30 item 10: a NUL in an env value would cut it short in the
		// guest's environment block.
		{
			name:  "NUL in an env value",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "pkg": ".", "env": {"A": "x\u0000y"}}}`},
			build: true,
			want:  []string{`world.json: workload.env.A: the value holds a NUL byte, which cannot be passed in an environment` + "\n"},
		},
		{
			name:  "NUL in an env name",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "pkg": ".", "env": {"A\u0000B": "x"}}}`},
			build: true,
			want:  []string{`world.json: workload.env: variable name "A\x00B" holds a NUL byte` + "\n"},
		},
		{
			name:  "NUL in an argument",
			files: map[string]string{"world.json": `{"workload": {"name": "client", "pkg": ".", "args": ["-x", "a\u0000b"]}}`},
			build: true,
			want:  []string{`world.json: workload.args[1]: the argument holds a NUL byte, which cannot be passed to a program` + "\n"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range tc.files {
				clitest.WriteFile(t, filepath.Join(dir, name), []byte(content))
			}
			if tc.setup != nil {
				tc.setup(t, dir)
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
				if tc.short && len(r.Stderr) > 1000 {
					t.Errorf("stderr is %d bytes long, want a short message", len(r.Stderr))
				}
			}
			check(r)
			if tc.build {
				check(runBin(t, c, tools.Path("sf-build"), "-c", "world.json"))
			}
		})
	}
}

// sparse makes a file of size bytes that takes no room on disk.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
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
		if r.Code != 0 || !strings.Contains(r.Stdout, "ok  1 seed passed") {
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
