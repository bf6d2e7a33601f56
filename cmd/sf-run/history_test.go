package main

// History tests: workloads in lib/sweep/testdata/guests record operations
// with sim.Put, sim.Get, sim.Invoke and sim.Txn against in-memory data, with
// no server, and the real sf-run checks them at the end of each run. The
// stored history files are then re-checked by the real sf-check, which must
// reach the same verdict.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// historyGuest is the absolute directory of a history guest program.
func historyGuest(name string) string {
	return filepath.Join(tools.Root, "lib", "sweep", "testdata", "guests", name)
}

// sfCheckBin is the real sf-check, which TestMain builds with sf-run.
func sfCheckBin(t *testing.T) string {
	t.Helper()
	tools.Need(t)
	return tools.Path("sf-check")
}

// writeHistoryWorld writes a world file whose only program is the workload
// guest with args, checked against model; extra adds top-level fields.
func writeHistoryWorld(t *testing.T, path, guest string, args []string, model string, extra map[string]any) {
	t.Helper()
	w := map[string]any{
		"workload": map[string]any{"name": "client", "pkg": historyGuest(guest), "args": append([]string{}, args...)},
		"checker":  map[string]any{"model": model},
		"duration": "30s",
	}
	for k, v := range extra {
		w[k] = v
	}
	clitest.WriteJSON(t, path, w)
}

// historyEvent is one line of a history file, as the spec shows it.
type historyEvent struct {
	Index   *int64          `json:"index"`
	Type    string          `json:"type"`
	Process *int64          `json:"process"`
	F       string          `json:"f"`
	Key     string          `json:"key"`
	Value   json.RawMessage `json:"value"`
	Time    *int64          `json:"time"`
	ID      *int64          `json:"id"`
}

// historyFile is what a history file holds, read and checked for the shape
// the spec gives: every line a whole event with index, type, process, f,
// value, time and id; indices 0, 1, 2, ...; times that never go back; every
// completion after its own invocation, at most once.
type historyFile struct {
	events []historyEvent
	open   map[int64]historyEvent // invocations without a completion, by id
	ops    int                    // invocations
}

func readHistoryFile(t *testing.T, path string) historyFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := historyFile{open: map[int64]historyEvent{}}
	invoked := map[int64]bool{}
	var lastTime int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var e historyEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s:%d: %v: %q", path, line, err, sc.Text())
		}
		if e.Index == nil || e.Process == nil || e.Time == nil || e.ID == nil || e.F == "" || e.Value == nil {
			t.Fatalf("%s:%d: an event lacks index, process, f, value, time or id: %q", path, line, sc.Text())
		}
		if *e.Index != int64(line-1) {
			t.Errorf("%s:%d: index %d, want %d", path, line, *e.Index, line-1)
		}
		if *e.Time < lastTime {
			t.Errorf("%s:%d: time %d goes back from %d", path, line, *e.Time, lastTime)
		}
		lastTime = *e.Time
		switch e.Type {
		case "invoke":
			if invoked[*e.ID] {
				t.Errorf("%s:%d: id %d invoked twice", path, line, *e.ID)
			}
			invoked[*e.ID] = true
			h.open[*e.ID] = e
			h.ops++
		case "ok", "info", "fail":
			if _, ok := h.open[*e.ID]; !ok {
				t.Errorf("%s:%d: a completion of id %d, which is not open", path, line, *e.ID)
			}
			delete(h.open, *e.ID)
		default:
			t.Errorf("%s:%d: type %q is not invoke, ok, info or fail", path, line, e.Type)
		}
		h.events = append(h.events, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(h.events) == 0 {
		t.Fatalf("%s is empty", path)
	}
	return h
}

// checkVerdict is the part of sf-check -json the tests compare.
type checkVerdict struct {
	Verdict    string `json:"verdict"`
	Passed     bool   `json:"passed"`
	Class      string `json:"class"`
	Operations int    `json:"operations"`
	Summary    string `json:"summary"`
	Anomalies  []struct {
		Kind, Example string
	} `json:"anomalies"`
	ExitStatus int `json:"exit_status"`
}

