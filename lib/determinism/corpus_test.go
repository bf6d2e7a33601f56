package determinism

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

var (
	full   = flag.Bool("full", false, "compare the whole corpus, not only the quick part that make test runs")
	update = flag.Bool("update", false, "run the whole corpus and write testdata anew")
)

var tools clitest.Tools

func TestMain(m *testing.M) { os.Exit(tools.Main(m, "sf-run")) }

// fullSeeds are the seeds the corpus keeps for every world; quickSeeds those
// that make test compares, for the worlds whose builds are cheap.
const (
	fullSeeds  = "1-20"
	quickSeeds = "1-3"
)

// slowBuilds are the examples whose guests take many seconds to build and
// compile (a storage engine or a Raft or NATS server each), or whose seeds
// take seconds each (the campaign's logs, which write megabytes, and
// memberlist's five nodes gossiping for 70 virtual seconds): make test
// leaves them to make corpus, and to the tests of cmd/sf-run that run them
// anyway.
var slowBuilds = []string{"badgerkv", "etcdraft", "memberlist", "natsjs", "pebblekv", "raftkv", "rosedbwal", "tidwallwal"}

// world is one entry of the corpus: a world file, maybe with -set
// overrides that make a variant of it.
type world struct {
	example string   // the folder under examples/, or under testdata/worlds/
	file    string   // the world file's name in it
	set     []string // -set overrides
	// variant names the overrides in the corpus file's name.
	variant string
	// traces are the seeds whose whole replay trace the corpus keeps.
	traces []int
	// own is a world of testdata/worlds/, not of examples/.
	own bool
}

// variants reach fault kinds and settings that no example's own world turns
// on: every preset level, clogs, swizzles, slowdowns, pauses, clock jumps,
// UDP loss and duplication, mapped files written back early, reordered
// writes, preemption at loops and every N calls, a recorded history with
// its workload crashing mid-operation.
var variants = []world{
	{example: "kvlog", file: "seedfall.fixed.json", variant: "everything", set: []string{"faults.preset=everything"}},
	{example: "httpkv", file: "seedfall.fixed.json", variant: "high_availability", set: []string{"faults.preset=high_availability"}},
	{example: "raftkv", file: "seedfall.json", variant: "high_availability", set: []string{"faults.preset=high_availability"}},
	{example: "bboltkv", file: "seedfall.json", variant: "mmap", set: []string{
		"faults.mmap_early_writeback=0.2", "faults.reorder_writes=true", "faults.fs_model=page_independent"}},
	{example: "race", file: "seedfall.random.json", variant: "loops", set: []string{"preempt.loops=true"}},
	{example: "race", file: "seedfall.json", variant: "calls", set: []string{"preempt.strategy=calls"}},
	{example: "udp", file: "seedfall.json", own: true},
	{example: "history", file: "seedfall.json", own: true},
}

// traced are the worlds whose whole trace the corpus keeps for three seeds:
// a crash on a disk, a Raft cluster on the net overlay under partitions, and
// a storage engine on mapped files.
var traced = map[string][]int{
	"kvlog/seedfall.json":    {1, 2, 3},
	"raftkv/seedfall.json":   {1, 2, 3},
	"badgerkv/seedfall.json": {1, 2, 3},
}

// corpus lists every world file of examples/ and the variants, sorted.
func corpus(t *testing.T) []world {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(tools.Root, "examples", "*", "seedfall*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no world files under examples/: %v", err)
	}
	var ws []world
	for _, f := range files {
		w := world{example: filepath.Base(filepath.Dir(f)), file: filepath.Base(f)}
		w.traces = traced[w.example+"/"+w.file]
		ws = append(ws, w)
	}
	ws = append(ws, variants...)
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].name() < ws[j].name() })
	return ws
}

// name is the world's name in the corpus: example.file-stem, plus +variant.
func (w world) name() string {
	n := w.example + "." + strings.TrimSuffix(w.file, ".json")
	if w.variant != "" {
		n += "+" + w.variant
	}
	return n
}

