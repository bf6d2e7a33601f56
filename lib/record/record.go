// Package record defines the JSONL records the sf tools exchange. Every line
// is one JSON object with a "kind" field; a stream starts with a "start"
// record, has one "seed" record per seed, and ends with a "summary" record.
// Readers ignore kinds and fields they do not know, so the format only ever
// grows by adding fields.
package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/sf-dst/sf/lib/echo"
	"github.com/sf-dst/sf/lib/margin"
)

// Schema is the version of the record format. It changes only when a field
// changes meaning or goes away.
const Schema = 1

// Record kinds.
const (
	KindStart   = "start"
	KindSeed    = "seed"
	KindSummary = "summary"
	KindShrink  = "shrink"
	KindMutant  = "mutant"
	KindPin     = "pin"
	KindCause   = "cause"
)

// Start opens a stream.
type Start struct {
	Kind    string `json:"kind"`
	Tool    string `json:"tool"`
	Version string `json:"version"`
	Schema  int    `json:"schema"`
	Config  string `json:"config"`
	// Profile and Set are the -profile and -set the world was loaded with,
	// so that a downstream tool loads the same world.
	Profile string   `json:"profile,omitempty"`
	Set     []string `json:"set,omitempty"`
	Seeds   string   `json:"seeds"`
	Count   int      `json:"count"`
	Jobs    int      `json:"jobs"`
	Check   bool     `json:"check,omitempty"`
	// Shard is "K/N" when the stream is the K-th of N slices of the seeds
	// (sf-run -shard K/N): Seeds is then the whole sweep's seed set and
	// Count the seeds of this slice. Empty for an unsharded sweep.
	Shard string `json:"shard,omitempty"`
	// ExploreRuns is the budget of runs of sf-run -explore, set only on
	// an exploration's stream: its seed records are then the failing runs
	// alone, Seeds and Count are the starting seeds, and the summary counts
	// runs (see Summary).
	ExploreRuns int `json:"explore_runs,omitempty"`
}

// Artifacts names the files written for one seed.
type Artifacts struct {
	Trace    string `json:"trace,omitempty"`
	Faults   string `json:"faults,omitempty"`
	History  string `json:"history,omitempty"`
	Timeline string `json:"timeline,omitempty"`
}

// Seed is the outcome of one seed.
type Seed struct {
	Kind    string   `json:"kind"`
	Seed    uint64   `json:"seed"`
	Config  string   `json:"config"`
	Profile string   `json:"profile,omitempty"`
	Set     []string `json:"set,omitempty"`
	// Faults file replayed instead of drawing faults (-faults), if any.
	FaultsFile string `json:"faults_file,omitempty"`
	Status     string `json:"status"`
	Class      string `json:"class,omitempty"`
	Message    string `json:"message,omitempty"`
	// Property is the message of the property check that ended the run,
	// without the failing instance; empty when the failure was not a
	// property's (a panic, an exit, liveness).
	Property        string `json:"property,omitempty"`
	Node            string `json:"node,omitempty"`
	AtNs            int64  `json:"at_ns"`
	Steps           uint64 `json:"steps"`
	HostCalls       uint64 `json:"host_calls"`
	RealNs          int64  `json:"real_ns"`
	DeterminismHash string `json:"determinism_hash"`
	Faults          int    `json:"faults"`
	// HistoryCheck is the verdict of the recorded history's check: ok,
	// illegal, or unknown when the checker gave up. Empty when nothing was
	// recorded.
	HistoryCheck string `json:"history_check,omitempty"`
	// HostStall says the seed's first run failed with class watchdog and a
	// second run did not: the host, not the program, stalled. The record
	// is that of the second run.
	HostStall bool       `json:"host_stall,omitempty"`
	Artifacts *Artifacts `json:"artifacts,omitempty"`
	Repro     string     `json:"repro"`
	// Pinned is the pin file sf-run -pin wrote for this failing seed.
	Pinned string `json:"pinned,omitempty"`
	// ExploreRun is, in an exploration's stream, the 1-based number of the
	// run that failed; one seed may fail in several runs, each its own
	// record. Branches counts the branches of that run (0 for a starting
	// seed run plainly); a branched run's FaultsFile is the schedule
	// sf-run -explore wrote, which -seed N -faults replays.
	ExploreRun int `json:"explore_run,omitempty"`
	Branches   int `json:"branches,omitempty"`
}

