package main

// Guest failure tests: tiny programs in lib/engine/testdata/guests, run by
// the real sf-run, each checked for the class and node the report names.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

// guestsDir returns a directory shared by the guest tests for their world
// files, so each guest is built and compiled once per test process. The
// tests read what sf-run prints, never the artifacts, which parallel tests
// may overwrite.
func guestsDir(t *testing.T) string {
	t.Helper()
	return tools.Shared(t, "guests", func(string) error { return nil })
}

// guestPkg is the absolute directory of a guest program.
func guestPkg(name string) string {
	return filepath.Join(tools.Root, "lib", "engine", "testdata", "guests", name)
}

// node is a node or workload of a world file.
type node struct {
	Name string            `json:"name"`
	Pkg  string            `json:"pkg"`
	Args []string          `json:"args,omitempty"`
	Env  map[string]string `json:"env,omitempty"`
}

// world is a world file for a guest test.
type world struct {
	Nodes     []node `json:"nodes,omitempty"`
	Workload  node   `json:"workload"`
	Duration  string `json:"duration,omitempty"`
	Watchdog  string `json:"watchdog,omitempty"`
	Supervise bool   `json:"supervise,omitempty"`
}

// sleeper is the trivial workload: it sleeps a few virtual seconds and
// exits 0.
func sleeper() node {
	return node{Name: "sleeper", Pkg: guestPkg("sleeper"), Args: []string{"-for", "3s"}}
}

// guestRun is one seed of a guest world: the seed record, the report and
// trace (on stderr with -json) and how the command ended.
type guestRun struct {
	result
	rec    map[string]any
	report string
}

// runGuestWorld writes w as <name>.json in the shared guest directory and
// replays seed 1 with -json.
func runGuestWorld(t *testing.T, name string, w world, o clitest.Cmd) guestRun {
	t.Helper()
	dir := guestsDir(t)
	clitest.WriteJSON(t, filepath.Join(dir, name+".json"), w)
	o.Dir = dir
	r := runBin(t, o, tools.Path("sf-run"), "-c", name+".json", "-seed", "1", "-json")
	g := guestRun{result: r, report: r.Stderr}
	if r.Code == 2 {
		t.Fatalf("sf-run could not run the world\n%s", r)
	}
	recs := jsonRecords(t, r)
	if len(recs) != 3 {
		t.Fatalf("want start, seed and summary records\n%s", r)
	}
	g.rec = recs[1]
	return g
}

// wantFailure checks the class and node of a failed seed.
func (g guestRun) wantFailure(t *testing.T, class, node string) {
	t.Helper()
	if g.rec["status"] != "fail" {
		t.Fatalf("seed: status %v, want fail with class %s at %s\n%s", g.rec["status"], class, node, g.result)
	}
	if g.rec["class"] != class || g.rec["node"] != node {
		t.Errorf("seed: status %v, class %v, node %v, message %q; want fail, %s, %s\n%s",
			g.rec["status"], g.rec["class"], g.rec["node"], g.rec["message"], class, node, g.result)
	}
	if g.Code != 1 {
		t.Errorf("exit status %d, want 1", g.Code)
	}
	if !strings.Contains(g.report, "FAIL seed 1 at t=") {
		t.Errorf("the report has no FAIL header\n%s", g.result)
	}
}

// wantPass checks that the seed passed.
func (g guestRun) wantPass(t *testing.T) {
	t.Helper()
	if g.Code != 0 || g.rec["status"] != "pass" {
		t.Fatalf("seed: status %v, class %v, message %q; want pass (exit 0)\n%s", g.rec["status"], g.rec["class"], g.rec["message"], g.result)
	}
}

func message(g guestRun) string { s, _ := g.rec["message"].(string); return s }

// stderrTail returns the "last lines of X's stderr" block of a report.
func stderrTail(report, inst string) string {
	_, after, ok := strings.Cut(report, "\nlast lines of "+inst+"'s stderr:\n")
	if !ok {
		return ""
	}
	block, _, _ := strings.Cut(after, "\n\n")
	return block
}