// sfCheck runs the real sf-check -json on a history file and decodes its
// verdict. The timeline of a violation goes to a temporary file, so the
// one sf-run wrote stays as it was.
func sfCheck(t *testing.T, history, model string) (result, checkVerdict) {
	t.Helper()
	r := runBin(t, clitest.Cmd{Dir: filepath.Dir(history)}, sfCheckBin(t),
		"-history", history, "-model", model, "-json", "-timeline", filepath.Join(t.TempDir(), "timeline.html"))
	var v checkVerdict
	if r.Code == 0 || r.Code == 1 {
		if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
			t.Fatalf("sf-check -json printed no verdict record: %v\n%s", err, r)
		}
	}
	return r, v
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// seedArtifacts lists the seed-* files of dir's .seedfall.
func seedArtifacts(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, ".seedfall", "*", "seed-*"))
	for i, f := range files {
		files[i] = filepath.Base(f)
	}
	return files
}

// TestHistoryModels: per model, a workload that records a correct history
// passes, and the same workload with a planted bug fails the seed with the
// model's class, the anomaly in the trace and the history files next to the
// world; sf-check on those files agrees.
func TestHistoryModels(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	for _, tc := range []struct {
		name, guest, bug, model string
		class                   string
		anomaly                 string // the start of the anomaly's trace line
		summary                 string // a piece of the failure message
		timeline                bool   // a linearizability failure writes a timeline
		bugOnly                 bool   // the correct world is another case's
	}{
		{"kv", "register", "-stale", "kv", "linearizability",
			`nonlinearizable: key "k0": `, `is not linearizable (model kv): key "k0"`, true, false},
		// A put recorded as Failed did not happen, so reading its value is
		// illegal; the correct world's Unknown and Failed completions are not.
		{"kv failed put read", "register", "-phantom", "kv", "linearizability",
			`nonlinearizable: key "k1": `, `is not linearizable (model kv): key "k1"`, true, true},
		{"queue", "queue", "-dup", "queue", "linearizability",
			`nonlinearizable: key "q": `, `is not linearizable (model queue): key "q"`, true, false},
		{"list-append", "txn", "-read-skew", "list-append", "isolation",
			"G-single: T", "transactions is not serializable: G-single", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeHistoryWorld(t, filepath.Join(dir, "ok.json"), tc.guest, nil, tc.model, nil)
			writeHistoryWorld(t, filepath.Join(dir, "bug.json"), tc.guest, []string{tc.bug}, tc.model, nil)

			t.Run("correct history passes", func(t *testing.T) {
				if tc.bugOnly {
					t.Skip("the same correct world as another case")
				}
				r := sfRun(t, dir, "-c", "ok.json", "-seeds", "1-3", "-json")
				r.WantExit(t, 0)
				recs := jsonRecords(t, r)
				for _, rec := range recs[1 : len(recs)-1] {
					if rec["status"] != "pass" || rec["history_check"] != "ok" {
						t.Errorf("seed %v: status %v, history_check %v (%v); want pass and ok", rec["seed"], rec["status"], rec["history_check"], rec["message"])
					}
				}
				// Only failures and replays write histories, not a passing sweep.
				if arts := seedArtifacts(dir); len(arts) != 0 {
					t.Errorf("a passing sweep wrote %v", arts)
				}
			})

			t.Run("passing replay writes the history", func(t *testing.T) {
				if tc.bugOnly {
					t.Skip("the same correct world as another case")
				}
				r := sfRun(t, dir, "-c", "ok.json", "-seed", "2")
				r.WantExit(t, 0)
				if !strings.HasPrefix(r.Stdout, "ok  seed 2 passed at t=") {
					t.Errorf("the replay did not pass\n%s", r)
				}
				hist := artifact(t, dir, "seed-2.history.jsonl")
				if !exists(hist) {
					t.Fatalf("a passing replay wrote no %s; .seedfall holds %v\n%s", hist, seedArtifacts(dir), r)
				}
				for _, name := range []string{"seed-2.history.html", "seed-2.trace.log"} {
					if exists(artifact(t, dir, name)) {
						t.Errorf("a passing replay wrote %s", name)
					}
				}
				h := readHistoryFile(t, hist)
				if h.ops < 10 || len(h.open) != 0 {
					t.Errorf("%s: %d operations, %d never completed; want at least 10, all completed", hist, h.ops, len(h.open))
				}
				// Round trip: sf-check agrees that it passes.
				c, v := sfCheck(t, hist, tc.model)
				c.WantExit(t, 0)
				if v.Verdict != "ok" || !v.Passed || v.Class != tc.class {
					t.Errorf("sf-check: verdict %q, passed %v, class %q; want ok, true, %s\n%s", v.Verdict, v.Passed, v.Class, tc.class, c)
				}
			})

			t.Run("planted bug fails", func(t *testing.T) {
				r := sfRun(t, dir, "-c", "bug.json", "-seeds", "1-2", "-json")
				r.WantExit(t, 1)
				recs := jsonRecords(t, r)
				for _, rec := range recs[1 : len(recs)-1] {
					seed := fmt.Sprint(rec["seed"])
					msg, _ := rec["message"].(string)
					if rec["status"] != "fail" || rec["class"] != tc.class || rec["history_check"] != "illegal" || !strings.Contains(msg, tc.summary) {
						t.Errorf("seed %s: status %v, class %v, history_check %v, message %q; want fail, %s, illegal, with %q",
							seed, rec["status"], rec["class"], rec["history_check"], msg, tc.class, tc.summary)
						continue
					}
					arts, _ := rec["artifacts"].(map[string]any)
					hist := artifact(t, dir, "seed-"+seed+".history.jsonl")
					html := artifact(t, dir, "seed-"+seed+".history.html")
					if arts["history"] != ".seedfall/bug/seed-"+seed+".history.jsonl" || !exists(hist) {
						t.Errorf("seed %s: artifacts %v; want the history .seedfall/bug/seed-%s.history.jsonl, written", seed, arts, seed)
						continue
					}
					if tc.timeline {
						if arts["timeline"] != ".seedfall/bug/seed-"+seed+".history.html" || !exists(html) {
							t.Errorf("seed %s: artifacts %v; want the timeline .seedfall/bug/seed-%s.history.html, written", seed, arts, seed)
						} else if page := clitest.ReadFile(t, html); !strings.Contains(page, "<html") {
							t.Errorf("%s is not an HTML page", html)
						}
					} else if arts["timeline"] != nil || exists(html) {
						t.Errorf("seed %s: an isolation failure wrote a timeline: %v", seed, arts)
					}
					trace := clitest.ReadFile(t, artifact(t, dir, "seed-"+seed+".trace.log"))
					if !strings.Contains(trace, "  "+tc.anomaly) {
						t.Errorf("seed %s: the trace lacks a line starting %q\n%s", seed, tc.anomaly, clitest.Tail(trace, 10))
					}
					if !strings.Contains(trace, "FAIL  "+msg+"\n") {
						t.Errorf("seed %s: the trace does not end in FAIL  %s\n%s", seed, msg, clitest.Tail(trace, 10))
					}
					readHistoryFile(t, hist)

					// Round trip: sf-check finds the same: the same class,
					// summary and anomalies, each as the trace prints it.
					c, v := sfCheck(t, hist, tc.model)
					c.WantExit(t, 1)
					if v.Verdict != "illegal" || v.Passed || v.Class != tc.class || v.Summary != msg {
						t.Errorf("seed %s: sf-check: verdict %q, class %q, summary %q; the run failed with class %s and %q\n%s",
							seed, v.Verdict, v.Class, v.Summary, tc.class, msg, c)
					}
					if len(v.Anomalies) == 0 {
						t.Errorf("seed %s: sf-check lists no anomaly\n%s", seed, c)
					}
					for _, a := range v.Anomalies {
						if line := a.Kind + ": " + a.Example; !strings.Contains(trace, "  "+line+"\n") {
							t.Errorf("seed %s: sf-check finds %q, which is not a line of the run's trace\n%s", seed, line, clitest.Tail(trace, 10))
						}
					}
				}
			})

			t.Run("failing replay", func(t *testing.T) {
				removeArtifacts(t, dir)
				r := sfRun(t, dir, "-c", "bug.json", "-seed", "1")
				r.WantExit(t, 1)
				if !strings.Contains(r.Stdout, "  "+tc.anomaly) || !strings.Contains(failureMessage(t, r.Stdout), tc.summary) {
					t.Errorf("the replay does not show the anomaly %q and the failure %q\n%s", tc.anomaly, tc.summary, r)
				}
				if !exists(artifact(t, dir, "seed-1.history.jsonl")) {
					t.Errorf("the failing replay wrote no history; .seedfall holds %v", seedArtifacts(dir))
				}
				if got := exists(artifact(t, dir, "seed-1.history.html")); got != tc.timeline {
					t.Errorf("the failing replay wrote a timeline: %v, want %v", got, tc.timeline)
				}
			})
		})
	}
}