// Pin is the replay of one pinned regression. sf-run writes one per pin of
// the world, after the start record and before the seed records.
type Pin struct {
	Kind string `json:"kind"`
	// Pin is the pin file; Seed is the seed it was pinned from.
	Pin     string   `json:"pin"`
	Seed    uint64   `json:"seed"`
	Config  string   `json:"config"`
	Profile string   `json:"profile,omitempty"`
	Set     []string `json:"set,omitempty"`
	// Status is pass (the regression stays fixed), fail (it came back),
	// horizon or nondeterministic, as in a seed record.
	Status          string `json:"status"`
	Class           string `json:"class,omitempty"`
	Message         string `json:"message,omitempty"`
	Property        string `json:"property,omitempty"`
	Node            string `json:"node,omitempty"`
	AtNs            int64  `json:"at_ns"`
	Steps           uint64 `json:"steps"`
	HostCalls       uint64 `json:"host_calls"`
	RealNs          int64  `json:"real_ns"`
	DeterminismHash string `json:"determinism_hash"`
	Faults          int    `json:"faults"`
	// PinnedMessage and PinnedFingerprint are how the seed failed when it
	// was pinned; Fingerprint is how this replay failed, and SameFailure
	// says the two fingerprints agree.
	PinnedMessage     string     `json:"pinned_message,omitempty"`
	PinnedFingerprint string     `json:"pinned_fingerprint,omitempty"`
	Fingerprint       string     `json:"fingerprint,omitempty"`
	SameFailure       bool       `json:"same_failure,omitempty"`
	Artifacts         *Artifacts `json:"artifacts,omitempty"`
	Repro             string     `json:"repro"`
}

// Property is one row of the sweep's property table.
type Property struct {
	Kind         string `json:"kind"`
	Message      string `json:"message"`
	SeedsReached int    `json:"seeds_reached"`
	SeedsTrue    int    `json:"seeds_true"`
	Verdict      string `json:"verdict,omitempty"` // "never reached", "never true", or empty when satisfied
	// Margin is, for comparison properties, the smallest margin of an always
	// over every hit and seed, or the largest of a sometimes.
	// A margin of integers is exact; a non-finite one is the string "+Inf",
	// "-Inf" or "NaN".
	Margin *margin.Value `json:"margin,omitempty"`
	// Location is where the catalog found the property ("client/main.go:41").
	Location string `json:"location,omitempty"`
}

// BuggifySite is one row of the sweep's buggify table.
type BuggifySite struct {
	Site         string `json:"site"`
	SeedsReached int    `json:"seeds_reached"`
	SeedsEnabled int    `json:"seeds_enabled"`
	SeedsFired   int    `json:"seeds_fired"`
	Fired        int    `json:"fired"`
	Verdict      string `json:"verdict,omitempty"` // "never reached" or "never fired"
	Location     string `json:"location,omitempty"`
}

// Summary closes an sf-run stream.
type Summary struct {
	Kind string `json:"kind"`
	// Tool is the tool that wrote the stream: sf-run. An sf-shrink stream
	// ends with a ShrinkSummary instead.
	Tool             string `json:"tool,omitempty"`
	Config           string `json:"config"`
	Seeds            int    `json:"seeds"`
	Passed           int    `json:"passed"`
	Failed           int    `json:"failed"`
	Horizon          int    `json:"horizon"`
	Nondeterministic int    `json:"nondeterministic"`
	// GaveUp counts seeds whose history check gave up, at its step budget
	// or its time limit: they neither passed nor failed on it. Such a seed
	// is not counted in Passed (one that failed otherwise is in Failed), so
	// Seeds-Passed-Failed are the seeds that only gave up; any of them
	// makes Status fail, as sf-check's exit status is 1 for such a check.
	GaveUp int `json:"gave_up,omitempty"`
	// GaveUpSeeds are the seeds GaveUp counts, in seed order.
	GaveUpSeeds []uint64 `json:"gave_up_seeds,omitempty"`
	// HostStalls counts seeds whose first run failed with class watchdog
	// and whose second run did not (see Seed.HostStall): the host stalled,
	// so each counts as its second run came out, not as a watchdog failure.
	HostStalls       int           `json:"host_stalls,omitempty"`
	FailedSeeds      []uint64      `json:"failed_seeds"`
	Properties       []Property    `json:"properties"`
	PropertyFailures int           `json:"property_failures"`
	BuggifySites     []BuggifySite `json:"buggify_sites,omitempty"`
	RealNs           int64         `json:"real_ns"`
	Status           string        `json:"status"` // pass, fail or interrupted (as the exit status says)
	// Interrupted says the sweep was stopped (SIGINT or SIGTERM) before
	// every seed ran: the counts cover the seeds that finished.
	Interrupted bool `json:"interrupted,omitempty"`
	// Pins counts the pinned regressions replayed before the sweep, and
	// PinsFailed those that failed; a failed pin fails the sweep.
	Pins       int `json:"pins,omitempty"`
	PinsFailed int `json:"pins_failed,omitempty"`
	// Explore is set on the summary of sf-run -explore. There every run,
	// starting seed or branch, counts as one seed: Seeds is the runs made,
	// Passed and Failed split them (a run at the time horizon passed and is
	// in Horizon too), and FailedSeeds lists the seeds that failed in some
	// run, each once, in the order of their first failing run.
	// Properties is empty: explore keeps no per-property table.
	Explore *ExploreCounts `json:"explore,omitempty"`
}

