package main

// CLI scenario tests: they build the real sf-faults and sf-run once per test
// process and run them as a user would on a copy of the kvlog example (the
// planted bug: the server acknowledges before fsync), in a temporary
// directory, so nothing is written into the repository.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
	"github.com/sf-dst/sf/lib/schedule"
)

// tools are sf-faults and sf-run, built once per test process.
var tools clitest.Tools

const cmdTimeout = 3 * time.Minute

func TestMain(m *testing.M) { os.Exit(tools.Main(m, "sf-faults", "sf-run")) }

type result = clitest.Result

// runBin runs argv in dir with stdin, argv[0] by its short name so that the
// lines it prints read as a user's would, and the tools first on PATH.
func runBin(t *testing.T, dir, stdin string, argv ...string) result {
	t.Helper()
	c := clitest.Cmd{Dir: dir, Stdin: stdin, Env: []string{tools.OnPath()}, Name: filepath.Base(argv[0]), Timeout: cmdTimeout}
	return clitest.Exec(t, c, argv...)
}

// sfFaults runs sf-faults on the kvlog world in dir.
func sfFaults(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runBin(t, dir, "", append([]string{tools.Path("sf-faults"), "-c", "seedfall.json"}, args...)...)
}

// inProcess runs sf-faults's run in dir, in this process, as sfFaults runs
// the binary.
func inProcess(t *testing.T, dir string, args ...string) result {
	t.Helper()
	t.Chdir(dir)
	return clitest.Run(t, run, "", append([]string{"sf-faults"}, args...)...)
}

// kvlogDir returns a directory holding a copy of examples/kvlog/seedfall.json
// with its package paths made absolute. The tests share it, so the example
// is built once; they do not run in parallel.
func kvlogDir(t *testing.T) string {
	t.Helper()
	return tools.Example(t, "kvlog", "seedfall.json")
}

func readSchedule(t *testing.T, path string) *schedule.Schedule {
	t.Helper()
	s, err := schedule.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// artifact is where sf-run and sf-faults keep seed N's schedule.
func artifact(seed int) string {
	return filepath.Join(".seedfall", "seedfall", fmt.Sprintf("seed-%d.faults.json", seed))
}

// seed10 is the schedule seed 10 draws on its own: three crashes, the last
// of which loses an acknowledged write.
const seed10 = `{
  "seed": 10,
  "config": "seedfall.json",
  "duration": "1.642779141s",
  "shrunk_from": 5,
  "shrink_runs": 8,
  "faults": [
    {"at": "100ms", "kind": "crash", "node": "server", "until": "200ms"},
    {"at": "500ms", "kind": "crash", "node": "server", "until": "600ms"},
    {"at": "900ms", "kind": "pause", "node": "client", "until": "1s"}
  ]
}`

var replayRE = regexp.MustCompile(`(?m)^replay: (.*)$`)

// replay runs the replay line the output printed, through a shell, and
// returns what it did.
func replay(t *testing.T, dir string, r result) result {
	t.Helper()
	m := replayRE.FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("no replay line:\n%s", r)
	}
	return runBin(t, dir, "", "sh", "-c", m[1])
}

