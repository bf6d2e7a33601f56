package main

// CLI tests: the in-process ones check usage errors; the scenario tests
// build the real sf-mutate and run it as a user would, on copies of world
// files in temporary directories (their packages stay where they are, and
// are never written to).

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/clitest"
	"github.com/sf-dst/sf/lib/record"
)

// tools are sf-mutate and sf-run, built once per test process.
var tools clitest.Tools

func TestMain(m *testing.M) { os.Exit(tools.Main(m, "sf-mutate", "sf-run")) }

type result = clitest.Result

// mutateTimeout bounds one sf-mutate run: every mutant runs its seeds.
const mutateTimeout = 20 * time.Minute

func sfMutate(t *testing.T, dir string, args ...string) result {
	t.Helper()
	tools.Need(t)
	return clitest.Exec(t, clitest.Cmd{Dir: dir, Timeout: mutateTimeout}, append([]string{tools.Path("sf-mutate")}, args...)...)
}

// copyWorld copies the world file src (relative to the repository root) to
// a temporary directory with its packages made absolute, and returns the
// directory.
func copyWorld(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	clitest.CopyWorld(t, filepath.Join(tools.Root, src), filepath.Join(dir, "seedfall.json"))
	return dir
}

// records decodes a -json stream.
func records(t *testing.T, out string) (muts map[string]*record.Mutant, sum *record.MutateSummary) {
	t.Helper()
	muts = map[string]*record.Mutant{}
	r := record.NewReader(strings.NewReader(out), "stdout")
	for {
		a, err := r.Next()
		if err != nil {
			break
		}
		if a.Mutant != nil {
			key := a.Mutant.Name
			if a.Mutant.Source == "app" {
				key = fmt.Sprintf("%s %s:%d %s", a.Mutant.Name, a.Mutant.File, a.Mutant.Line, a.Mutant.Node)
			}
			muts[key] = a.Mutant
		}
		if a.MutateSummary != nil {
			sum = a.MutateSummary
		}
	}
	return muts, sum
}

// TestBadOnly: an unknown -only name is a usage error that lists the
// runtime mutants; so is -only with -app.
func TestBadOnly(t *testing.T) {
	r := clitest.Run(t, run, "", "sf-mutate", "-only", "fsync_noop,fsync_nope")
	r.Want(t, 2, `sf-mutate: -only: "fsync_nope" is not a runtime mutant; the runtime mutants are fsync_noop, dirsync_noop, osync_ignored, fsync_corrupts, rename_not_atomic, truncate_not_durable, net_drop_after_close, net_dup_chunk, monotonic_jump (see sf-mutate -h)`+"\n")
	r = clitest.Run(t, run, "", "sf-mutate", "-only", "fsync_noop", "-app")
	r.Want(t, 2, "sf-mutate: -only picks runtime mutants and cannot be combined with -app (see sf-mutate -h)\n")
	r = clitest.Run(t, run, "", "sf-mutate", "-mutants", "3")
	r.Want(t, 2, "sf-mutate: -mutants needs -app (see sf-mutate -h)\n")
}

// TestLedger: on examples/ledger, net_dup_chunk is killed by the upper
// bound, truncate_not_durable survives, and dirsync_noop (no strict_dirs)
// is not exercised; -json and -md say the same as the table.
func TestLedger(t *testing.T) {
	t.Parallel()
	dir := copyWorld(t, "examples/ledger/seedfall.json")
	r := sfMutate(t, dir, "-seeds", "1-10", "-only", "net_dup_chunk,truncate_not_durable,dirsync_noop", "-json", "-md", "mutants.md")
	if r.Code != 1 {
		t.Fatalf("want exit 1 (a survivor)\n%s", r)
	}
	for _, want := range []string{
		"baseline: seeds 1-10 pass",
		"net_dup_chunk          killed     seed 1: client#1: ledger total holds no deposit that was never sent",
		"truncate_not_durable   SURVIVED   10 seeds passed although the operation was weakened",
		"dirsync_noop           not exercised: no directory fsync that would make an entry durable (needs strict_dirs) in 10 seeds",
		"1 mutant survived",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr has no %q\n%s", want, r)
		}
	}
	muts, sum := records(t, r.Stdout)
	if m := muts["net_dup_chunk"]; m == nil || m.Verdict != record.VerdictKilled || m.KilledBySeed != 1 || m.Source != "runtime" {
		t.Errorf("net_dup_chunk record %+v", m)
	}
	if m := muts["truncate_not_durable"]; m == nil || m.Verdict != record.VerdictSurvived || m.SeedsPassed != 10 || m.Hits == 0 {
		t.Errorf("truncate_not_durable record %+v", m)
	}
	if m := muts["dirsync_noop"]; m == nil || m.Verdict != record.VerdictNotExercised || m.Hits != 0 {
		t.Errorf("dirsync_noop record %+v", m)
	}
	if sum == nil || sum.Status != "survived" || sum.Killed != 1 || sum.Survived != 1 || sum.NotExercised != 1 || sum.Score != 0.5 {
		t.Errorf("summary %+v", sum)
	}
	md, err := os.ReadFile(filepath.Join(dir, "mutants.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| Mutant | Source | Verdict | Detail |", "| net_dup_chunk | runtime | killed | seed 1: ", "| truncate_not_durable | runtime | **SURVIVED** |", "| dirsync_noop | runtime | not exercised |", "Mutation score: 1 of 2"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("-md file has no %q:\n%s", want, md)
		}
	}
}

