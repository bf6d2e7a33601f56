package main

// Scenario tests of issue 10: interrupted sweeps, sibling worlds in one
// folder, repro lines that keep -profile, -set and -faults, replays that
// never overwrite their schedule, strict schedules, branches and budgets.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestIssue10InterruptedSweep: SIGINT or SIGTERM ends a long sweep with a
// summary of the seeds that finished, exit 130, and no half-written files.
func TestIssue10InterruptedSweep(t *testing.T) {
	dir := kvlogDir(t)
	for _, tc := range []struct {
		name, world string
		sig         syscall.Signal
	}{
		{"SIGINT", "seedfall.fixed.json", syscall.SIGINT},
		// The buggy world writes artifacts while it is stopped.
		{"SIGTERM", "seedfall.json", syscall.SIGTERM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(tools.Path("sf-run"), "-c", tc.world, "-seeds", "1-100000", "-json", "-j", "2")
			cmd.Args[0] = "sf-run"
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			timer := time.AfterFunc(cmdTimeout, func() { cmd.Process.Kill() })
			defer timer.Stop()
			var lines []string
			sc := bufio.NewScanner(out)
			sc.Buffer(make([]byte, 1<<20), 1<<24)
			seeds, signalled := 0, false
			for sc.Scan() {
				lines = append(lines, sc.Text())
				if strings.Contains(sc.Text(), `"kind":"seed"`) {
					seeds++
				}
				if seeds >= 5 && !signalled {
					if err := cmd.Process.Signal(tc.sig); err != nil {
						t.Fatal(err)
					}
					signalled = true
				}
			}
			err = cmd.Wait()
			r := result{Stdout: strings.Join(lines, "\n") + "\n", Stderr: stderr.String(), Cmdline: strings.Join(cmd.Args, " ")}
			if ee, ok := err.(*exec.ExitError); ok {
				r.Code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if !signalled {
				t.Fatalf("the sweep ended before 5 seed records\n%s", r)
			}
			r.WantExit(t, 130)
			r.NoStackTrace(t)
			recs := jsonRecords(t, r)
			sum := recs[len(recs)-1]
			if sum["interrupted"] != true || sum["status"] != "interrupted" {
				t.Errorf("the summary does not say interrupted: %v", sum)
			}
			if sum["seeds"] != float64(len(recs)-2) {
				t.Errorf("the summary counts %v seeds, the stream holds %d seed records", sum["seeds"], len(recs)-2)
			}
			if len(recs)-2 >= 100000 {
				t.Errorf("every seed ran: the signal did not stop the sweep")
			}
			if !strings.Contains(r.Stderr, "interrupted: the sweep was stopped") {
				t.Errorf("stderr does not say the sweep was interrupted\n%s", r)
			}
			filepath.WalkDir(filepath.Join(dir, ".seedfall"), func(p string, d fs.DirEntry, err error) error {
				if err == nil && strings.Contains(d.Name(), ".tmp") {
					t.Errorf("a temporary file is left behind: %s", p)
				}
				return nil
			})
		})
	}
}

func fileHash(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// TestIssue10SiblingWorlds: two worlds in one folder keep their artifacts
// apart, under .seedfall/<world>/.
func TestIssue10SiblingWorlds(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	for _, w := range []string{"seedfall.json", "seedfall.lost_write.json"} {
		clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "kvlog", w), filepath.Join(dir, w))
	}
	hashes := map[string]string{}
	for i, w := range []string{"seedfall.json", "seedfall.lost_write.json"} {
		r := sfRun(t, dir, "-c", w, "-seeds", "1-5", "-json")
		r.WantExit(t, 1)
		want := filepath.Join(".seedfall", strings.TrimSuffix(w, ".json")) + string(filepath.Separator)
		n := 0
		for _, rec := range jsonRecords(t, r) {
			arts, _ := rec["artifacts"].(map[string]any)
			for _, p := range arts {
				path := p.(string)
				if !strings.HasPrefix(path, want) {
					t.Errorf("%s seed %v: artifact %s not under %s", w, rec["seed"], path, want)
				}
				if _, err := os.Stat(filepath.Join(dir, path)); err != nil {
					t.Errorf("%s seed %v: %v", w, rec["seed"], err)
				}
				if i == 0 {
					hashes[path] = fileHash(t, filepath.Join(dir, path))
				}
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%s wrote no artifacts\n%s", w, r)
		}
	}
	for path, h := range hashes {
		if got := fileHash(t, filepath.Join(dir, path)); got != h {
			t.Errorf("the second world's sweep changed %s", path)
		}
	}
}

var hashLineRE = regexp.MustCompile(`(?m)^determinism hash ([0-9a-f]{16}) over \d+ host calls$`)

// bash runs a line with bash in dir, the built sf-run first on PATH, as a
// user pastes a repro line.
func bash(t *testing.T, dir, line string) result {
	t.Helper()
	sh, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	r := runBin(t, clitest.Cmd{Dir: dir, Env: []string{tools.OnPath()}}, sh, "-c", line)
	r.Cmdline = line
	return r
}

