package simtest

// This test runs go test, as a user would, on a package of its own outside
// the repository that uses simtest: a module in a temporary folder tied to
// this checkout by a go.work file, with a copy of the kvlog worlds. It
// checks the subtests go test -json reports, -run picking one seed, -short
// skipping the sweep but not the pins, and the messages against sf-run's.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/sweep"
)

const userTest = `package kv

import (
	"testing"

	"github.com/sf-dst/sf/simtest"
)

func TestBuggy(t *testing.T)       { simtest.Run(t, "seedfall.json", simtest.Seeds("1-3")) }
func TestBuggyToo(t *testing.T)    { simtest.Run(t, "seedfall.json", simtest.Seeds("2")) }
func TestPinned(t *testing.T)      { simtest.Pinned(t, "seedfall.json") }
func TestFixedPinned(t *testing.T) { simtest.Pinned(t, "seedfall.fixed.json") }
func TestMissing(t *testing.T)     { simtest.Run(t, "missing.json", simtest.Seeds("1")) }
func TestGaveUp(t *testing.T)      { simtest.Run(t, "gaveup.json", simtest.Seeds("1")) }

func TestProfile(t *testing.T) {
	simtest.Run(t, "seedfall.json", simtest.Profile("good"), simtest.Seeds("3-5"), simtest.Jobs(1))
}

func TestComeBack(t *testing.T) {
	simtest.Pinned(t, "seedfall.fixed.json", simtest.Set(` + "`" + `nodes[0].args=["-ack-before-fsync"]` + "`" + `))
}
`

// event is one line of go test -json.
type event struct {
	Action, Test, Output string
}

type goTestRun struct {
	code    int
	out     string
	actions map[string]string // test -> pass, fail or skip
	outputs map[string]string // test -> its output
}