func (w world) quick() bool { return !slices.Contains(slowBuilds, w.example) }

// line is what the corpus keeps of one seed record.
type line struct {
	Seed      uint64 `json:"seed"`
	Status    string `json:"status"`
	Class     string `json:"class,omitempty"`
	AtNs      int64  `json:"at_ns"`
	Steps     uint64 `json:"steps"`
	HostCalls uint64 `json:"host_calls"`
	Faults    int    `json:"faults"`
	Hash      string `json:"determinism_hash"`
}

// TestCorpus runs the corpus's worlds through sf-run and compares each seed
// with what the corpus holds. make test runs the quick part; -full runs
// all of it and -update writes it anew. The worlds of one example run one
// after the other in one folder, which builds and compiles the example's
// guests once; the examples run side by side.
func TestCorpus(t *testing.T) {
	tools.Need(t)
	if raceDetector {
		// The race detector would watch only this harness: the runs are
		// those of the sf-run binary, built without it, and make test's
		// run without -race compares them already.
		t.Skip("the corpus runs the sf-run binary, which -race does not instrument; the run without -race compares it")
	}
	all := *full || *update
	byExample := map[string][]world{}
	var examples []string
	for _, w := range corpus(t) {
		if !all && !w.quick() {
			continue
		}
		if byExample[w.example] == nil {
			examples = append(examples, w.example)
		}
		byExample[w.example] = append(byExample[w.example], w)
	}
	if *update {
		// After every example's subtest, parallel ones included.
		t.Cleanup(func() { pruneStale(t, corpus(t)) })
	}
	for _, ex := range examples {
		t.Run(ex, func(t *testing.T) {
			t.Parallel()
			dir := copyExample(t, byExample[ex][0])
			for _, w := range byExample[ex] {
				t.Run(w.name(), func(t *testing.T) { corpusWorld(t, dir, w, all) })
			}
		})
	}
}

// corpusWorld runs one world of the corpus in dir, the folder of its
// example, and compares it with the corpus or, with -update, records it.
func corpusWorld(t *testing.T, dir string, w world, all bool) {
	seeds := quickSeeds
	if all {
		seeds = fullSeeds
	}
	got := sweep(t, dir, w, seeds)
	path := filepath.Join("testdata", w.name()+".jsonl")
	if *update {
		writeLines(t, path, got)
	} else {
		compareLines(t, path, got)
	}
	traces := w.traces
	if !all && len(traces) > 0 {
		traces = traces[:1]
	}
	for _, seed := range traces {
		got := replayTrace(t, dir, w, seed)
		path := filepath.Join("testdata", fmt.Sprintf("%s.seed-%d.trace", w.name(), seed))
		if *update {
			clitest.WriteFile(t, path, got)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v: run make corpus-update to record the corpus", err)
		}
		if got != string(want) {
			t.Errorf("seed %d's trace is not the one in %s: the run changed\n%s", seed, path, firstDiff(string(want), got))
		}
	}
}

// copyExample copies every world file of w's folder into one folder of the
// test binary, so the folder's guests are built and compiled once for all
// of them, and the artifacts of a failing seed land there.
func copyExample(t *testing.T, w world) string {
	t.Helper()
	src := filepath.Join(tools.Root, "examples", w.example)
	if w.own {
		src = filepath.Join(tools.Root, "lib", "determinism", "testdata", "worlds", w.example)
	}
	files, err := filepath.Glob(filepath.Join(src, "seedfall*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no world files in %s: %v", src, err)
	}
	dir := filepath.Join(tools.Dir, "corpus", w.example)
	for _, f := range files {
		clitest.CopyWorld(t, f, filepath.Join(dir, filepath.Base(f)))
	}
	return dir
}

// runTimeout bounds one sf-run of the corpus: a whole world's twenty seeds
// with its build, on a loaded machine.
const runTimeout = 15 * time.Minute