// TestIssue10ReproKeepsProfileSetAndFaults: the repro line of a seed record
// replays the same run, profile, overrides and schedule included.
func TestIssue10ReproKeepsProfileSetAndFaults(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := t.TempDir()
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "kvlog", "seedfall.json"), filepath.Join(dir, "seedfall.json"))
	var w map[string]any
	if err := json.Unmarshal([]byte(clitest.ReadFile(t, filepath.Join(dir, "seedfall.json"))), &w); err != nil {
		t.Fatal(err)
	}
	w["profiles"] = map[string]any{"hard": map[string]any{"faults": map[string]any{"crash_per_sec": 1}}}
	clitest.WriteJSON(t, filepath.Join(dir, "hard.json"), w)

	r := sfRun(t, dir, "-c", "hard.json", "-seeds", "1-3", "-profile", "hard", "-set", "duration=8s", "-json")
	r.WantExit(t, 1)
	recs := jsonRecords(t, r)
	for _, rec := range recs[:len(recs)-1] {
		if set, _ := rec["set"].([]any); rec["profile"] != "hard" || len(set) != 1 || set[0] != "duration=8s" {
			t.Errorf("%v record carries profile %v and set %v, want hard and [duration=8s]", rec["kind"], rec["profile"], rec["set"])
		}
	}
	var failing map[string]any
	for _, rec := range recs[1 : len(recs)-1] {
		if rec["status"] == "fail" {
			failing = rec
			break
		}
	}
	if failing == nil {
		t.Fatalf("no failing seed\n%s", r)
	}
	repro := fmt.Sprint(failing["repro"])
	if want := fmt.Sprintf("sf-run -c hard.json -seed %v -profile hard -set duration=8s", failing["seed"]); repro != want {
		t.Errorf("repro %q, want %q", repro, want)
	}
	rep := bash(t, dir, repro)
	rep.WantExit(t, 1)
	if m := hashLineRE.FindStringSubmatch(rep.Stdout); m == nil || m[1] != failing["determinism_hash"] {
		t.Errorf("the replay's determinism hash is %v, the sweep's %v\n%s", m, failing["determinism_hash"], rep)
	}

	// A -faults replay's record names the schedule, and its repro replays it.
	sched := filepath.Join("my schedules", "s.faults.json")
	clitest.WriteFile(t, filepath.Join(dir, sched), []byte(clitest.ReadFile(t, filepath.Join(dir, fmt.Sprint(failing["artifacts"].(map[string]any)["faults"])))))
	fr := sfRun(t, dir, "-c", "hard.json", "-seed", fmt.Sprint(failing["seed"]), "-profile", "hard", "-set", "duration=8s", "-faults", sched, "-json")
	fr.WantExit(t, 1)
	frec := jsonRecords(t, fr)[1]
	frepro := fmt.Sprint(frec["repro"])
	if !strings.HasSuffix(frepro, " -profile hard -set duration=8s -faults 'my schedules/s.faults.json'") {
		t.Errorf("repro %q does not keep -profile, -set and the quoted -faults", frepro)
	}
	frep := bash(t, dir, frepro)
	frep.WantExit(t, 1)
	if m := hashLineRE.FindStringSubmatch(frep.Stdout); m == nil || m[1] != frec["determinism_hash"] {
		t.Errorf("the -faults replay's determinism hash is %v, the record's %v\n%s", m, frec["determinism_hash"], frep)
	}
}

// TestIssue10ReplayKeepsItsSchedule: a failing -faults replay of a seed's
// own artifact leaves it as it was; a passing replay writes the history it
// says it wrote.
func TestIssue10ReplayKeepsItsSchedule(t *testing.T) {
	dir := kvlogDir(t)
	removeArtifacts(t, dir)
	sweep := sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3")
	sweep.WantExit(t, 1)
	seeds := failedSeeds(sweep.Stdout)
	if len(seeds) == 0 {
		t.Fatalf("no failing seed\n%s", sweep)
	}
	path := artifact(t, dir, "seed-"+seeds[0]+".faults.json")
	// Hand-edit the artifact so that a rewrite from the run would differ.
	var s map[string]any
	if err := json.Unmarshal([]byte(clitest.ReadFile(t, path)), &s); err != nil {
		t.Fatal(err)
	}
	s["set"] = nil
	b, _ := json.Marshal(s)
	clitest.WriteFile(t, path, b)
	before := clitest.ReadFile(t, path)
	rel, _ := filepath.Rel(dir, path)
	r := sfRun(t, dir, "-c", "seedfall.json", "-seed", seeds[0], "-faults", rel)
	r.WantExit(t, 1)
	if after := clitest.ReadFile(t, path); after != before {
		t.Errorf("the replay rewrote the schedule it read\nbefore:\n%s\nafter:\n%s", before, after)
	}

	hdir := t.TempDir()
	writeHistoryWorld(t, filepath.Join(hdir, "ok.json"), "register", nil, "kv", nil)
	clitest.WriteFile(t, filepath.Join(hdir, "none.faults.json"), []byte(`{"faults": []}`))
	h := sfRun(t, hdir, "-c", "ok.json", "-seed", "2", "-faults", "none.faults.json")
	h.WantExit(t, 0)
	m := regexp.MustCompile(`(?m)^wrote history (\S+)$`).FindStringSubmatch(h.Stdout)
	if m == nil {
		t.Fatalf("the passing replay does not say it wrote a history\n%s", h)
	}
	if i, j := strings.Index(h.Stdout, "\ndeterminism hash "), strings.Index(h.Stdout, "\nwrote history "); i < 0 || j < i {
		t.Errorf("the wrote lines should follow the determinism hash\n%s", h)
	}
	hf := readHistoryFile(t, filepath.Join(hdir, m[1]))
	if hf.ops == 0 {
		t.Errorf("%s holds no operations", m[1])
	}
}

