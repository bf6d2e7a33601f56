// Package report turns the record streams of sf-run and sf-shrink into a
// report of what a sweep found: its summary, the replays of its pinned
// regressions, its failures (seeds' and pins') grouped into findings, its
// property and buggify tables and the history checks that gave up, as
// text, Markdown or one self-contained HTML page. Shards of one sweep are
// merged into it, and a findings file carries each finding's status from
// one report to the next.
package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/sf-dst/sf/lib/compressed"
	"github.com/sf-dst/sf/lib/echo"
	"github.com/sf-dst/sf/lib/margin"
	"github.com/sf-dst/sf/lib/record"
)

// Input is one stream of records: a file, or standard input.
type Input struct {
	Name string // the file as given, or "<stdin>", for errors
	R    io.Reader
}

// stream is one tool's records, from its start record to the next one.
type stream struct {
	source string // name:line of the start record
	start  record.Start
	k, n   int // the shard, K of N; 0 and 0 when unsharded
	seeds  []record.Seed
	// summary is the sf-run summary that closed the stream; nil when the
	// stream ended without one (the run was killed).
	summary *record.Summary
	shrinks []record.Shrink
	causes  []record.Cause
	// pins are the replays of the world's pinned regressions, before the
	// sweep's seeds.
	pins []record.Pin
	// shrinkDone says an sf-shrink stream reached its summary.
	shrinkDone bool
}

// readStreams reads every record of in, decompressed if it is zstd or gzip,
// and cuts them into streams.
func readStreams(in Input) ([]*stream, error) {
	r, err := compressed.Open(in.R)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	s := bufio.NewScanner(record.Capped(r, record.StreamBytesMax))
	s.Buffer(make([]byte, 64<<10), record.LineBytesMax+2)
	var out []*stream
	var cur *stream
	line := 0
	for s.Scan() {
		line++
		b := s.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		where := fmt.Sprintf("%s:%d", in.Name, line)
		if !record.Valid(b) || !gjson.ParseBytes(b).IsObject() {
			return nil, fmt.Errorf("%s: not a JSON record%s", where, notRecordsHint(b))
		}
		rec := gjson.ParseBytes(b)
		kind := rec.Get("kind").String()
		if kind == record.KindStart {
			cur = &stream{source: where, start: startOf(rec)}
			if sh := cur.start.Shard; sh != "" {
				k, n, err := parseShard(sh)
				if err != nil {
					return nil, fmt.Errorf("%s: shard: %v", where, err)
				}
				cur.k, cur.n = k, n
			}
			out = append(out, cur)
			continue
		}
		if kind != record.KindSeed && kind != record.KindSummary && kind != record.KindShrink && kind != record.KindCause && kind != record.KindPin {
			continue // a kind this version does not know
		}
		if cur == nil {
			return nil, fmt.Errorf("%s: a %s record before any start record: give each stream whole, from its start record", where, kind)
		}
		if err := checkNumbers(rec, kind); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		switch kind {
		case record.KindSeed:
			if cur.start.Tool != "sf-run" {
				continue
			}
			cur.seeds = append(cur.seeds, seedOf(rec))
		case record.KindPin:
			if cur.start.Tool != "sf-run" {
				continue
			}
			cur.pins = append(cur.pins, pinOf(rec))
		case record.KindShrink:
			cur.shrinks = append(cur.shrinks, shrinkOf(rec))
		case record.KindCause:
			cur.causes = append(cur.causes, causeOf(rec))
		case record.KindSummary:
			switch rec.Get("tool").String() {
			case "sf-shrink":
				cur.shrinkDone = true
			case "sf-run", "":
				if cur.start.Tool == "sf-run" {
					sum := summaryOf(rec)
					cur.summary = &sum
				}
			}
		}
	}
	if err := s.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s:%d: record is longer than the limit of %d bytes", in.Name, line+1, record.LineBytesMax)
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	return out, nil
}

// countFields are the fields of a summary that count seeds or runs.
var countFields = []string{"seeds", "passed", "failed", "horizon", "nondeterministic", "gave_up", "property_failures", "pins", "pins_failed"}

