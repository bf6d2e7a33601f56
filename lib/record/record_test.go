package record

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/margin"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func sample() []any {
	m := margin.Int(false, 0)
	return []any{
		Start{Kind: KindStart, Tool: "sf-run", Version: "0.1.0", Schema: Schema, Config: "seedfall.json", Profile: "nightly",
			Set: []string{"duration=8s"}, Seeds: "1-2", Count: 2, Jobs: 2, Shard: "1/1"},
		Seed{Kind: KindSeed, Seed: 1, Config: "seedfall.json", Profile: "nightly", Set: []string{"duration=8s"}, Status: "pass",
			AtNs: 1_500_000_000, Steps: 10, HostCalls: 120, RealNs: 5_000_000, DeterminismHash: "00000000deadbeef",
			Repro: "sf-run -c seedfall.json -seed 1 -profile nightly -set duration=8s"},
		Pin{Kind: KindPin, Pin: ".seedfall/pinned/seedfall/seed-3.json", Seed: 3, Config: "seedfall.json", Status: "fail", Class: "assert",
			Message: "client#1: acknowledged write lost: k7=v7", Node: "client#1", AtNs: 1_204_000_000, Steps: 500, HostCalls: 4000,
			RealNs: 20_000_000, DeterminismHash: "0123456789abcdef", Faults: 1, PinnedMessage: "client#1: acknowledged write lost: k6=v6",
			PinnedFingerprint: "assert: acknowledged write lost", Fingerprint: "assert: acknowledged write lost", SameFailure: true,
			Artifacts: &Artifacts{Trace: ".seedfall/seedfall/pin-seed-3.trace.log"},
			Repro:     "sf-run -c seedfall.json -seed 3 -faults .seedfall/pinned/seedfall/seed-3.json"},
		Seed{Kind: KindSeed, Seed: 2, Config: "seedfall.json", FaultsFile: "f.json", Status: "fail", Class: "assert", Message: "client#1: lost",
			Property: "lost", Node: "client#1", AtNs: 3_121_302_000, Steps: 867, HostCalls: 9126, RealNs: 38_000_000, DeterminismHash: "4c9ab008f72df649",
			Faults: 1, Artifacts: &Artifacts{Trace: ".seedfall/seedfall/seed-2.trace.log", Faults: ".seedfall/seedfall/seed-2.faults.json"},
			Repro: "sf-run -c seedfall.json -seed 2 -faults f.json", HistoryCheck: "ok", Pinned: ".seedfall/pinned/seedfall/seed-2.json"},
		Summary{Kind: KindSummary, Tool: "sf-run", Config: "seedfall.json", Seeds: 2, Passed: 1, Failed: 1, FailedSeeds: []uint64{2},
			Properties: []Property{{Kind: "always", Message: "no write is lost", SeedsReached: 2, SeedsTrue: 1, Margin: &m}},
			RealNs:     50_000_000, Status: "fail", Interrupted: true, Pins: 1, PinsFailed: 1},
		Start{Kind: KindStart, Tool: "sf-shrink", Version: "0.1.0", Schema: Schema, Count: 1, Jobs: 2},
		Shrink{Kind: KindShrink, Seed: 2, Config: "seedfall.json", Class: "assert", Message: "client#1: lost", Node: "client#1",
			FaultsBefore: 14, FaultsAfter: 2, ShrinkRuns: 23, Duration: "1.9s", DurationNs: 1_900_000_000, Budget: 63,
			Schedule: ".seedfall/seedfall/seed-2.faults.json", Repro: "sf-run -c seedfall.json -seed 2 -faults .seedfall/seedfall/seed-2.faults.json",
			Pinned: ".seedfall/pinned/seedfall/seed-2.json"},
		ShrinkSummary{Kind: KindSummary, Tool: "sf-shrink", Shrunk: 1, RealNs: 2_000_000_000, Status: "shrunk"},
		Start{Kind: KindStart, Tool: "sf-shrink", Version: "0.1.0", Schema: Schema, Config: "seedfall.json", Seeds: "2", Count: 1, Jobs: 2},
		Cause{Kind: KindCause, Seed: 2, Config: "seedfall.json", Failure: "assert: lost", FailAtNs: 3_121_302_000, At: "0s",
			Branches: 10, Same: 3, Share: 0.3, Repro: "sf-run -c seedfall.json -seed 2"},
		Cause{Kind: KindCause, Seed: 2, Config: "seedfall.json", Failure: "assert: lost", FailAtNs: 3_121_302_000, At: "1.2s",
			AtNs: 1_200_000_000, Branches: 10, Same: 10, Share: 1, Inevitable: true, Faults: []string{"crash server, restart at 1.5s"},
			Repro: "sf-run -c seedfall.json -seed 2"},
		ShrinkSummary{Kind: KindSummary, Tool: "sf-shrink", Caused: 1, RealNs: 4_000_000_000, Status: "caused"},
		Start{Kind: KindStart, Tool: "sf-mutate", Version: "0.1.0", Schema: Schema, Config: "seedfall.json", Seeds: "1-20", Count: 20, Jobs: 2},
		Mutant{Kind: KindMutant, Name: "net_dup_chunk", Source: "runtime", Verdict: VerdictKilled, KilledBySeed: 18,
			Reason: "client#1: ledger total holds no deposit that was never sent", Repro: "sf-mutate -c seedfall.json -seeds 18 -only net_dup_chunk",
			SeedsPassed: 17, Hits: 212, Operation: "connection write to a node that takes faults"},
		Mutant{Kind: KindMutant, Name: "flip_comparison", Source: "app", File: "server/main.go", Line: 95, Change: "a < b -> a >= b",
			Verdict: VerdictSurvived, SeedsPassed: 20},
		MutateSummary{Kind: KindSummary, Tool: "sf-mutate", Config: "seedfall.json", Baseline: "pass", Mutants: 2, Killed: 1, Survived: 1,
			Score: 0.5, RealNs: 9_000_000_000, Status: "survived"},
		// An exploration (sf-run -explore) whose run 6 fails, the shrink of
		// that run and its cause curve: each carries the run.
		Start{Kind: KindStart, Tool: "sf-run", Version: "0.1.0", Schema: Schema, Config: "seedfall.json", Seeds: "1", Count: 1, Jobs: 2,
			ExploreRuns: 14},
		Seed{Kind: KindSeed, Seed: 1, Config: "seedfall.json", FaultsFile: ".seedfall/seedfall/explore-1-run-6.faults.json", Status: "fail",
			Class: "assert", Message: "client#1: lost", Property: "lost", Node: "client#1", AtNs: 2_143_799_000, Steps: 812, HostCalls: 5102,
			RealNs: 31_000_000, DeterminismHash: "9a3c0c1e5f7b2d44", Faults: 4,
			Artifacts: &Artifacts{Trace: ".seedfall/seedfall/explore-1-run-6.trace.log", Faults: ".seedfall/seedfall/explore-1-run-6.faults.json"},
			Repro:     "sf-run -c seedfall.json -seed 1 -faults .seedfall/seedfall/explore-1-run-6.faults.json", ExploreRun: 6, Branches: 1},
		Summary{Kind: KindSummary, Tool: "sf-run", Config: "seedfall.json", Seeds: 14, Passed: 13, Failed: 1, FailedSeeds: []uint64{1},
			Properties: []Property{}, RealNs: 400_000_000, Status: "fail",
			Explore: &ExploreCounts{Runs: 14, StartingSeeds: 1, Branches: 13, Budget: 14, Corpus: 2, NewStates: 3, BranchedFailures: 1}},
		Start{Kind: KindStart, Tool: "sf-shrink", Version: "0.1.0", Schema: Schema, Count: 1, Jobs: 2},
		Shrink{Kind: KindShrink, Seed: 1, Config: "seedfall.json", Class: "assert", Message: "client#1: lost", Node: "client#1",
			FaultsBefore: 4, FaultsAfter: 1, ShrinkRuns: 9, Duration: "1.3s", DurationNs: 1_300_000_000,
			Schedule: ".seedfall/seedfall/explore-1-run-6.shrunk.faults.json",
			Repro:    "sf-run -c seedfall.json -seed 1 -faults .seedfall/seedfall/explore-1-run-6.shrunk.faults.json", ExploreRun: 6},
		ShrinkSummary{Kind: KindSummary, Tool: "sf-shrink", Shrunk: 1, RealNs: 1_000_000_000, Status: "shrunk"},
		Start{Kind: KindStart, Tool: "sf-shrink", Version: "0.1.0", Schema: Schema, Count: 1, Jobs: 2},
		Cause{Kind: KindCause, Seed: 1, Config: "seedfall.json", Failure: "assert: lost", FailAtNs: 2_143_799_000, At: "900ms",
			AtNs: 900_000_000, Branches: 4, Same: 4, Share: 1, Inevitable: true, Faults: []string{"0.9s crash server, restart at 1.1s"},
			Repro: "sf-run -c seedfall.json -seed 1 -faults .seedfall/seedfall/explore-1-run-6.faults.json", ExploreRun: 6},
		ShrinkSummary{Kind: KindSummary, Tool: "sf-shrink", Caused: 1, RealNs: 2_000_000_000, Status: "caused"},
	}
}