// ExploreCounts is what an exploration did, in its summary.
type ExploreCounts struct {
	// Runs is the runs made, StartingSeeds of them the starting seeds run
	// plainly and Branches the branched runs; Budget is -explore-runs.
	Runs          int `json:"runs"`
	StartingSeeds int `json:"starting_seeds"`
	Branches      int `json:"branches"`
	Budget        int `json:"budget"`
	// Corpus is the passing runs kept for reaching something no run had
	// reached before, and NewStates how many such things they reached.
	Corpus    int `json:"corpus"`
	NewStates int `json:"new_states"`
	// BranchedFailures counts the failing runs that had branches.
	BranchedFailures int `json:"branched_failures"`
}

// Shrink is what sf-shrink made of one failing seed.
type Shrink struct {
	Kind    string   `json:"kind"`
	Seed    uint64   `json:"seed"`
	Config  string   `json:"config"`
	Profile string   `json:"profile,omitempty"`
	Set     []string `json:"set,omitempty"`
	// Class, Message and Node are how the shrunk run fails: the same way
	// as the seed, though details in the message may differ.
	Class        string `json:"class"`
	Message      string `json:"message"`
	Node         string `json:"node,omitempty"`
	FaultsBefore int    `json:"faults_before"`
	FaultsAfter  int    `json:"faults_after"`
	ShrinkRuns   int    `json:"shrink_runs"`
	// Duration is when the shrunk run fails, as a Go duration string;
	// DurationNs is the same in nanoseconds.
	Duration   string `json:"duration"`
	DurationNs int64  `json:"duration_ns"`
	// Budget is the sim.Budget cap the shrunk schedule sets; 0 when none.
	Budget   int    `json:"budget,omitempty"`
	Schedule string `json:"schedule"`
	// History is the shrunk run's recorded history, written next to the
	// schedule (seed-N.shrunk.history.jsonl); Timeline its timeline, on a
	// linearizability failure (seed-N.shrunk.history.html). Empty when the
	// run recorded no history.
	History  string `json:"history,omitempty"`
	Timeline string `json:"timeline,omitempty"`
	Repro    string `json:"repro"`
	// Error, when set, says why the seed could not be shrunk; the other
	// counts are then 0.
	Error string `json:"error,omitempty"`
	// Pinned is the pin file sf-shrink -pin wrote for the shrunk seed.
	Pinned string `json:"pinned,omitempty"`
	// ExploreRun is the run of sf-run -explore the shrunk schedule came
	// from (the seed record's explore_run); 0 for a sweep's seed.
	ExploreRun int `json:"explore_run,omitempty"`
}

// Cause is one point of the curve sf-shrink -cause draws for a failing
// seed: branched at At, how many of Branches runs still failed the same way.
// A seed's points come in order of At.
type Cause struct {
	Kind    string   `json:"kind"`
	Seed    uint64   `json:"seed"`
	Config  string   `json:"config"`
	Profile string   `json:"profile,omitempty"`
	Set     []string `json:"set,omitempty"`
	// Failure is how the seed fails, as sf-shrink compares failures
	// ("assert: acknowledged write lost"); FailAtNs is when.
	Failure  string `json:"failure"`
	FailAtNs int64  `json:"fail_at_ns"`
	// At is the moment as a Go duration string; AtNs the same in
	// nanoseconds.
	At       string `json:"at"`
	AtNs     int64  `json:"at_ns"`
	Branches int    `json:"branches"`
	Same     int    `json:"same"`
	// Share is Same / Branches.
	Share float64 `json:"share"`
	// Inevitable says this point and every later one have a share of 1:
	// from here on the failure no longer depends on what comes after.
	Inevitable bool `json:"inevitable,omitempty"`
	// Faults describes the seed's faults that fired since the previous
	// point and before this one, which this point's branches keep.
	Faults []string `json:"faults,omitempty"`
	// Repro runs the seed as it failed.
	Repro string `json:"repro"`
	// ExploreRun is the run of sf-run -explore the curve is of (the seed
	// record's explore_run); 0 for a sweep's seed. Its branches keep the
	// run's own branches before their moment.
	ExploreRun int `json:"explore_run,omitempty"`
}