// spinWorld is a node that busy-loops without system calls, with a 1s
// watchdog.
func spinWorld() world {
	return world{Nodes: []node{{Name: "spinner", Pkg: guestPkg("spin")}}, Workload: sleeper(), Watchdog: "1s"}
}

// spinTimeout is how long a spin test waits for sf-run: a 1s watchdog plus
// building, compiling and a grace period, with room for a loaded machine.
const spinTimeout = 45 * time.Second

// TestGuestSpinWatchdog: a node that never yields is stopped by the
// watchdog, reported as class watchdog naming it, and sf-run exits.
func TestGuestSpinWatchdog(t *testing.T) {
	t.Parallel()
	g := runGuestWorld(t, "spin", spinWorld(), clitest.Cmd{Timeout: spinTimeout})
	g.wantFailure(t, "watchdog", "spinner#1")
	if m := message(g); !strings.Contains(m, "spinner#1") || !strings.Contains(m, "watchdog") {
		t.Errorf("message %q should name spinner#1 and the watchdog", m)
	}
}

// TestGuestSpinWatchdogUnderGC: the same with the host's garbage collector
// running all the time (GOGC=1). A collection must stop every goroutine,
// and one running compiled wasm in a loop cannot be stopped, so this shows
// whether the watchdog still fires when a collection starts during the spin.
func TestGuestSpinWatchdogUnderGC(t *testing.T) {
	t.Parallel()
	g := runGuestWorld(t, "spin-gc", spinWorld(), clitest.Cmd{Timeout: spinTimeout, Env: []string{"GOGC=1"}})
	g.wantFailure(t, "watchdog", "spinner#1")
}

// TestGuestSpinSweep: several seeds of a spinning world in one process. The
// spinner of each seed must not outlive its seed (or stall later seeds).
func TestGuestSpinSweep(t *testing.T) {
	t.Parallel()
	dir := guestsDir(t)
	clitest.WriteJSON(t, filepath.Join(dir, "spin-sweep.json"), spinWorld())
	r := runBin(t, clitest.Cmd{Dir: dir, Timeout: spinTimeout}, tools.Path("sf-run"), "-c", "spin-sweep.json", "-seeds", "1-3", "-j", "1", "-json")
	r.WantExit(t, 1)
	recs := jsonRecords(t, r)
	for _, rec := range recs[1 : len(recs)-1] {
		if rec["class"] != "watchdog" || rec["node"] != "spinner#1" {
			t.Errorf("seed %v: class %v node %v, want watchdog spinner#1", rec["seed"], rec["class"], rec["node"])
		}
	}
}

// TestGuestPanic: a node that panics fails the seed as class panic, with the
// panic text in the message and the tail of its stderr in the report.
func TestGuestPanic(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		args      []string
		supervise bool
	}{
		{"plain", nil, false},
		// The panic line is followed by a stack trace longer than the tail of
		// stderr that the engine keeps.
		{"deep stack", []string{"-depth", "30"}, false},
		// The program logged a line starting with "panic: " before it panicked.
		{"decoy log line", []string{"-decoy"}, false},
		// Supervision restarts a node that exits with an error, never one that
		// panics: a panic is a bug, and fails the seed.
		{"supervised", nil, true},
		{"supervised deep stack", []string{"-depth", "30"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := world{Nodes: []node{{Name: "server", Pkg: guestPkg("panic"), Args: tc.args}}, Workload: sleeper(), Supervise: tc.supervise}
			name := "panic-" + strings.ReplaceAll(tc.name, " ", "-")
			g := runGuestWorld(t, name, w, clitest.Cmd{})
			g.wantFailure(t, "panic", "server#1")
			if m := message(g); !strings.Contains(m, "planted panic in the panic guest") {
				t.Errorf("message %q lacks the panic text", m)
			}
			tailText := stderrTail(g.report, "server#1")
			if !strings.Contains(tailText, "panic: planted panic in the panic guest") {
				t.Errorf("the report's stderr tail lacks the panic line:\n%s", tailText)
			}
			if tc.args == nil && !strings.Contains(tailText, "panic guest: last words before the panic") {
				t.Errorf("the report's stderr tail lacks what the node wrote before panicking:\n%s", tailText)
			}
		})
	}
}