// TestGolden pins the encoding of every record kind: the format only ever
// grows by adding fields, and this file shows when it changes.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, r := range sample() {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	const golden = "testdata/golden.jsonl"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("records changed:\n%s\nwant:\n%s", buf.Bytes(), want)
	}
}

// TestReaderSkipsUnknown: readers ignore kinds and fields they do not know,
// and name the line of a record that is not JSON.
func TestReaderSkipsUnknown(t *testing.T) {
	in := `{"kind":"start","tool":"sf-run","schema":1,"future_field":true}
{"kind":"shrink","seed":4}

{"kind":"seed","seed":7,"status":"pass","new":{"x":1}}
{"kind":"summary","seeds":1,"status":"pass"}
`
	r := NewReader(strings.NewReader(in), "in.jsonl")
	var kinds []string
	for {
		a, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, a.Kind)
		if a.Kind == KindShrink && a.Shrink.Seed != 4 {
			t.Errorf("shrink record decoded as %+v", a.Shrink)
		}
		if a.Kind == KindSeed && a.Seed.Seed != 7 {
			t.Errorf("seed record decoded as %+v", a.Seed)
		}
	}
	if strings.Join(kinds, ",") != "start,shrink,seed,summary" {
		t.Errorf("kinds %v", kinds)
	}
	_, err := NewReader(strings.NewReader("{\"kind\":\"seed\"}\nnot json\n"), "bad.jsonl").Next()
	if err != nil {
		t.Fatalf("first line: %v", err)
	}
	r = NewReader(strings.NewReader("{\"kind\":\"seed\"}\nnot json\n"), "bad.jsonl")
	r.Next()
	if _, err := r.Next(); err == nil || !strings.HasPrefix(err.Error(), "bad.jsonl:2: not a JSON record") {
		t.Errorf("error %v, want one naming bad.jsonl:2", err)
	}
}