func TestOwnFaults(t *testing.T) {
	dir := kvlogDir(t)
	os.Remove(filepath.Join(dir, artifact(10)))
	r := sfFaults(t, dir, "-seed", "10")
	r.WantExitClean(t, 0)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	want := `seed 10, 3 faults from a run of the seed (it fails at 1.642779141s), wrote ` + artifact(10)
	if lines[0] != want {
		t.Fatalf("header\n  %s\nwant\n  %s\n%s", lines[0], want, r)
	}
	if len(lines) != 6 || !strings.HasPrefix(lines[1], "  1  ") || !strings.Contains(lines[1], "crash server, restart at") ||
		lines[4] != "duration 1.6s" {
		t.Fatalf("listing:\n%s", r.Stdout)
	}
	if want := "replay: sf-run -c seedfall.json -seed 10 -faults " + artifact(10); lines[5] != want {
		t.Fatalf("replay line\n  %s\nwant\n  %s", lines[5], want)
	}
	s := readSchedule(t, filepath.Join(dir, artifact(10)))
	if s.Seed != 10 || s.Config != "seedfall.json" || len(s.Faults) != 3 || s.Duration != 1642779141 {
		t.Fatalf("written schedule: %+v", s)
	}
	// The seed's own faults replay its failure.
	replay(t, dir, r).WantExitClean(t, 1)

	// Now the artifact exists: sf-faults lists it and writes nothing.
	before, _ := os.ReadFile(filepath.Join(dir, artifact(10)))
	os.Chtimes(filepath.Join(dir, artifact(10)), time.Unix(1, 0), time.Unix(1, 0))
	r = sfFaults(t, dir, "-seed", "10")
	r.WantExitClean(t, 0)
	if want := "seed 10, 3 faults from " + artifact(10) + ", not written\n"; !strings.HasPrefix(r.Stdout, want) {
		t.Fatalf("header, want %q:\n%s", want, r)
	}
	after, _ := os.ReadFile(filepath.Join(dir, artifact(10)))
	fi, _ := os.Stat(filepath.Join(dir, artifact(10)))
	if !bytes.Equal(before, after) || fi.ModTime().Unix() != 1 {
		t.Fatal("listing without an edit rewrote the artifact")
	}

	// Removing every fault makes the replay pass; the failure needs them.
	r = sfFaults(t, dir, "-seed", "10", "-remove", "1", "-remove", "2", "-remove", "3", "-out", "none.json")
	r.WantExitClean(t, 0)
	if want := "seed 10, 0 faults from " + artifact(10) + " (removed 3), wrote none.json\nduration 1.6s\nreplay: sf-run -c seedfall.json -seed 10 -faults none.json\n"; r.Stdout != want {
		t.Fatalf("stdout\n%s\nwant\n%s", r.Stdout, want)
	}
	replay(t, dir, r).WantExitClean(t, 0)

	// An edit without -out goes back to the artifact it came from.
	r = sfFaults(t, dir, "-seed", "10", "-remove", "3")
	r.WantExitClean(t, 0)
	if !strings.HasPrefix(r.Stdout, "seed 10, 2 faults from "+artifact(10)+" (removed 1), wrote "+artifact(10)+"\n") {
		t.Fatalf("header:\n%s", r)
	}
	if s := readSchedule(t, filepath.Join(dir, artifact(10))); len(s.Faults) != 2 {
		t.Fatalf("artifact after -remove 3: %+v", s)
	}
}

// edit writes seed10 (or the given schedule) to in.json, runs sf-faults on
// it with args and returns the result and the schedule written to out.json.
func edit(t *testing.T, input string, args ...string) (result, *schedule.Schedule) {
	t.Helper()
	dir := kvlogDir(t)
	in, out := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
	clitest.WriteFile(t, in, input)
	os.Remove(out)
	r := sfFaults(t, dir, append([]string{"-seed", "10", "-faults", "in.json", "-out", "out.json"}, args...)...)
	r.WantExitClean(t, 0)
	return r, readSchedule(t, out)
}

func ms(n int64) schedule.Dur { return schedule.Dur(n * int64(time.Millisecond)) }