// TestFailingBaseline: a world that fails with no mutant is reported with
// the failing seed's replay line, and no mutant is judged.
func TestFailingBaseline(t *testing.T) {
	t.Parallel()
	dir := copyWorld(t, "examples/kvlog/seedfall.json")
	r := sfMutate(t, dir, "-seeds", "1-4", "-only", "fsync_noop", "-json")
	if r.Code != 1 {
		t.Fatalf("want exit 1\n%s", r)
	}
	replay := fmt.Sprintf("replay: %s -c seedfall.json -seed 1", filepath.Join(filepath.Dir(tools.Path("sf-mutate")), "sf-run"))
	for _, want := range []string{"baseline: seed 1 fails with no mutant: client#1: acknowledged write lost", replay, "no mutant judged"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr has no %q\n%s", want, r)
		}
	}
	muts, sum := records(t, r.Stdout)
	if len(muts) != 0 || sum == nil || sum.Baseline != "fail" || sum.BaselineSeed != 1 || sum.Status != "baseline_failed" {
		t.Errorf("records: %d mutants, summary %+v", len(muts), sum)
	}
}

// TestSourceMutants: with -app, a skip_sync mutant of a Sync method that
// returns an int does not build (and is no survivor); the flipped
// comparison makes the node exit 3 and is killed. The tree is untouched.
func TestSourceMutants(t *testing.T) {
	t.Parallel()
	src := filepath.Join(tools.Root, "cmd/sf-mutate/testdata/nobuild/server/main.go")
	before, _ := os.ReadFile(src)
	dir := copyWorld(t, "cmd/sf-mutate/testdata/nobuild/seedfall.json")
	r := sfMutate(t, dir, "-seeds", "1-2", "-app", "-mutants", "5", "-json")
	if r.Code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	muts, sum := records(t, r.Stdout)
	var kinds []string
	for k, m := range muts {
		kinds = append(kinds, k+"="+m.Verdict)
	}
	if sum == nil || sum.DidNotBuild != 1 || sum.Killed != 1 || sum.Mutants != 2 {
		t.Errorf("summary %+v, mutants %v\n%s", sum, kinds, r)
	}
	if !strings.Contains(r.Stderr, "did not build") || !strings.Contains(r.Stderr, "c.Sync() -> nil, without syncing") {
		t.Errorf("stderr:\n%s", r)
	}
	if after, _ := os.ReadFile(src); !bytes.Equal(before, after) {
		t.Error("sf-mutate changed the source tree")
	}
}

// TestSourceMutantsSharedPackage: a package that two nodes run has its sites
// listed for each node; each mutant changes one node's build, its record
// names that node, and the table names it after file:line.
func TestSourceMutantsSharedPackage(t *testing.T) {
	t.Parallel()
	src := filepath.Join(tools.Root, "cmd/sf-mutate/testdata/nobuild")
	dir := t.TempDir()
	clitest.WriteJSON(t, filepath.Join(dir, "seedfall.json"), map[string]any{
		"nodes": []map[string]string{
			{"name": "a", "pkg": filepath.Join(src, "server")},
			{"name": "b", "pkg": filepath.Join(src, "server")},
		},
		"workload": map[string]string{"name": "client", "pkg": filepath.Join(src, "client")},
		"duration": "5s",
	})
	r := sfMutate(t, dir, "-seeds", "1", "-app", "-mutants", "4", "-json")
	if r.Code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	muts, sum := records(t, r.Stdout)
	if sum == nil || sum.Mutants != 4 || sum.Killed != 2 || sum.DidNotBuild != 2 || len(muts) != 4 {
		t.Fatalf("summary %+v, %d mutant records, want 4 (2 killed, 2 did not build)\n%s", sum, len(muts), r)
	}
	perNode := map[string]int{}
	for _, m := range muts {
		perNode[m.Node]++
		if label := fmt.Sprintf("%s:%d %s ", m.File, m.Line, m.Node); !strings.Contains(r.Stderr, label) {
			t.Errorf("the table does not name %q\n%s", label, r.Stderr)
		}
	}
	if perNode["a"] != 2 || perNode["b"] != 2 {
		t.Errorf("mutants per node %v, want 2 in a and 2 in b", perNode)
	}
}