// checkNumbers refuses a record whose seed, or a summary whose counts,
// are not whole numbers from 0: read as they are, "one" and -1 would
// become seed 0, and a count of -7 would be added to the others.
func checkNumbers(rec gjson.Result, kind string) error {
	fields := []string{"seed"}
	if kind == record.KindSummary {
		fields = countFields
	}
	for _, f := range fields {
		v := rec.Get(f)
		switch {
		case !v.Exists() && kind == record.KindSummary:
			continue
		case !v.Exists():
			return fmt.Errorf("a %s record without its seed", kind)
		case !wholeNumber(v):
			what := "seed"
			if kind == record.KindSummary {
				what = "count"
			}
			return fmt.Errorf("%s: %s is not a %s (a whole number from 0)", f, echo.Cut(v.Raw), what)
		}
	}
	return nil
}

// wholeNumber says whether v is a JSON number written as digits alone that
// fits in 64 bits.
func wholeNumber(v gjson.Result) bool {
	if v.Type != gjson.Number {
		return false
	}
	_, err := strconv.ParseUint(v.Raw, 10, 64)
	return err == nil
}

// notRecordsHint explains the commonest way to feed a tool's report instead
// of its records.
func notRecordsHint(line []byte) string {
	l := string(line)
	if strings.HasPrefix(l, "FAIL ") || strings.HasPrefix(l, "PASS ") || strings.HasPrefix(l, "built ") {
		return " (this is sf-run's report for people: run sf-run with -json, or pipe it, to get records)"
	}
	return ""
}

func parseShard(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		k, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("%q is not K/N with 1 <= K <= N", s)
	}
	return k, n, nil
}

func strings_(r gjson.Result) []string {
	var out []string
	for _, v := range r.Array() {
		out = append(out, v.String())
	}
	return out
}

func startOf(r gjson.Result) record.Start {
	return record.Start{Kind: record.KindStart, Tool: r.Get("tool").String(), Version: r.Get("version").String(),
		Schema: int(r.Get("schema").Int()), Config: r.Get("config").String(), Profile: r.Get("profile").String(),
		Set: strings_(r.Get("set")), Seeds: r.Get("seeds").String(), Count: int(r.Get("count").Int()),
		Jobs: int(r.Get("jobs").Int()), Check: r.Get("check").Bool(), Shard: r.Get("shard").String(),
		ExploreRuns: int(r.Get("explore_runs").Int())}
}

func seedOf(r gjson.Result) record.Seed {
	s := record.Seed{Kind: record.KindSeed, Seed: r.Get("seed").Uint(), Config: r.Get("config").String(),
		Profile: r.Get("profile").String(), Set: strings_(r.Get("set")), FaultsFile: r.Get("faults_file").String(),
		Status: r.Get("status").String(), Class: r.Get("class").String(), Message: r.Get("message").String(),
		Property: r.Get("property").String(), Node: r.Get("node").String(), AtNs: r.Get("at_ns").Int(),
		Steps: r.Get("steps").Uint(), HostCalls: r.Get("host_calls").Uint(), RealNs: r.Get("real_ns").Int(),
		DeterminismHash: r.Get("determinism_hash").String(), Faults: int(r.Get("faults").Int()),
		HistoryCheck: r.Get("history_check").String(), Repro: r.Get("repro").String(), HostStall: r.Get("host_stall").Bool(),
		ExploreRun: int(r.Get("explore_run").Int()), Branches: int(r.Get("branches").Int())}
	s.Artifacts = artifactsOf(r.Get("artifacts"))
	return s
}

// artifactsOf reads a record's artifacts object; nil when it has none.
func artifactsOf(a gjson.Result) *record.Artifacts {
	if !a.IsObject() {
		return nil
	}
	return &record.Artifacts{Trace: a.Get("trace").String(), Faults: a.Get("faults").String(),
		History: a.Get("history").String(), Timeline: a.Get("timeline").String()}
}

func pinOf(r gjson.Result) record.Pin {
	return record.Pin{Kind: record.KindPin, Pin: r.Get("pin").String(), Seed: r.Get("seed").Uint(), Config: r.Get("config").String(),
		Profile: r.Get("profile").String(), Set: strings_(r.Get("set")), Status: r.Get("status").String(),
		Class: r.Get("class").String(), Message: r.Get("message").String(), Property: r.Get("property").String(),
		Node: r.Get("node").String(), AtNs: r.Get("at_ns").Int(), Steps: r.Get("steps").Uint(),
		HostCalls: r.Get("host_calls").Uint(), RealNs: r.Get("real_ns").Int(), DeterminismHash: r.Get("determinism_hash").String(),
		Faults: int(r.Get("faults").Int()), PinnedMessage: r.Get("pinned_message").String(),
		PinnedFingerprint: r.Get("pinned_fingerprint").String(), Fingerprint: r.Get("fingerprint").String(),
		SameFailure: r.Get("same_failure").Bool(), Artifacts: artifactsOf(r.Get("artifacts")), Repro: r.Get("repro").String()}
}