func TestEdits(t *testing.T) {
	crash := func(at, until int64) schedule.Fault {
		return schedule.Fault{At: ms(at), Kind: "crash", Node: "server", Until: ms(until)}
	}
	pause := schedule.Fault{At: ms(900), Kind: "pause", Node: "client", Until: ms(1000)}
	positional := `{"seed": 10, "faults": [
		{"at": "300ms", "kind": "write_eio", "node": "server", "op": 5},
		{"at": "700ms", "kind": "crash_io", "node": "server", "op": 40, "until": "800ms"}]}`
	tests := []struct {
		name   string
		input  string
		args   []string
		want   []schedule.Fault
		header string
	}{
		{"remove", seed10, []string{"-remove", "2"}, []schedule.Fault{crash(100, 200), pause},
			"seed 10, 2 faults from in.json (removed 1), wrote out.json"},
		{"shift a timed fault", seed10, []string{"-shift", "2=-50ms"}, []schedule.Fault{crash(100, 200), crash(450, 550), pause},
			"seed 10, 3 faults from in.json (shifted 1), wrote out.json"},
		{"shift past another fault", seed10, []string{"-shift", "1=+500ms"}, []schedule.Fault{crash(500, 600), crash(600, 700), pause},
			"seed 10, 3 faults from in.json (shifted 1), wrote out.json"},
		{"shift positional faults", positional, []string{"-shift", "1=+2", "-shift", "2=-1"}, []schedule.Fault{
			{At: ms(300), Kind: "write_eio", Node: "server", Op: 7},
			{At: ms(700), Kind: "crash_io", Node: "server", Op: 39, Until: ms(800)}},
			"seed 10, 2 faults from in.json (shifted 2), wrote out.json"},
		{"add", seed10, []string{"-add", `{"at":"1.2s","kind":"partition","side":["server"],"until":"1.3s"}`}, []schedule.Fault{
			crash(100, 200), crash(500, 600), pause, {At: ms(1200), Kind: "partition", Side: []string{"server"}, Until: ms(1300)}},
			"seed 10, 4 faults from in.json (added 1), wrote out.json"},
		{"positions are those before the edit", seed10, []string{"-remove", "1", "-shift", "2=+10ms"}, []schedule.Fault{crash(510, 610), pause},
			"seed 10, 2 faults from in.json (removed 1, shifted 1), wrote out.json"},
		{"every edit at once", seed10, []string{"-shift", "3=-800ms", "-remove", "2", "-add", `{"at":"0s","kind":"net_reset","node":"client"}`},
			[]schedule.Fault{{Kind: "net_reset", Node: "client"}, crash(100, 200), {At: ms(100), Kind: "pause", Node: "client", Until: ms(200)}},
			"seed 10, 3 faults from in.json (removed 1, shifted 1, added 1), wrote out.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, s := edit(t, tt.input, tt.args...)
			if header, _, _ := strings.Cut(r.Stdout, "\n"); header != tt.header {
				t.Fatalf("header\n  %s\nwant\n  %s", header, tt.header)
			}
			if fmt.Sprint(s.Faults) != fmt.Sprint(tt.want) {
				t.Fatalf("faults\n  %+v\nwant\n  %+v", s.Faults, tt.want)
			}
			if got := strings.Count(r.Stdout, "\n"); got != len(tt.want)+3 {
				t.Fatalf("want a header, %d faults, the duration and the replay line:\n%s", len(tt.want), r.Stdout)
			}
			if s.ShrunkFrom != 0 || s.ShrinkRuns != 0 {
				t.Fatalf("an edited schedule keeps shrunk_from %d, shrink_runs %d", s.ShrunkFrom, s.ShrinkRuns)
			}
			if s.Seed != 10 {
				t.Fatalf("seed %d", s.Seed)
			}
		})
	}
}

func TestEditKeepsTheRest(t *testing.T) {
	in := `{"seed": 10, "config": "seedfall.json", "profile": "", "set": ["faults.crash_per_sec=0.5"], "duration": "1.5s",
		"budget": 12, "branches": [{"at": "50ms", "key": 7, "stream": "sched"}], "shrunk_from": 4, "shrink_runs": 9,
		"faults": [{"at": "100ms", "kind": "crash", "node": "server", "until": "200ms"}]}`
	_, s := edit(t, in, "-shift", "1=+1ms")
	want := &schedule.Schedule{Seed: 10, Config: "seedfall.json", Set: []string{"faults.crash_per_sec=0.5"}, Duration: ms(1500),
		Budget: 12, Branches: []schedule.Branch{{At: ms(50), Key: 7, Stream: "sched"}},
		Faults: []schedule.Fault{{At: ms(101), Kind: "crash", Node: "server", Until: ms(201)}}}
	if fmt.Sprintf("%+v", s) != fmt.Sprintf("%+v", want) {
		t.Fatalf("written\n  %+v\nwant\n  %+v", s, want)
	}
}