func args(w world, more ...string) []string {
	a := []string{"-c", w.file}
	for _, s := range w.set {
		a = append(a, "-set", s)
	}
	return append(a, more...)
}

// sweep runs seeds of w and returns the corpus lines of its seed records.
func sweep(t *testing.T, dir string, w world, seeds string) []line {
	t.Helper()
	r := clitest.Exec(t, clitest.Cmd{Dir: dir, Name: "sf-run", Timeout: runTimeout},
		append([]string{tools.Path("sf-run")}, args(w, "-seeds", seeds, "-j", "2", "-json")...)...)
	if r.Code != 0 && r.Code != 1 {
		t.Fatalf("want exit status 0 or 1\n%s", r)
	}
	var out []line
	for i, s := range strings.Split(strings.TrimRight(r.Stdout, "\n"), "\n") {
		var rec struct {
			Kind string `json:"kind"`
			line
		}
		if err := json.Unmarshal([]byte(s), &rec); err != nil {
			t.Fatalf("stdout line %d: %v\n%s", i+1, err, r)
		}
		if rec.Kind == "seed" {
			out = append(out, rec.line)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no seed records\n%s", r)
	}
	return out
}

// realTime matches what a replay's report says of real time, the one thing
// in it that changes from run to run.
var realTime = regexp.MustCompile(`, [^,()]+ real\)`)

// replayTrace runs sf-run -seed on w and returns its report with the real
// time taken out.
func replayTrace(t *testing.T, dir string, w world, seed int) string {
	t.Helper()
	r := clitest.Exec(t, clitest.Cmd{Dir: dir, Name: "sf-run", Timeout: runTimeout, StdoutFile: true},
		append([]string{tools.Path("sf-run")}, args(w, "-seed", fmt.Sprint(seed))...)...)
	if r.Code != 0 && r.Code != 1 {
		t.Fatalf("want exit status 0 or 1\n%s", r)
	}
	return realTime.ReplaceAllString(r.Stdout, ")")
}

func writeLines(t *testing.T, path string, lines []line) {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	clitest.WriteFile(t, path, b.String())
}

func compareLines(t *testing.T, path string, got []line) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run make corpus-update to record the corpus", err)
	}
	want := map[uint64]line{}
	for i, s := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		var l line
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		want[l.Seed] = l
	}
	for _, g := range got {
		w, ok := want[g.Seed]
		switch {
		case !ok:
			t.Errorf("%s has no seed %d: run make corpus-update to record the corpus", path, g.Seed)
		case g != w:
			t.Errorf("seed %d is not the run %s holds: the run changed\n  want %+v\n  got  %+v", g.Seed, path, w, g)
		}
	}
}

// firstDiff shows where two traces part.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, w, g)
		}
	}
	return "the same lines"
}

// pruneStale removes corpus files of worlds that no longer exist.
func pruneStale(t *testing.T, ws []world) {
	t.Helper()
	keep := map[string]bool{}
	for _, w := range ws {
		keep[w.name()+".jsonl"] = true
		for _, s := range w.traces {
			keep[fmt.Sprintf("%s.seed-%d.trace", w.name(), s)] = true
		}
	}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && !keep[e.Name()] {
			if err := os.Remove(filepath.Join("testdata", e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCorpusIsWhole fails when a world of examples/ has no corpus file, so
// that a new example cannot slip past the judge.
func TestCorpusIsWhole(t *testing.T) {
	tools.Need(t)
	for _, w := range corpus(t) {
		if _, err := os.Stat(filepath.Join("testdata", w.name()+".jsonl")); err != nil {
			t.Errorf("%v: run make corpus-update to record the corpus", err)
		}
		for _, s := range w.traces {
			if _, err := os.Stat(filepath.Join("testdata", fmt.Sprintf("%s.seed-%d.trace", w.name(), s))); err != nil {
				t.Errorf("%v: run make corpus-update to record the corpus", err)
			}
		}
	}
}