// ShrinkSummary closes an sf-shrink stream.
type ShrinkSummary struct {
	Kind   string `json:"kind"`
	Tool   string `json:"tool"`
	Shrunk int    `json:"shrunk"`
	// Caused counts the seeds whose cause curve sf-shrink -cause drew.
	Caused int `json:"caused,omitempty"`
	// Errors counts the seeds that could not be shrunk.
	Errors int `json:"errors"`
	// Skipped counts failing seeds of the input past -max, or that were
	// not failures sf-shrink can replay (nondeterministic):
	// SkippedPastMax and SkippedNondeterministic split it.
	Skipped                 int    `json:"skipped"`
	SkippedPastMax          int    `json:"skipped_past_max,omitempty"`
	SkippedNondeterministic int    `json:"skipped_nondeterministic,omitempty"`
	RealNs                  int64  `json:"real_ns"`
	Status                  string `json:"status"` // shrunk, caused, nothing, error or interrupted
	// Interrupted says SIGINT or SIGTERM stopped sf-shrink before every
	// seed was shrunk; the counts cover the seeds it finished.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Mutant is sf-mutate's verdict on one mutant.
type Mutant struct {
	Kind string `json:"kind"`
	// Name is the runtime mutant's name (fsync_noop), or for a source
	// mutant its change (flip_comparison) at File:Line.
	Name string `json:"name"`
	// Source is "runtime" for a mutant of the simulated world and "app" for
	// one of the program's own source.
	Source string `json:"source"`
	// File and Line locate a source mutant, File relative to the world
	// file's folder; Change shows the edit ("a < b -> a >= b").
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Change string `json:"change,omitempty"`
	// Node is the node whose build a source mutant changed: a package that
	// several nodes run is mutated in one of them at a time.
	Node string `json:"node,omitempty"`
	// Verdict is killed, survived, not_exercised or did_not_build.
	Verdict string `json:"verdict"`
	// KilledBySeed is the first seed that failed with the mutant, and
	// Reason how it failed; Repro replays that seed with the mutant.
	KilledBySeed uint64 `json:"killed_by_seed,omitempty"`
	Reason       string `json:"reason,omitempty"`
	Repro        string `json:"repro,omitempty"`
	// SeedsPassed counts the seeds that passed with the mutant.
	SeedsPassed int `json:"seeds_passed"`
	// SeedsGaveUp counts the seeds that neither passed nor failed with the
	// mutant because their history check gave up: no operation in the
	// history completed, or it was too long to check. GaveUpSeed is the
	// first of them and GaveUpReason what its check said. Absent when 0.
	SeedsGaveUp  int    `json:"seeds_gave_up,omitempty"`
	GaveUpSeed   uint64 `json:"gave_up_seed,omitempty"`
	GaveUpReason string `json:"gave_up_reason,omitempty"`
	// Hits counts the operations a runtime mutant weakened over the seeds
	// that ran; 0 for a source mutant.
	Hits int `json:"hits"`
	// Operation names what a runtime mutant weakens (for not_exercised).
	Operation string `json:"operation,omitempty"`
}

// Mutant verdicts.
const (
	VerdictKilled       = "killed"
	VerdictSurvived     = "survived"
	VerdictNotExercised = "not_exercised"
	VerdictDidNotBuild  = "did_not_build"
)

// MutateSummary closes an sf-mutate stream.
type MutateSummary struct {
	Kind   string `json:"kind"`
	Tool   string `json:"tool"`
	Config string `json:"config"`
	// Baseline is pass, or fail when the world failed with no mutant (then
	// no mutant was judged and BaselineSeed, BaselineReason and
	// BaselineRepro say how).
	Baseline       string `json:"baseline"`
	BaselineSeed   uint64 `json:"baseline_seed,omitempty"`
	BaselineReason string `json:"baseline_reason,omitempty"`
	BaselineRepro  string `json:"baseline_repro,omitempty"`
	// BaselineGaveUp counts the seeds whose history check gave up with no
	// mutant: on them only the runs' other checks can kill a mutant.
	// Absent when 0.
	BaselineGaveUp int `json:"baseline_gave_up,omitempty"`
	Mutants        int `json:"mutants"`
	Killed         int `json:"killed"`
	Survived       int `json:"survived"`
	NotExercised   int `json:"not_exercised"`
	DidNotBuild    int `json:"did_not_build"`
	// Score is killed / (killed + survived), the share of the exercised
	// mutants that the checks catch; 0 when none was exercised.
	Score  float64 `json:"score"`
	RealNs int64   `json:"real_ns"`
	// Status is pass when every exercised mutant was killed, survived when
	// one survived, baseline_failed when the world fails without mutants.
	Status string `json:"status"`
	// Interrupted says SIGINT or SIGTERM stopped sf-mutate; the counts
	// cover the mutants it judged.
	Interrupted bool `json:"interrupted,omitempty"`
	// HostStalls counts seeds, over the baseline and every mutant, whose
	// run failed on the real-time watchdog and whose second run did not:
	// each counts as its second run came out (see Seed.HostStall).
	HostStalls int `json:"host_stalls,omitempty"`
}

// Writer writes records as whole lines and flushes after each, so a
// downstream tool sees every record as soon as it exists.
type Writer struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Write encodes v as one line.
func (w *Writer) Write(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.w.Write(data)
	w.w.WriteByte('\n')
	return w.w.Flush()
}

// Any is a decoded record of any kind: Kind says which field is set.
type Any struct {
	Kind    string
	Start   *Start
	Seed    *Seed
	Summary *Summary // an sf-run summary
	Shrink  *Shrink
	Cause   *Cause
	// ShrinkSummary is set instead of Summary for a summary whose tool is
	// sf-shrink.
	ShrinkSummary *ShrinkSummary
	Mutant        *Mutant
	Pin           *Pin
	// MutateSummary is set instead of Summary for a summary whose tool is
	// sf-mutate.
	MutateSummary *MutateSummary
	Raw           json.RawMessage
}

// LineBytesMax bounds one record's line, its newline not counted: 16 MiB.
// A seed record is a few hundred bytes and a summary grows with the number of
// properties and failed seeds, to some kilobytes; the bound only keeps a
// stream that is not records (or has no newlines) from exhausting memory.
const LineBytesMax = 16 << 20

// Reader reads a stream of records, skipping kinds it does not know. It holds
// one line at a time, so a stream of any length takes bounded memory.
type Reader struct {
	s    *bufio.Scanner
	name string
	line int
	max  int
}

// NewReader reads records from r; name is used in errors. A line longer than
// LineBytesMax is an error that names it.
func NewReader(r io.Reader, name string) *Reader {
	return newReader(r, name, LineBytesMax)
}

// newReader is NewReader with a line limit of max bytes.
func newReader(r io.Reader, name string, max int) *Reader {
	s := bufio.NewScanner(r)
	// The scanner's buffer holds the line ending too ("\r\n"); Next checks
	// the line itself.
	s.Buffer(make([]byte, min(64<<10, max+2)), max+2)
	return &Reader{s: s, name: name, max: max}
}

// Next returns the next record, or io.EOF at the end of the stream.
// Line is the number of the line Next read last, from 1.
func (r *Reader) Line() int { return r.line }

func (r *Reader) Next() (*Any, error) {
	for r.s.Scan() {
		r.line++
		line := r.s.Bytes()
		if len(line) > r.max {
			return nil, r.tooLong()
		}
		if len(line) == 0 {
			continue
		}
		// gjson validates the line and finds its kind (and a summary's
		// tool) in one pass each; only the record's own struct is decoded
		// with encoding/json, once, as every field of it matters.
		if !Valid(line) {
			return nil, fmt.Errorf("%s:%d: not a JSON record: %v", r.name, r.line, whyInvalid(line))
		}
		rec := gjson.ParseBytes(line)
		if !rec.IsObject() {
			return nil, fmt.Errorf("%s:%d: not a JSON record: a JSON %s, not an object", r.name, r.line, jsonKind(rec))
		}
		k := rec.Get("kind")
		if k.Type != gjson.String || k.Str == "" {
			what := "has no \"kind\""
			if k.Exists() {
				what = fmt.Sprintf("its \"kind\" is %s, not a record kind", echo.Cut(k.Raw))
			}
			return nil, fmt.Errorf("%s:%d: not a record: %s", r.name, r.line, what)
		}
		kind := k.Str
		a := &Any{Kind: kind, Raw: append(json.RawMessage(nil), line...)}
		var err error
		switch kind {
		case KindStart:
			a.Start = &Start{}
			err = json.Unmarshal(line, a.Start)
		case KindSeed:
			a.Seed = &Seed{}
			err = json.Unmarshal(line, a.Seed)
		case KindSummary:
			switch rec.Get("tool").String() {
			case "sf-shrink":
				a.ShrinkSummary = &ShrinkSummary{}
				err = json.Unmarshal(line, a.ShrinkSummary)
			case "sf-mutate":
				a.MutateSummary = &MutateSummary{}
				err = json.Unmarshal(line, a.MutateSummary)
			default:
				a.Summary = &Summary{}
				err = json.Unmarshal(line, a.Summary)
			}
		case KindShrink:
			a.Shrink = &Shrink{}
			err = json.Unmarshal(line, a.Shrink)
		case KindCause:
			a.Cause = &Cause{}
			err = json.Unmarshal(line, a.Cause)
		case KindMutant:
			a.Mutant = &Mutant{}
			err = json.Unmarshal(line, a.Mutant)
		case KindPin:
			a.Pin = &Pin{}
			err = json.Unmarshal(line, a.Pin)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: bad %s record: %v", r.name, r.line, kind, err)
		}
		return a, nil
	}
	if err := r.s.Err(); errors.Is(err, bufio.ErrTooLong) {
		r.line++
		return nil, r.tooLong()
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", r.name, err)
	}
	return nil, io.EOF
}

// DepthMax is the deepest nesting of arrays and objects a record may have.
// Records nest a few levels; gjson's validator recurses once per level, so a
// line of megabytes of '[' would overflow the stack without this bound.
const DepthMax = 256

// Valid reports whether line is one JSON value nested at most DepthMax deep.
// sf-report and the Reader check records with it before gjson reads them.
func Valid(line []byte) bool {
	return shallow(line) && gjson.ValidBytes(line)
}

// shallow reports whether b nests arrays and objects at most DepthMax deep.
// Counting brackets (bytes.Count is vectorized) settles nearly every line:
// fewer than DepthMax of them cannot nest deeper. Only a line with more is
// walked, skipping strings.
func shallow(b []byte) bool {
	if bytes.Count(b, []byte{'['})+bytes.Count(b, []byte{'{'}) <= DepthMax {
		return true
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '[', '{':
			if depth++; depth > DepthMax {
				return false
			}
		case ']', '}':
			depth--
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		}
	}
	return true
}