// TestGuestExit: a workload that exits 3 fails the seed as class exit; a
// node that exits 3 fails it too, unless it is supervised, when it is
// restarted as the next instance.
func TestGuestExit(t *testing.T) {
	t.Parallel()
	t.Run("workload", func(t *testing.T) {
		t.Parallel()
		g := runGuestWorld(t, "exit-workload", world{Workload: node{Name: "client", Pkg: guestPkg("exit3")}}, clitest.Cmd{})
		g.wantFailure(t, "exit", "client#1")
		if m := message(g); !strings.Contains(m, "client#1") || !strings.Contains(m, "status 3") {
			t.Errorf("message %q should name client#1 and status 3", m)
		}
		if !strings.Contains(stderrTail(g.report, "client#1"), "exit3: exiting with status 3") {
			t.Errorf("the report lacks the tail of client#1's stderr\n%s", g.result)
		}
	})
	t.Run("node", func(t *testing.T) {
		t.Parallel()
		g := runGuestWorld(t, "exit-node", world{Nodes: []node{{Name: "server", Pkg: guestPkg("exit3")}}, Workload: sleeper()}, clitest.Cmd{})
		g.wantFailure(t, "exit", "server#1")
	})
	t.Run("supervised node", func(t *testing.T) {
		t.Parallel()
		w := world{Nodes: []node{{Name: "server", Pkg: guestPkg("exit3"), Args: []string{"-after", "500ms"}}}, Workload: sleeper(), Supervise: true}
		g := runGuestWorld(t, "exit-supervised", w, clitest.Cmd{})
		g.wantPass(t)
		for _, want := range []string{"server#1 exited with status 3", "restart server#2", "server#2: exit3: exiting with status 3", "sleeper#1 exited 0"} {
			if !strings.Contains(g.report, want) {
				t.Errorf("trace lacks %q\n%s", want, g.result)
			}
		}
	})
}

// TestGuestOOM: a node that allocates until its memory cap is reported as
// class oom.
func TestGuestOOM(t *testing.T) {
	t.Parallel()
	g := runGuestWorld(t, "oom", world{Nodes: []node{{Name: "hog", Pkg: guestPkg("oom")}}, Workload: sleeper()}, clitest.Cmd{})
	g.wantFailure(t, "oom", "hog#1")
	if m := message(g); !strings.Contains(m, "out of memory") {
		t.Errorf("message %q should say out of memory", m)
	}
}

// TestGuestEscape: a node that opens host paths gets errors, never host
// data.
func TestGuestEscape(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret.txt")
	const secretText = "SECRET-HOST-CONTENT-7f3a9c"
	clitest.WriteFile(t, secret, []byte(secretText+"\n"))
	w := world{Nodes: []node{{Name: "intruder", Pkg: guestPkg("escape"), Args: []string{secret}}}, Workload: sleeper()}
	g := runGuestWorld(t, "escape", w, clitest.Cmd{})
	g.wantPass(t)
	attempts := regexp.MustCompile(`(?m)intruder#1: escape: (ReadFile|Open) .*$`).FindAllString(g.report, -1)
	if len(attempts) != 5 {
		t.Errorf("want 5 attempts in the trace, got %d\n%s", len(attempts), g.result)
	}
	for _, a := range attempts {
		if !strings.Contains(a, ": error: ") {
			t.Errorf("an attempt did not fail: %s", a)
		}
	}
	passwd, _ := os.ReadFile("/etc/passwd")
	first, _, _ := strings.Cut(string(passwd), "\n")
	for _, leak := range []string{secretText, "root:x:0:0", first} {
		if leak != "" && strings.Contains(g.Stdout+g.Stderr, leak) {
			t.Errorf("the output holds host data %q\n%s", leak, g.result)
		}
	}
	if !strings.Contains(g.report, "escape: every attempt failed") {
		t.Errorf("the guest did not finish its attempts\n%s", g.result)
	}
}