// TestReaderDeepLine: gjson's validator recurses once per level of nesting,
// so a line of millions of '[' would overflow the stack and crash the tool;
// Valid refuses it first, and the Reader says why. A record nested
// DepthMax deep still reads.
func TestReaderDeepLine(t *testing.T) {
	deep := strings.Repeat("[", 4<<20)
	r := NewReader(strings.NewReader(deep+"\n"), "deep.jsonl")
	if _, err := r.Next(); err == nil || err.Error() != "deep.jsonl:1: not a JSON record: nested deeper than 256 levels" {
		t.Errorf("error %v, want one saying deep.jsonl:1 is nested too deep", err)
	}
	nested := `{"kind":"seed","seed":3,"x":` + strings.Repeat("[", DepthMax-1) + strings.Repeat("]", DepthMax-1) + `}`
	a, err := NewReader(strings.NewReader(nested+"\n"), "ok.jsonl").Next()
	if err != nil || a.Seed == nil || a.Seed.Seed != 3 {
		t.Errorf("record nested %d deep: %+v, %v", DepthMax, a, err)
	}
	for in, want := range map[string]string{
		`[1]`:                        "not a JSON record: a JSON array, not an object",
		`{"kind":"seed"`:             "not a JSON record: unexpected end of JSON input",
		`{"kind":"seed","seed":"x"}`: "bad seed record: json: cannot unmarshal",
	} {
		_, err := NewReader(strings.NewReader(in), "b.jsonl").Next()
		if err == nil || !strings.HasPrefix(err.Error(), "b.jsonl:1: "+want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}

// TestReaderLineLimit: a line over the limit is an error that names its line
// and the limit, whether or not it ends with a newline; a line at the limit
// is read.
func TestReaderLineLimit(t *testing.T) {
	const max = 32
	seed := `{"kind":"seed","seed":12345678}` // 31 bytes
	tests := []struct{ name, in, want string }{
		{"at the limit", seed + " \n", ""},
		{"over, then a newline", seed + "\n" + seed + "  \n", "in.jsonl:2: record is longer than the limit of 32 bytes"},
		{"over at the end", seed + "\n\n" + seed + "  ", "in.jsonl:3: record is longer than the limit of 32 bytes"},
		{"far over", seed + "\n" + strings.Repeat(" ", 1000) + "\n", "in.jsonl:2: record is longer than the limit of 32 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReader(strings.NewReader(tt.in), "in.jsonl", max)
			var err error
			for err == nil {
				_, err = r.Next()
			}
			if tt.want == "" {
				if err != io.EOF {
					t.Errorf("got %v, want io.EOF", err)
				}
				return
			}
			if err.Error() != tt.want {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
	// The default limit is LineBytesMax: a longer line is an error, not a
	// silent end of the stream.
	big := seed + "\n" + `{"kind":"seed","message":"` + strings.Repeat("x", LineBytesMax) + `"}` + "\n"
	r := NewReader(strings.NewReader(big), "big.jsonl")
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || err.Error() != "big.jsonl:2: record is longer than the limit of 16777216 bytes" {
		t.Errorf("got %v", err)
	}
}

// TestReaderDecodesGolden: every record of the golden stream decodes into
// its own type, and sf-shrink's summary is told apart from sf-run's; an
// exploration's records keep their explore fields, its cause curve's
// explore_run among them.
func TestReaderDecodesGolden(t *testing.T) {
	f, err := os.Open("testdata/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f, "golden.jsonl")
	var got []string
	for {
		a, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case a.Start != nil && a.Start.ExploreRuns > 0:
			got = append(got, fmt.Sprintf("start/%s/explore-%d", a.Start.Tool, a.Start.ExploreRuns))
		case a.Start != nil:
			got = append(got, "start/"+a.Start.Tool)
		case a.Seed != nil && a.Seed.ExploreRun > 0:
			got = append(got, fmt.Sprintf("seed/run-%d/%d-branches", a.Seed.ExploreRun, a.Seed.Branches))
		case a.Seed != nil:
			got = append(got, "seed")
		case a.Summary != nil && a.Summary.Explore != nil:
			got = append(got, fmt.Sprintf("summary/%s/%d-runs", a.Summary.Tool, a.Summary.Explore.Runs))
		case a.Summary != nil:
			got = append(got, "summary/"+a.Summary.Tool)
		case a.Shrink != nil && a.Shrink.ExploreRun > 0:
			got = append(got, fmt.Sprintf("shrink/run-%d", a.Shrink.ExploreRun))
		case a.Shrink != nil:
			got = append(got, "shrink")
		case a.Cause != nil && a.Cause.ExploreRun > 0:
			got = append(got, fmt.Sprintf("cause/%s/run-%d", a.Cause.At, a.Cause.ExploreRun))
		case a.Cause != nil:
			got = append(got, "cause/"+a.Cause.At)
		case a.ShrinkSummary != nil:
			got = append(got, "shrink-summary/"+a.ShrinkSummary.Status)
		case a.Mutant != nil:
			got = append(got, "mutant/"+a.Mutant.Source)
		case a.MutateSummary != nil:
			got = append(got, "mutate-summary")
		case a.Pin != nil:
			got = append(got, "pin/"+a.Pin.Status)
		}
	}
	want := "start/sf-run,seed,pin/fail,seed,summary/sf-run,start/sf-shrink,shrink,shrink-summary/shrunk," +
		"start/sf-shrink,cause/0s,cause/1.2s,shrink-summary/caused,start/sf-mutate,mutant/runtime,mutant/app,mutate-summary," +
		"start/sf-run/explore-14,seed/run-6/1-branches,summary/sf-run/14-runs,start/sf-shrink,shrink/run-6,shrink-summary/shrunk," +
		"start/sf-shrink,cause/900ms/run-6,shrink-summary/caused"
	if strings.Join(got, ",") != want {
		t.Fatalf("decoded %v, want %s", got, want)
	}
}

// TestCapped: a capped stream reads up to its limit and then fails, rather
// than ending quietly as if the stream were complete.
func TestCapped(t *testing.T) {
	got, err := io.ReadAll(Capped(strings.NewReader("abcdef"), 6))
	if err != nil || string(got) != "abcdef" {
		t.Fatalf("at the limit: %q, %v", got, err)
	}
	got, err = io.ReadAll(Capped(strings.NewReader("abcdefg"), 6))
	if err != ErrStreamTooLarge || string(got) != "abcdef" {
		t.Fatalf("over the limit: %q, %v; want the first 6 bytes and ErrStreamTooLarge", got, err)
	}
}