// whyInvalid says why a line that Valid refused is not JSON, with
// encoding/json's description.
func whyInvalid(line []byte) error {
	if !shallow(line) {
		return fmt.Errorf("nested deeper than %d levels", DepthMax)
	}
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return err
	}
	return errors.New("not valid JSON")
}

func jsonKind(r gjson.Result) string {
	switch {
	case r.IsArray():
		return "array"
	case r.Type == gjson.String:
		return "string"
	case r.Type == gjson.Number:
		return "number"
	case r.Type == gjson.Null:
		return "null"
	}
	return "boolean"
}

// tooLong is the error of the current line being over the limit.
func (r *Reader) tooLong() error {
	return fmt.Errorf("%s:%d: record is longer than the limit of %d bytes", r.name, r.line, r.max)
}

// StreamBytesMax bounds one record stream a tool reads, after
// decompression: a sweep of a million seeds writes about 500 MB of records.
const StreamBytesMax = 1 << 30

// ErrStreamTooLarge is the error of a stream over its limit.
var ErrStreamTooLarge = fmt.Errorf("larger than the limit of %d bytes for a record stream", int64(StreamBytesMax))

// Capped returns a reader of at most limit bytes of r that fails with
// ErrStreamTooLarge past them, rather than ending as if the stream ended.
func Capped(r io.Reader, limit int64) io.Reader { return &capped{r: r, left: limit} }

type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		for {
			n, err := c.r.Read(one[:])
			if n > 0 {
				return 0, ErrStreamTooLarge
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