func TestGoTestOfAPackageUsingSimtest(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: simtest builds the worlds' packages with it")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/kv\n\ngo 1.26.0\n\nrequire github.com/sf-dst/sf v0.0.0\n")
	write("go.work", fmt.Sprintf("go 1.26.0\n\nuse (\n\t.\n\t%s\n\t%s\n\t%s\n)\n", root, filepath.Join(root, "sim"), filepath.Join(root, "examples")))
	write("kv_test.go", userTest)
	for _, w := range []string{"seedfall.json", "seedfall.fixed.json"} {
		write(w, kvlogWorld(t, filepath.Join(root, "examples", "kvlog", w), w == "seedfall.json"))
	}
	// A history check with one step per key gives up (issue 27).
	write("gaveup.json", fmt.Sprintf(`{"workload": {"name": "client", "pkg": %q}, "checker": {"model": "kv"}, "limits": {"check_steps": 1}}`,
		filepath.Join(root, "lib", "sweep", "testdata", "guests", "register")))

	// Pin seed 3 of the buggy world as sf-run -pin -seed 3 does, and keep
	// the line sf-run prints for that seed to compare with go test's.
	var recs, report bytes.Buffer
	t.Chdir(dir)
	code := sweep.Main(sweep.Options{Config: "seedfall.json", Seeds: []uint64{3}, SeedsText: "3", Replay: true, Pin: true,
		JSON: true, Tool: "sf-run", Stdout: &recs, Stderr: &report})
	if code != 1 {
		t.Fatalf("pinning seed 3: exit status %d, want 1\n%s", code, report.String())
	}
	var seed3 struct {
		Kind    string `json:"kind"`
		AtNs    int64  `json:"at_ns"`
		Message string `json:"message"`
		Pinned  string `json:"pinned"`
	}
	for _, l := range strings.Split(recs.String(), "\n") {
		if strings.Contains(l, `"kind":"seed"`) {
			if err := json.Unmarshal([]byte(l), &seed3); err != nil {
				t.Fatal(err)
			}
		}
	}
	if want := filepath.Join(".seedfall", "pinned", "seedfall", "seed-3.json"); seed3.Pinned != want {
		t.Fatalf("seed record's pinned = %q, want %q\n%s", seed3.Pinned, want, recs.String())
	}
	pinData, err := os.ReadFile(filepath.Join(dir, seed3.Pinned))
	if err != nil {
		t.Fatal(err)
	}
	// The same schedule pinned for the fixed world passes there.
	write(".seedfall/pinned/seedfall.fixed/seed-3.json", string(pinData))
	// A world with -set overrides is a world of its own, with pins of its
	// own (issue 30): TestComeBack's variant gets the same pin.
	sum := sha256.Sum256([]byte(`nodes[0].args=["-ack-before-fsync"]`))
	comeBackPins := filepath.Join(".seedfall", "pinned", "seedfall.fixed.set-"+hex.EncodeToString(sum[:4]))
	write(filepath.Join(comeBackPins, "seed-3.json"), string(pinData))

	goTest := func(args ...string) goTestRun {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goCmd, append([]string{"test", "-count=1"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"), "GOFLAGS=")
		out, err := cmd.CombinedOutput()
		r := goTestRun{out: string(out), actions: map[string]string{}, outputs: map[string]string{}}
		var ee *exec.ExitError
		switch {
		case ctx.Err() != nil:
			t.Fatalf("go test %v did not finish in 10 minutes\n%s", args, out)
		case errors.As(err, &ee):
			r.code = ee.ExitCode()
		case err != nil:
			t.Fatalf("go test %v: %v", args, err)
		}
		if strings.Contains(r.out, "goroutine ") || strings.Contains(r.out, "panic:") {
			t.Errorf("go test %v printed a stack trace:\n%s", args, out)
		}
		return r
	}
	parseJSON := func(r *goTestRun) {
		t.Helper()
		s := bufio.NewScanner(strings.NewReader(r.out))
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			var e event
			if err := json.Unmarshal(s.Bytes(), &e); err != nil || e.Test == "" {
				continue
			}
			switch e.Action {
			case "pass", "fail", "skip":
				r.actions[e.Test] = e.Action
			case "output":
				r.outputs[e.Test] += e.Output
			}
		}
	}
	wantAction := func(r goTestRun, test, action string) {
		t.Helper()
		if got := r.actions[test]; got != action {
			t.Errorf("%s: %q, want %q\noutput:\n%s", test, got, action, r.outputs[test])
		}
	}
	wantOutput := func(r goTestRun, test string, wants ...string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(r.outputs[test], w) {
				t.Errorf("%s: output lacks %q:\n%s", test, w, r.outputs[test])
			}
		}
	}

	// go test -json: a subtest per failing seed and per pin.
	r := goTest("-json", ".")
	parseJSON(&r)
	if r.code != 1 {
		t.Fatalf("go test -json: exit status %d, want 1\n%s", r.code, r.out)
	}
	for _, s := range []string{"seed-1", "seed-2", "seed-3"} {
		wantAction(r, "TestBuggy/"+s, "fail")
		wantOutput(r, "TestBuggy/"+s, "FAIL "+strings.Replace(s, "-", " ", 1)+" at t=", "acknowledged write lost",
			"trace: "+filepath.Join(".seedfall", "seedfall", s+".trace.log"),
			"schedule: "+filepath.Join(".seedfall", "seedfall", s+".faults.json"),
			"replay: sf-run -c seedfall.json -"+strings.Replace(s, "-", " ", 1),
			"go test -run '^TestBuggy$/^"+s+"$'")
	}
	// A test whose name starts with another's runs under an unanchored
	// pattern of the other (issue 29): TestBuggyToo/seed-2 beside
	// TestBuggy/seed-2.
	wantAction(r, "TestBuggyToo/seed-2", "fail")
	wantOutput(r, "TestBuggy/seed-3", sweep.FailLine(3, seed3.AtNs, seed3.Message))
	wantAction(r, "TestBuggy", "fail")
	wantOutput(r, "TestBuggy", "sf-run report:", "FAIL 3 of 3 seeds failed")
	wantAction(r, "TestPinned/seed-3", "fail")
	wantOutput(r, "TestPinned/seed-3", "FAIL pin "+seed3.Pinned+" (original seed 3) failed again at t=",
		"pinned failure: "+seed3.Message+" (assert: acknowledged write lost)",
		"replay: sf-run -c seedfall.json -seed 3 -faults "+seed3.Pinned)
	wantAction(r, "TestFixedPinned/seed-3", "pass")
	wantAction(r, "TestFixedPinned", "pass")
	wantAction(r, "TestGaveUp/seed-1", "fail")
	wantOutput(r, "TestGaveUp/seed-1", "GAVE UP seed 1 at t=", "its history check gave up, so the seed neither passed nor failed")
	wantOutput(r, "TestGaveUp", "GAVE UP 1 of 1 seeds gave up checking their history (0 passed, 0 hit the time horizon)")
	wantAction(r, "TestMissing", "fail")
	wantOutput(r, "TestMissing", "simtest: missing.json", "no such file")
	// Profile and Jobs reach the sweep: the good profile passes, over the
	// seeds given, one at a time.
	wantAction(r, "TestProfile", "pass")
	wantOutput(r, "TestProfile", "simtest: seeds 3-5 of seedfall.json, as sf-run -c seedfall.json -seeds 3-5 -profile good -j 1 runs them", "ok  3 seeds passed")
	if _, err := os.Stat(filepath.Join(dir, ".seedfall", "seedfall.good")); err == nil {
		t.Errorf("the good profile wrote artifacts, though it passed")
	}
	// Set reaches the replay: the bug back in the fixed world fails the pin
	// kept for that variant.
	wantAction(r, "TestComeBack/seed-3", "fail")
	wantOutput(r, "TestComeBack/seed-3", "FAIL pin "+filepath.Join(comeBackPins, "seed-3.json")+" (original seed 3) failed again at t=")

	// The -run line a failing seed prints runs that test's seed alone:
	// seed 2 of TestBuggy, not TestBuggyToo's seed 2 nor other seeds.
	line := regexp.MustCompile(`go test -run '([^']*)'`).FindStringSubmatch(r.outputs["TestBuggy/seed-2"])
	if line == nil {
		t.Fatalf("TestBuggy/seed-2 printed no go test -run line:\n%s", r.outputs["TestBuggy/seed-2"])
	}
	r = goTest("-v", "-run", line[1], ".")
	if r.code != 1 {
		t.Fatalf("go test -run %s: exit status %d, want 1\n%s", line[1], r.code, r.out)
	}
	for _, w := range []string{"--- FAIL: TestBuggy/seed-2", "FAIL 1 of 1 seeds failed", "FAIL seed 2 at t="} {
		if !strings.Contains(r.out, w) {
			t.Errorf("go test -run %s: output lacks %q:\n%s", line[1], w, r.out)
		}
	}
	for _, other := range []string{"TestBuggy/seed-1", "seed 3", "TestBuggyToo", "TestPinned"} {
		if strings.Contains(r.out, other) {
			t.Errorf("go test -run %s ran %s too:\n%s", line[1], other, r.out)
		}
	}

	// -short skips the sweep (no ShortSeeds) but replays the pins.
	r = goTest("-short", "-v", "-run", "TestBuggy|TestPinned|TestFixedPinned", ".")
	if r.code != 1 {
		t.Fatalf("go test -short: exit status %d, want 1\n%s", r.code, r.out)
	}
	for _, w := range []string{"--- SKIP: TestBuggy", "-short skips the sweep of seedfall.json over seeds 1-3",
		"--- FAIL: TestPinned/seed-3", "--- PASS: TestFixedPinned/seed-3", "ok   pin seed-3.json (seed 3) passed"} {
		if !strings.Contains(r.out, w) {
			t.Errorf("go test -short: output lacks %q:\n%s", w, r.out)
		}
	}
}

// kvlogWorld is the example world at path with its packages made absolute,
// so that a copy elsewhere builds the example's guests; withGood adds a
// profile "good" that runs the server without its planted bug.
func kvlogWorld(t *testing.T, path string, withGood bool) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w map[string]any
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	for _, n := range append(w["nodes"].([]any), w["workload"]) {
		node := n.(map[string]any)
		node["pkg"] = filepath.Join(dir, node["pkg"].(string))
	}
	if withGood {
		w["profiles"] = map[string]any{"good": map[string]any{
			"nodes": []any{map[string]any{"name": "server", "pkg": filepath.Join(dir, "server")}}}}
	}
	out, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