// TestSourceMutantsCompatOverlay: source mutants of a node built with
// compat_overlay (examples/bboltkv's bbolt server) build with its shims too,
// and run.
func TestSourceMutantsCompatOverlay(t *testing.T) {
	t.Parallel()
	dir := copyWorld(t, "examples/bboltkv/seedfall.json")
	r := sfMutate(t, dir, "-seeds", "1", "-app", "-mutants", "2", "-json")
	// Which two sites are drawn depends on the server's code, and whether
	// kvlog's client notices each is another test's question: a survivor
	// (exit 1) is an answer too. What must hold is that every mutant built.
	if r.Code != 0 && r.Code != 1 {
		t.Fatalf("want exit 0 or 1\n%s", r)
	}
	_, sum := records(t, r.Stdout)
	if sum == nil || sum.Mutants != 2 || sum.DidNotBuild != 0 {
		t.Errorf("summary %+v, want 2 mutants that all built\n%s", sum, r)
	}
}

// TestGaveUpSeeds: a seed whose history check gave up neither passed nor
// failed, and sf-mutate says so. A mutant that makes the server refuse
// every request leaves the client's history with no completed operation:
// it survives (no seed failed) with its seeds counted as gave up, not as
// passed, and the reason named. A world whose baseline gives up says so
// before judging.
func TestGaveUpSeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(tools.Root, "cmd/sf-mutate/testdata/gaveup")
	for _, f := range []string{"seedfall.json", "seedfall.refused.json"} {
		clitest.CopyWorld(t, filepath.Join(src, f), filepath.Join(dir, f))
	}
	md := filepath.Join(dir, "mutants.md")
	r := sfMutate(t, dir, "-seeds", "1-3", "-app", "-mutants", "5", "-json", "-md", md)
	if r.Code != 1 {
		t.Fatalf("want exit 1 (a survivor)\n%s", r)
	}
	// The world's copy names its packages by absolute path, so the
	// mutant's file is relative to the copy: find it by its line.
	flipped := func(muts map[string]*record.Mutant) *record.Mutant {
		for _, m := range muts {
			if m.Name == "flip_comparison" && strings.HasSuffix(m.File, "server/main.go") && m.Line == 44 {
				return m
			}
		}
		return nil
	}
	muts, sum := records(t, r.Stdout)
	m := flipped(muts)
	if sum == nil || sum.Survived != 1 || sum.BaselineGaveUp != 0 || m == nil {
		t.Fatalf("summary %+v, mutants %v\n%s", sum, muts, r)
	}
	const reason = "nothing to check: none of the 5 operations of the history completed"
	if m.Verdict != "survived" || m.SeedsPassed != 0 || m.SeedsGaveUp != 3 || m.GaveUpSeed != 1 || !strings.HasPrefix(m.GaveUpReason, reason) {
		t.Errorf("mutant record %+v", m)
	}
	if want := "SURVIVED   no seed failed: 0 passed, 3 gave up checking their history (seed 1: " + reason; !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr has no %q\n%s", want, r)
	}
	if b, err := os.ReadFile(md); err != nil || !strings.Contains(string(b), "no seed failed: 0 passed, 3 gave up checking their history") {
		t.Errorf("markdown (%v):\n%s", err, b)
	}

	r = sfMutate(t, dir, "-c", "seedfall.refused.json", "-seeds", "1-3", "-app", "-mutants", "5", "-json")
	muts, sum = records(t, r.Stdout)
	m = flipped(muts)
	if sum == nil || sum.Baseline != "pass" || sum.BaselineGaveUp != 3 || m == nil || m.SeedsPassed != 3 || m.SeedsGaveUp != 0 {
		t.Fatalf("summary %+v, mutant %+v\n%s", sum, m, r)
	}
	if want := "baseline: no seed of 1-3 fails, but 3 gave up checking their history (seed 1: " + reason; !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr has no %q\n%s", want, r)
	}
}