func TestWriteBack(t *testing.T) {
	dir := kvlogDir(t)
	clitest.WriteFile(t, filepath.Join(dir, "back.json"), seed10)
	r := sfFaults(t, dir, "-seed", "10", "-faults", "back.json", "-remove", "1")
	r.WantExitClean(t, 0)
	if !strings.HasPrefix(r.Stdout, "seed 10, 2 faults from back.json (removed 1), wrote back.json\n") {
		t.Fatalf("header:\n%s", r)
	}
	if s := readSchedule(t, filepath.Join(dir, "back.json")); len(s.Faults) != 2 {
		t.Fatalf("back.json after -remove 1: %+v", s)
	}
	// Without an edit, a file is listed and checked, never rewritten.
	clitest.WriteFile(t, filepath.Join(dir, "back.json"), seed10)
	r = sfFaults(t, dir, "-seed", "10", "-faults", "back.json")
	r.WantExitClean(t, 0)
	if !strings.HasPrefix(r.Stdout, "seed 10, 3 faults from back.json, not written\n") || !strings.HasSuffix(r.Stdout, "replay: sf-run -c seedfall.json -seed 10 -faults back.json\n") {
		t.Fatalf("stdout:\n%s", r)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "back.json")); string(got) != seed10 {
		t.Fatal("listing rewrote the file")
	}
}

