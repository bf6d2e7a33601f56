package explore

import (
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/runner"
)

// explored is an exploration's outcome, its failures' results without the
// real time they took, and the bytes of every artifact it wrote.
type explored struct {
	out       Outcome
	results   []engine.Result
	artifacts map[string]string
}

func explore(t *testing.T, p *runner.Prepared, o Options) explored {
	t.Helper()
	out, err := Run(p, o, func(Found) {})
	if err != nil {
		t.Fatal(err)
	}
	e := explored{artifacts: map[string]string{}}
	for i, f := range out.Found {
		r := *f.Result
		r.RealNs = 0
		e.results = append(e.results, r)
		out.Found[i].Result = nil
		if f.Artifacts == nil {
			t.Fatalf("run %d failed and has no artifacts", f.Run)
		}
		for _, path := range []string{f.Artifacts.Trace, f.Artifacts.Faults, f.Artifacts.History, f.Artifacts.Timeline} {
			if path == "" {
				continue
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			e.artifacts[path] = string(b)
		}
	}
	e.out = *out
	return e
}

// TestForksExploreTheSame: an exploration whose branches start from forks
// of their seed's run makes the runs, keeps the corpus, finds the failures
// and writes the artifacts, byte for byte, of one whose branches all run
// from the start, for a world of one node (kvlog, whose seed 17 passes and
// the others fail) and one of two nodes on the network (httpkv), and its
// branches do start from forks.
func TestForksExploreTheSame(t *testing.T) {
	for _, c := range []struct {
		world string
		seeds []uint64
		runs  int
	}{
		{"kvlog", []uint64{1, 2, 17}, 30},
		{"httpkv", []uint64{1, 2}, 24},
	} {
		t.Run(c.world, func(t *testing.T) {
			p, err := runner.Prepare("../../examples/"+c.world+"/seedfall.json", config.LoadOptions{}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Engine.Close()
			o := Options{Seeds: c.seeds, Runs: c.runs, Jobs: 2, Config: "seedfall.json"}
			got := explore(t, p, o)
			o.NoForks = true
			want := explore(t, p, o)
			branches := got.out.Runs - got.out.SeedRuns
			if want.out.Forked != 0 {
				t.Errorf("%d branches started from a fork with NoForks", want.out.Forked)
			}
			if branches == 0 || got.out.Forked < branches/2 {
				t.Errorf("%d of %d branches started from a fork", got.out.Forked, branches)
			}
			forked := got.out.Forked
			got.out.Forked = 0
			if !reflect.DeepEqual(got.out, want.out) {
				t.Errorf("with forks:\n%+v\nfrom the start:\n%+v", got.out, want.out)
			}
			if !reflect.DeepEqual(got.results, want.results) {
				t.Errorf("the failures' results differ")
			}
			if !reflect.DeepEqual(got.artifacts, want.artifacts) {
				t.Errorf("the artifacts differ: with forks %d files, from the start %d", len(got.artifacts), len(want.artifacts))
			}
			t.Logf("%d runs, %d branches, %d from a fork, %d failures found", got.out.Runs, branches, forked, len(got.out.Found))
		})
	}
}