// TestHistoryOperationNotInModel: a workload that records an operation its
// model does not have (a put, checked as a queue) fails the seed as an
// assert with the spec's message, so a typo cannot weaken the check. sf-check
// rejects the same history as bad input.
func TestHistoryOperationNotInModel(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	const want = `history (model queue): operation "put" is not one of dequeue, enqueue`
	dir := t.TempDir()
	writeHistoryWorld(t, filepath.Join(dir, "typo.json"), "queue", []string{"-typo"}, "queue", nil)
	r := sfRun(t, dir, "-c", "typo.json", "-seed", "1", "-json")
	recs := jsonRecords(t, r)
	if len(recs) != 3 {
		t.Fatalf("want start, seed and summary records\n%s", r)
	}
	rec := recs[1]
	if rec["status"] != "fail" || rec["class"] != "assert" || rec["message"] != want || r.Code != 1 {
		t.Errorf("seed 1: status %v, class %v, message %q, exit status %d; want fail, assert, %q, 1\n%s",
			rec["status"], rec["class"], rec["message"], r.Code, want, r)
	}
	if !strings.Contains(r.Stderr, "FAIL  "+want+"\n") {
		t.Errorf("the trace lacks FAIL  %s\n%s", want, r)
	}

	// The history is written either way (a failure, or a passing replay).
	hist := artifact(t, dir, "seed-1.history.jsonl")
	if !exists(hist) {
		t.Fatalf("no %s; .seedfall holds %v", hist, seedArtifacts(dir))
	}
	c, _ := sfCheck(t, hist, "queue")
	c.WantExit(t, 2)
	if !strings.Contains(c.Stderr, want) {
		t.Errorf("sf-check's error lacks %q\n%s", want, c)
	}
}