func TestStdin(t *testing.T) {
	dir := kvlogDir(t)
	os.Remove(filepath.Join(dir, "from-stdin.json"))
	r := runBin(t, dir, seed10, tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", "10", "-faults", "-", "-remove", "3", "-out", "from-stdin.json")
	r.WantExitClean(t, 0)
	if !strings.HasPrefix(r.Stdout, "seed 10, 2 faults from <stdin> (removed 1), wrote from-stdin.json\n") {
		t.Fatalf("header:\n%s", r)
	}
	if s := readSchedule(t, filepath.Join(dir, "from-stdin.json")); len(s.Faults) != 2 {
		t.Fatalf("written: %+v", s)
	}

	// An edit of stdin has nowhere to go back to.
	r = runBin(t, dir, seed10, tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", "10", "-faults", "-", "-remove", "3")
	r.WantExitClean(t, 2)
	if want := "sf-faults: -faults -: the schedule came from stdin, so there is no file to write the edit back to: give -out FILE (or -json to print it)\n"; r.Stderr != want {
		t.Fatalf("stderr\n%s\nwant\n%s", r.Stderr, want)
	}

	// With -json the result goes to stdout, the listing to stderr, and the
	// result pipes into sf-run.
	r = runBin(t, dir, seed10, tools.Path("sf-faults"), "-c", "seedfall.json", "-seed", "10", "-faults", "-", "-remove", "1", "-remove", "2", "-remove", "3", "-json")
	r.WantExitClean(t, 0)
	s, err := schedule.Parse("stdout", []byte(r.Stdout))
	if err != nil || len(s.Faults) != 0 || s.Duration != 1642779141 {
		t.Fatalf("stdout is not the edited schedule (%v):\n%s", err, r)
	}
	if !strings.HasPrefix(r.Stderr, "seed 10, 0 faults from <stdin> (removed 3), not written\n") ||
		!strings.HasSuffix(r.Stderr, "replay: sf-run -c seedfall.json -seed 10 -faults -\n") {
		t.Fatalf("stderr:\n%s", r.Stderr)
	}
	runBin(t, dir, r.Stdout, tools.Path("sf-run"), "-c", "seedfall.json", "-seed", "10", "-faults", "-").WantExitClean(t, 0)
}

// TestReplayLineKeepsProfileAndSet runs the printed replay line, which
// carries -set (quoted for the shell), and gets the failure back.
func TestReplayLineKeepsProfileAndSet(t *testing.T) {
	dir := kvlogDir(t)
	clitest.WriteFile(t, filepath.Join(dir, "set.json"), seed10)
	set := `latency=["1ms","5ms"]`
	r := sfFaults(t, dir, "-seed", "10", "-set", set, "-faults", "set.json", "-out", "set.out.json")
	r.WantExitClean(t, 0)
	want := `replay: sf-run -c seedfall.json -seed 10 -set 'latency=["1ms","5ms"]' -faults set.out.json`
	if !strings.Contains(r.Stdout, want+"\n") {
		t.Fatalf("want %s in:\n%s", want, r)
	}
	// The override sets the world's own latency, so the replay ends as a
	// plain replay of the same schedule does.
	rr := replay(t, dir, r)
	plain := runBin(t, dir, "", tools.Path("sf-run"), "-c", "seedfall.json", "-seed", "10", "-faults", "set.out.json")
	if (rr.Code != 0 && rr.Code != 1) || rr.Code != plain.Code || strings.Contains(rr.Stderr, "sf-run:") {
		t.Fatalf("the replay line did not replay:\n%s\nwithout -set:\n%s", rr, plain)
	}
}

func TestErrors(t *testing.T) {
	fault := func(f string) string { return `{"seed": 10, "duration": "1.5s", "faults": [` + f + `]}` }
	crash := `{"at": "100ms", "kind": "crash", "node": "server", "until": "200ms"}`
	tests := []struct {
		name  string
		input string
		args  []string
		want  string
	}{
		{"unknown kind", fault(`{"at": "1s", "kind": "earthquake", "node": "server"}`), nil,
			`bad.json: faults[0].kind: "earthquake" is not a fault kind (bitrot, buggify, `},
		{"unknown node", fault(`{"at": "1s", "kind": "crash", "node": "sever", "until": "1.2s"}`), nil,
			`bad.json: faults[0].node: "sever" is not a node of this world (server, client)`},
		{"unknown node after an edit", fault(crash), []string{"-add", `{"at":"1s","kind":"pause","node":"sever","until":"1.2s"}`},
			`the edited schedule: faults[1].node: "sever" is not a node of this world (server, client)`},
		{"negative at", fault(`{"at": "-1ms", "kind": "net_reset", "node": "server"}`), nil, `bad.json: faults[0].at: negative`},
		{"at past the duration", fault(`{"at": "2s", "kind": "crash", "node": "server", "until": "2.1s"}`), nil,
			`bad.json: faults[0].at: 2s is after the end of the run (1.5s)`},
		{"shifted past the duration", fault(crash), []string{"-shift", "1=+1.5s"},
			`the edited schedule: faults[0].at: 1.6s is after the end of the run (1.5s)`},
		{"until before at", fault(`{"at": "1s", "kind": "pause", "node": "server", "until": "900ms"}`), nil,
			`bad.json: faults[0].until: 900ms is before at (1s)`},
		{"side and groups", fault(`{"at": "1s", "kind": "partition", "side": ["server"], "groups": [["server"], ["client"]], "until": "1.2s"}`), nil,
			`bad.json: faults[0]: a partition has side or groups, not both`},
		{"clog mode", fault(`{"at": "1s", "kind": "clog", "from": "server", "to": "client", "mode": "hold", "until": "1.2s"}`), nil,
			`bad.json: faults[0].mode: "hold" is not one of stop, slow, jam`},
		{"clog dir", fault(`{"at": "1s", "kind": "clog", "node": "server", "dir": "up", "mode": "stop", "until": "1.2s"}`), nil,
			`bad.json: faults[0].dir: "up" is not one of in, out, both`},
		{"slow factor", fault(`{"at": "1s", "kind": "slow", "node": "server", "factor": 0.5, "until": "1.2s"}`), nil,
			`bad.json: faults[0].factor: 0.5 is below 1`},
		{"op below 1", fault(`{"at": "1s", "kind": "write_eio", "node": "server"}`), nil,
			`bad.json: faults[0].op: a write_eio fault fires at a numbered disk op, from 1`},
		{"buggify without a site", fault(`{"at": "1s", "kind": "buggify", "node": "server", "op": 3}`), nil,
			`bad.json: faults[0].site: missing: a buggify fault names its site`},
		{"unknown field in the file", fault(`{"at": "1s", "kind": "crash", "nod": "server"}`), nil, `-faults: bad.json: faults[0].nod: unknown field`},
		{"malformed file", `{"faults": [`, nil, `-faults: bad.json: line 1, column 12: unexpected end of JSON input`},
		{"missing file", "", []string{"-faults", "nothing.json"}, `-faults: open nothing.json: no such file or directory`},
		{"unknown field in -add", fault(crash), []string{"-add", `{"at":"1s","kind":"pause","node":"server","until":"1.2s","for":"1s"}`},
			`-add {"at":"1s","kind":"pause","node":"server","until":"1.2s","for":"1s"}: for: unknown field`},
		{"unknown kind in -add", fault(crash), []string{"-add", `{"at":"1s","kind":"flood","node":"server"}`},
			`-add {"at":"1s","kind":"flood","node":"server"}: kind: "flood" is not a fault kind (bitrot, `},
		{"malformed -add", fault(crash), []string{"-add", `{"at":"1s",`}, `-add {"at":"1s",: unexpected EOF`},
		{"remove a fault that is not there", fault(crash), []string{"-remove", "4"}, `-remove 4: there is no fault 4 (the schedule has 1)`},
		{"remove what is not a position", fault(crash), []string{"-remove", "first"}, `-remove first: "first" is not a position: faults are numbered from 1 as listed`},
		{"shift a fault that is not there", fault(crash), []string{"-shift", "4=+1ms"}, `-shift 4=+1ms: there is no fault 4 (the schedule has 1)`},
		{"shift without an amount", fault(crash), []string{"-shift", "1"}, `-shift 1: expected N=AMOUNT, such as 2=-50ms for a fault in time or 1=+2 for one at a disk op`},
		{"shift before the start", fault(crash), []string{"-shift", "1=-1s"}, `-shift 1=-1s: fault 1 (crash): at 100ms moved by -1s is -900ms, before the run starts`},
		{"shift a disk fault by time", fault(`{"at": "1s", "kind": "write_eio", "node": "server", "op": 3}`), []string{"-shift", "1=+5ms"},
			`-shift 1=+5ms: fault 1 (write_eio) fires at a numbered disk op: shift it by a count such as +2 or -1, not "+5ms"`},
		{"shift a disk fault below op 1", fault(`{"at": "1s", "kind": "crash_io", "node": "server", "op": 3, "until": "1.1s"}`), []string{"-shift", "1=-3"},
			`-shift 1=-3: fault 1 (crash_io): op 3 moved by -3 is 0, and disk ops count from 1`},
		{"remove and shift one fault", fault(crash), []string{"-remove", "1", "-shift", "1=+1ms"},
			`-shift 1=+1ms: fault 1 is removed already: remove it once, and do not shift it`},
	}
	dir := kvlogDir(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clitest.WriteFile(t, filepath.Join(dir, "bad.json"), tt.input)
			os.Remove(filepath.Join(dir, "bad.out.json"))
			args := append([]string{"-c", "seedfall.json", "-seed", "10", "-faults", "bad.json", "-out", "bad.out.json"}, tt.args...)
			r := inProcess(t, dir, args...)
			r.WantExitClean(t, 2)
			// The first test in a fresh directory also builds the world.
			stderr := regexp.MustCompile(`(?m)^built .*\n`).ReplaceAllString(r.Stderr, "")
			if !strings.HasPrefix(stderr, "sf-faults: "+tt.want) {
				t.Fatalf("stderr\n  %s\nwant\n  sf-faults: %s", r.Stderr, tt.want)
			}
			if r.Stdout != "" {
				t.Fatalf("an error printed on stdout:\n%s", r)
			}
			if _, err := os.Stat(filepath.Join(dir, "bad.out.json")); err == nil {
				t.Fatal("a refused schedule was written")
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	dir := kvlogDir(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no seed", nil, "sf-faults: -seed N is required: a schedule belongs to one seed (see sf-faults -h)\n"},
		{"bad seed", []string{"-seed", "ten"}, "sf-faults: -seed: \"ten\" is not a seed (a whole number) (see sf-faults -h)\n"},
		{"stray argument", []string{"-seed", "1", "extra"}, "sf-faults: unexpected argument \"extra\" (see sf-faults -h)\n"},
		{"unknown flag", []string{"-seed", "1", "-drop", "1"}, "sf-faults: unknown flag -drop (see sf-faults -h)\n"},
		{"missing world", []string{"-c", "nowhere.json", "-seed", "1"}, "sf-faults: nowhere.json: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := inProcess(t, dir, tt.args...)
			r.WantExitClean(t, 2)
			if !strings.HasPrefix(r.Stderr, tt.want) && !strings.Contains(r.Stderr, tt.want) {
				t.Fatalf("stderr\n%s\nwant\n%s", r.Stderr, tt.want)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	if tools.Skip != "" {
		t.Skip(tools.Skip)
	}
	r := inProcess(t, tools.Dir, "-h")
	r.WantExitClean(t, 0)
	for _, s := range []string{"Sf-faults lists, edits and checks", "-shift N=AMOUNT", "-add JSON", "-remove N", "-faults FILE", "-out FILE"} {
		if !strings.Contains(r.Stdout, s) {
			t.Errorf("-h lacks %q:\n%s", s, r.Stdout)
		}
	}
}