// TestGuestFiles: plain os calls work on the simulated disk the way they do
// on a POSIX file system.
func TestGuestFiles(t *testing.T) {
	t.Parallel()
	g := runGuestWorld(t, "files", world{Workload: node{Name: "files", Pkg: guestPkg("files")}}, clitest.Cmd{})
	if fail := regexp.MustCompile(`files: FAIL .*`).FindString(g.report); fail != "" {
		t.Errorf("%s", fail)
	}
	g.wantPass(t)
	if !strings.Contains(g.report, "files: ok: every check passed") {
		t.Errorf("the guest did not finish\n%s", g.result)
	}
}

// TestGuestClock: the clocks are virtual: a fixed epoch, sleeps that take
// exactly their time, and far less real time than virtual time.
func TestGuestClock(t *testing.T) {
	t.Parallel()
	g := runGuestWorld(t, "clock", world{Workload: node{Name: "clock", Pkg: guestPkg("clock")}}, clitest.Cmd{})
	if fail := regexp.MustCompile(`clock: FAIL .*`).FindString(g.report); fail != "" {
		t.Errorf("%s", fail)
	}
	g.wantPass(t)
	for _, want := range []string{"clock: start 2023-11-14T22:13:20Z", "clock: ok: slept 10s, now 2023-11-14T22:13:30Z"} {
		if !strings.Contains(g.report, want) {
			t.Errorf("trace lacks %q\n%s", want, g.result)
		}
	}
	at, _ := g.rec["at_ns"].(float64)
	realNs, _ := g.rec["real_ns"].(float64)
	if at < 10e9 {
		t.Errorf("the run ended at %v ns of virtual time, want at least 10s", at)
	}
	if realNs <= 0 || realNs >= 5e9 {
		t.Errorf("10 virtual seconds took %v ns of real time, want under 5s", realNs)
	}
}

// TestGuestEnv: a guest sees SEEDFALL=1, SEEDFALL_NODE, its args and the
// world file's env.
func TestGuestEnv(t *testing.T) {
	t.Parallel()
	w := world{
		Nodes: []node{{
			Name: "envnode", Pkg: guestPkg("env"),
			Args: []string{"-node", "envnode", "-want-args", "x,y z,", "-want-env", "COLOR=blue", "-want-env", "EMPTY=", "-want-env", "WITH_EQUALS=a=b", "x", "y z", ""},
			Env:  map[string]string{"COLOR": "blue", "EMPTY": "", "WITH_EQUALS": "a=b"},
		}},
		Workload: node{Name: "client", Pkg: guestPkg("env"), Args: []string{"-node", "client", "-want-args", "", "-sleep", "1s"}},
	}
	g := runGuestWorld(t, "env", w, clitest.Cmd{})
	if fail := regexp.MustCompile(`env: FAIL .*`).FindString(g.report); fail != "" {
		t.Errorf("%s", fail)
	}
	g.wantPass(t)
	for _, want := range []string{"envnode#1: env: ok: node envnode, 3 args, 3 env checks", "client#1: env: ok: node client, 0 args"} {
		if !strings.Contains(g.report, want) {
			t.Errorf("trace lacks %q\n%s", want, g.result)
		}
	}
	// The guest's environment is only what the world gives it, plus the
	// variable that routes the Antithesis SDK's output to the engine: nothing of
	// the host's leaks in.
	if !strings.Contains(g.report, `environ ["SEEDFALL=1" "SEEDFALL_NODE=envnode" "ANTITHESIS_SDK_LOCAL_OUTPUT=/.seedfall-antithesis.jsonl" "COLOR=blue" "EMPTY=" "WITH_EQUALS=a=b"]`) {
		t.Errorf("envnode's environment is not exactly the world's\n%s", g.result)
	}
}