// TestIssue10StrictSchedules: unknown fields and faults past the end are
// refused; the partition side form, stdin, branches and budgets work.
func TestIssue10StrictSchedules(t *testing.T) {
	dir := kvlogDir(t)
	for _, tc := range []struct {
		name, sched, want string
	}{
		{"unknown field", `{"faults":[{"at":"1s","kind":"crash","node":"server","until":"2s","bogus":1}]}`,
			"sf-run: -faults: bad.faults.json: faults[0].bogus: unknown field"},
		{"at past duration", `{"faults":[{"at":"90s","kind":"crash","node":"server","until":"91s"}]}`,
			"sf-run: -faults: bad.faults.json: faults[0].at: 1m30s is after the end of the run (1m0s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clitest.WriteFile(t, filepath.Join(dir, "bad.faults.json"), []byte(tc.sched))
			r := sfRun(t, dir, "-c", "seedfall.json", "-seed", "1", "-faults", "bad.faults.json")
			r.WantExit(t, 2)
			r.NoStackTrace(t)
			if !strings.Contains(r.Stderr, tc.want) {
				t.Errorf("stderr lacks %q\n%s", tc.want, r)
			}
		})
	}

	stdin := func(sched string) result {
		return runBin(t, clitest.Cmd{Dir: dir, Stdin: sched}, tools.Path("sf-run"), "-c", "seedfall.json", "-seed", "1", "-faults", "-")
	}
	t.Run("partition side from stdin", func(t *testing.T) {
		r := stdin(`{"faults":[{"at":"1s","kind":"partition","side":["server"],"until":"2s"}]}`)
		if r.Code != 0 && r.Code != 1 {
			t.Fatalf("exit status %d\n%s", r.Code, r)
		}
		tr := traceSection(t, r.Stdout)
		for _, want := range []string{"1.000s  fault partition [server] | [client] until 2.000s", "2.000s  partition healed"} {
			if !strings.Contains(tr, want) {
				t.Errorf("the trace lacks %q\n%s", want, tr)
			}
		}
		// The schedule read from stdin is kept as a file, for replay lines.
		if kept := filepath.Join(dir, ".seedfall", "seedfall", "seed-1.stdin.faults.json"); !exists(kept) {
			t.Errorf("the schedule read from stdin was not kept as %s\n%s", kept, r)
		}
	})
	t.Run("branch", func(t *testing.T) {
		plain := stdin(`{"faults":[]}`)
		branched := stdin(`{"faults":[],"branches":[{"at":"1s","key":9}]}`)
		again := stdin(`{"faults":[],"branches":[{"at":"1s","key":9}]}`)
		a, b := traceSection(t, plain.Stdout), traceSection(t, branched.Stdout)
		if !strings.Contains(b, "1.000s  branch: re-keyed every stream at 1s (key 9)") {
			t.Fatalf("the branched trace has no branch line\n%s", b)
		}
		before := func(tr string) string {
			var out []string
			for _, l := range strings.Split(tr, "\n") {
				if f := strings.Fields(l); len(f) > 0 && strings.HasSuffix(f[0], "s") && f[0] < "1.000s" && len(f[0]) == len("0.000s") {
					out = append(out, l)
				}
			}
			return strings.Join(out, "\n")
		}
		if before(a) != before(b) {
			t.Errorf("the traces differ before the branch at 1s:\n%s", firstDiff(before(a), before(b)))
		}
		if a == strings.Replace(b, "    1.000s  branch: re-keyed every stream at 1s (key 9)\n", "", 1) {
			t.Errorf("the branch changed nothing after 1s")
		}
		if hashLineRE.FindString(branched.Stdout) != hashLineRE.FindString(again.Stdout) || traceSection(t, again.Stdout) != b {
			t.Errorf("the branched schedule replays differently twice")
		}
		if hashLineRE.FindString(branched.Stdout) == hashLineRE.FindString(plain.Stdout) {
			t.Errorf("the branch did not change the determinism hash")
		}
	})
	t.Run("budget", func(t *testing.T) {
		r := stdin(`{"faults":[],"budget":10}`)
		r.WantExit(t, 0)
		if !strings.Contains(traceSection(t, r.Stdout), "client#1: sim.Budget capped at 10 of 200 operations") {
			t.Errorf("the trace does not show the cap\n%s", r)
		}
		if !strings.Contains(r.Stdout, "client: wrote 10 keys") {
			t.Errorf("the client did not stop at 10 writes\n%s", r)
		}
	})
}