var (
	diedRE       = regexp.MustCompile(`(?m)^\s+\S+  (client#\d+) died with (\d+) operations? in flight, (?:their|its) outcome is unknown$`)
	neverDoneRE  = regexp.MustCompile(`(?m)^\s+\S+  history: (\d+) operations never completed; their outcome is unknown$`)
	crashFaultRE = regexp.MustCompile(`(?m)^\s+\S+  fault crash (client#\d+), restart at `)
)

// TestHistoryCrashInFlight: the workload crashes (include_workload) while an
// operation is in flight and restarts with nothing saved. Its open
// operations stay open in the history, the trace says how many died with
// each instance, and the check stays sound: an open write may take effect
// at any later time, so no seed fails on linearizability because of one.
//
// The slowput guest has one operation in flight at a time, so every crash
// that lands in an operation leaves exactly one open. Seeds are picked from
// 1-30 by what the sweep and the replays report.
func TestHistoryCrashInFlight(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	writeHistoryWorld(t, filepath.Join(dir, "crash.json"), "slowput", nil, "kv", map[string]any{
		"faults": map[string]any{"include_workload": true, "crash_per_sec": 0.5, "restart_after": []string{"10ms", "100ms"}},
	})
	sweep := sfRun(t, dir, "-c", "crash.json", "-seeds", "1-30", "-json")
	sweep.WantExit(t, 0)
	recs := jsonRecords(t, sweep)
	var candidates []string
	for _, rec := range recs[1 : len(recs)-1] {
		if rec["status"] != "pass" || rec["history_check"] != "ok" {
			t.Errorf("seed %v: status %v, class %v, history_check %v, message %q; open operations must not fail the check",
				rec["seed"], rec["status"], rec["class"], rec["history_check"], rec["message"])
		}
		if f, _ := rec["faults"].(float64); f >= 2 {
			candidates = append(candidates, fmt.Sprint(rec["seed"]))
		}
	}
	if len(candidates) == 0 {
		t.Fatalf("no seed of 1-30 crashed the workload twice\n%s", sweep)
	}

	// Replay the first seed whose crashes leave at least two operations
	// open, one of them a put.
	var (
		seed string
		r    result
		h    historyFile
	)
	for _, s := range candidates {
		removeArtifacts(t, dir)
		r = sfRun(t, dir, "-c", "crash.json", "-seed", s)
		r.WantExit(t, 0)
		h = readHistoryFile(t, artifact(t, dir, "seed-"+s+".history.jsonl"))
		puts := 0
		for _, e := range h.open {
			if e.F == "put" {
				puts++
			}
		}
		if len(h.open) >= 2 && puts >= 1 && len(diedRE.FindAllString(r.Stdout, -1)) >= 2 {
			seed = s
			break
		}
	}
	if seed == "" {
		t.Fatalf("no seed of %v left two operations open, one a put, in two crashes", candidates)
	}
	t.Logf("seed %s: %d operations, %d open", seed, h.ops, len(h.open))

	trace := traceSection(t, r.Stdout)
	crashes := crashFaultRE.FindAllStringSubmatch(trace, -1)
	died := diedRE.FindAllStringSubmatch(trace, -1)
	if len(died) > len(crashes) {
		t.Errorf("%d lines say an instance died with operations in flight, but only %d crashes\n%s", len(died), len(crashes), trace)
	}
	sum := 0
	for _, d := range died {
		n, _ := strconv.Atoi(d[2])
		sum += n
		// One operation at a time: an instance dies with at most one open.
		if n != 1 {
			t.Errorf("trace says %q: slowput has one operation in flight at a time, so want 1", strings.TrimSpace(d[0]))
		}
	}
	m := neverDoneRE.FindStringSubmatch(trace)
	if m == nil {
		t.Fatalf("the trace lacks `history: N operations never completed; their outcome is unknown`\n%s", trace)
	}
	if never, _ := strconv.Atoi(m[1]); never != len(h.open) || sum != len(h.open) {
		t.Errorf("the history file has %d operations without a completion; the trace says %s never completed, and the died-with lines add up to %d\n%s",
			len(h.open), m[1], sum, trace)
	}
	if !strings.Contains(r.Stdout, "ok  seed "+seed+" passed") {
		t.Errorf("the replay did not pass\n%s", r)
	}

	// Round trip: sf-check, which treats the open operations the same way,
	// passes the history too.
	c, v := sfCheck(t, artifact(t, dir, "seed-"+seed+".history.jsonl"), "kv")
	c.WantExit(t, 0)
	if v.Verdict != "ok" || v.Operations != h.ops {
		t.Errorf("sf-check: verdict %q over %d operations, want ok over %d\n%s", v.Verdict, v.Operations, h.ops, c)
	}
}