func shrinkOf(r gjson.Result) record.Shrink {
	return record.Shrink{Kind: record.KindShrink, Seed: r.Get("seed").Uint(), Config: r.Get("config").String(),
		Profile: r.Get("profile").String(), Set: strings_(r.Get("set")), Class: r.Get("class").String(),
		Message: r.Get("message").String(), Node: r.Get("node").String(), FaultsBefore: int(r.Get("faults_before").Int()),
		FaultsAfter: int(r.Get("faults_after").Int()), ShrinkRuns: int(r.Get("shrink_runs").Int()),
		Duration: r.Get("duration").String(), DurationNs: r.Get("duration_ns").Int(), Budget: int(r.Get("budget").Int()),
		Schedule: r.Get("schedule").String(), Repro: r.Get("repro").String(), Error: r.Get("error").String(),
		ExploreRun: int(r.Get("explore_run").Int())}
}

func causeOf(r gjson.Result) record.Cause {
	return record.Cause{Kind: record.KindCause, Seed: r.Get("seed").Uint(), Config: r.Get("config").String(),
		Profile: r.Get("profile").String(), Set: strings_(r.Get("set")), Failure: r.Get("failure").String(),
		FailAtNs: r.Get("fail_at_ns").Int(), At: r.Get("at").String(), AtNs: r.Get("at_ns").Int(),
		Branches: int(r.Get("branches").Int()), Same: int(r.Get("same").Int()), Share: r.Get("share").Float(),
		Inevitable: r.Get("inevitable").Bool(), Faults: strings_(r.Get("faults")), Repro: r.Get("repro").String(),
		ExploreRun: int(r.Get("explore_run").Int())}
}

func summaryOf(r gjson.Result) record.Summary {
	s := record.Summary{Kind: record.KindSummary, Tool: r.Get("tool").String(), Config: r.Get("config").String(),
		Seeds: int(r.Get("seeds").Int()), Passed: int(r.Get("passed").Int()), Failed: int(r.Get("failed").Int()),
		Horizon: int(r.Get("horizon").Int()), Nondeterministic: int(r.Get("nondeterministic").Int()),
		GaveUp: int(r.Get("gave_up").Int()), PropertyFailures: int(r.Get("property_failures").Int()),
		RealNs: r.Get("real_ns").Int(), Status: r.Get("status").String(), Interrupted: r.Get("interrupted").Bool(),
		HostStalls: int(r.Get("host_stalls").Int()), Pins: int(r.Get("pins").Int()), PinsFailed: int(r.Get("pins_failed").Int())}
	if e := r.Get("explore"); e.IsObject() {
		s.Explore = &record.ExploreCounts{Runs: int(e.Get("runs").Int()), StartingSeeds: int(e.Get("starting_seeds").Int()),
			Branches: int(e.Get("branches").Int()), Budget: int(e.Get("budget").Int()), Corpus: int(e.Get("corpus").Int()),
			NewStates: int(e.Get("new_states").Int()), BranchedFailures: int(e.Get("branched_failures").Int())}
	}
	for _, v := range r.Get("failed_seeds").Array() {
		s.FailedSeeds = append(s.FailedSeeds, v.Uint())
	}
	for _, p := range r.Get("properties").Array() {
		row := record.Property{Kind: p.Get("kind").String(), Message: p.Get("message").String(),
			SeedsReached: int(p.Get("seeds_reached").Int()), SeedsTrue: int(p.Get("seeds_true").Int()),
			Verdict: p.Get("verdict").String(), Location: p.Get("location").String()}
		if m := p.Get("margin"); m.Exists() {
			var v margin.Value
			if v.UnmarshalJSON([]byte(m.Raw)) == nil {
				row.Margin = &v
			}
		}
		s.Properties = append(s.Properties, row)
	}
	for _, b := range r.Get("buggify_sites").Array() {
		s.BuggifySites = append(s.BuggifySites, record.BuggifySite{Site: b.Get("site").String(),
			SeedsReached: int(b.Get("seeds_reached").Int()), SeedsEnabled: int(b.Get("seeds_enabled").Int()),
			SeedsFired: int(b.Get("seeds_fired").Int()), Fired: int(b.Get("fired").Int()),
			Verdict: b.Get("verdict").String(), Location: b.Get("location").String()})
	}
	return s
}
