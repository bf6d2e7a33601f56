package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/stopsignal"
)

// JSONSchema is the version of sf-check's -json record. It only ever grows by
// adding fields.
const JSONSchema = 1

// CommandOptions are the inputs of sf-check.
type CommandOptions struct {
	// History is the history file; "-" reads Stdin.
	History string
	// Model is the model to check against. Defaults to kv.
	Model string
	// Format is auto, jsonl or edn. Defaults to auto.
	Format string
	// Timeline is where to write the timeline of a linearizability
	// violation. Defaults to the history's path with its extension replaced
	// by .html; none for standard input.
	Timeline string
	// JSON prints one JSON verdict record on Stdout instead of text.
	JSON bool
	// Timeout limits the linearizability check in real time. Defaults to
	// TimeoutDefault.
	Timeout time.Duration
	// MaxSteps, when above 0, limits the linearizability check by its work:
	// model steps per key, checked one key at a time, so the verdict is the
	// same on every machine. Timeout still bounds the whole check. Defaults
	// to 0 (no step limit).
	MaxSteps int64
	// MaxBytes bounds the size of the history in bytes. Defaults to
	// history.InputBytesMax.
	MaxBytes int64
	// MapInput maps a large history file into memory instead of reading
	// it (history.MapFileBytes), for a process that exits after one check:
	// the mapping is never removed.
	MapInput bool
	// Interrupt, when set, stops sf-check as SIGINT does once it becomes
	// true. When nil, Command makes a flag that SIGINT and SIGTERM set.
	Interrupt *atomic.Bool

	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Record is the -json output of sf-check.
type Record struct {
	Tool       string    `json:"tool"`
	Schema     int       `json:"schema"`
	History    string    `json:"history"`
	Format     string    `json:"format,omitempty"`
	Model      string    `json:"model"`
	Verdict    Verdict   `json:"verdict,omitempty"`
	Passed     bool      `json:"passed"`
	Class      string    `json:"class,omitempty"`
	Operations int       `json:"operations"`
	Checked    int       `json:"checked"`
	Completed  int       `json:"completed"`
	Summary    string    `json:"summary,omitempty"`
	Anomalies  []Anomaly `json:"anomalies,omitempty"`
	Keys       []string  `json:"keys,omitempty"`
	Timeline   string    `json:"timeline,omitempty"`
	// Independent is true when the keys came from Jepsen's independent
	// [key value] tuples.
	Independent bool   `json:"independent,omitempty"`
	TimeoutMs   int64  `json:"timeout_ms"`
	ElapsedMs   int64  `json:"elapsed_ms"`
	Error       string `json:"error,omitempty"`
	ExitStatus  int    `json:"exit_status"`
}

// TimelinePath is where sf-check writes the timeline for a history file by
// default: the same path with .jsonl, .edn or .json replaced by .html.
func TimelinePath(historyPath string) string {
	if historyPath == "" || historyPath == "-" {
		return ""
	}
	ext := filepath.Ext(historyPath)
	switch strings.ToLower(ext) {
	case ".jsonl", ".edn", ".json", ".ndjson", ".txt":
		return strings.TrimSuffix(historyPath, ext) + ".html"
	}
	return historyPath + ".html"
}

// Command runs sf-check and returns its exit status. It never panics: an
// internal error is reported as such, with exit status 2.
func Command(o CommandOptions) (code int) {
	o.defaults()
	rec := Record{Tool: "sf-check", Schema: JSONSchema, History: o.History, Model: o.Model, TimeoutMs: o.Timeout.Milliseconds()}
	fail := func(err error) int { return o.fail(&rec, err, exitcode.Usage) }
	var data []byte
	defer func() {
		if p := recover(); p != nil {
			if err := history.FaultError(p, o.History, data); err != nil {
				code = fail(err)
				return
			}
			code = fail(fmt.Errorf("internal error: %v", p))
		}
	}()
	if o.MapInput {
		// A mapped file that shrinks under us faults when its lost part is
		// touched; the recover above reports that as an error.
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	}

	format, err := history.ParseFormat(o.Format)
	if err != nil {
		return fail(err)
	}
	if !IsModel(o.Model) {
		return fail(fmt.Errorf("unknown model %q: want one of %s", o.Model, strings.Join(Models(), ", ")))
	}
	name := o.History
	if o.History == "-" || o.History == "" {
		name = "<stdin>"
	}
	if data, err = o.read(name); err != nil {
		return fail(err)
	}
	// From here SIGINT or SIGTERM stops the check at its next poll (see
	// Options.Interrupt), and sf-check exits with exitcode.Interrupted.
	// Not before: the flag cannot stop a read of standard input that
	// blocks, which the signal's default action ends.
	interrupt := o.Interrupt
	if interrupt == nil {
		interrupt = new(atomic.Bool)
		defer stopsignal.Watch(interrupt)()
	}
	r, err := o.check(data, name, format, interrupt, &rec)
	if errors.Is(err, history.ErrInterrupted) || errors.Is(err, ErrInterrupted) {
		return o.fail(&rec, ErrInterrupted, exitcode.Interrupted)
	}
	if err != nil {
		return fail(err)
	}

	code = exitcode.Problem
	if r.Passed() {
		code = exitcode.Pass
	}
	rec.Verdict, rec.Passed, rec.Class = r.Verdict, r.Passed(), r.Class
	rec.Operations, rec.Checked, rec.Completed, rec.Summary = r.Operations, r.Checked, r.Completed, r.Summary
	rec.Anomalies, rec.Keys, rec.ElapsedMs = r.Anomalies, r.Keys, r.Elapsed.Milliseconds()
	rec.ExitStatus = code
	timelineNote := o.timeline(r, &rec)

	if o.JSON {
		writeRecord(o.Stdout, &rec)
		if timelineNote != "" && rec.Timeline == "" {
			fmt.Fprintln(o.Stderr, "sf-check:", timelineNote)
		}
		return rec.ExitStatus
	}
	o.printVerdict(r, &rec, timelineNote)
	return rec.ExitStatus
}

// defaults fills in what o leaves unset.
func (o *CommandOptions) defaults() {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Model == "" {
		o.Model = ModelDefault
	}
	if o.Timeout == 0 {
		o.Timeout = TimeoutDefault
	}
}

// fail reports err, the end of the command with status code: on stderr,
// and in the record with -json.
func (o *CommandOptions) fail(rec *Record, err error, code int) int {
	fmt.Fprintln(o.Stderr, "sf-check:", err)
	if o.JSON {
		rec.Error, rec.ExitStatus = err.Error(), code
		writeRecord(o.Stdout, rec)
	}
	return code
}

// read reads the history, named name in messages, within -max-bytes.
func (o *CommandOptions) read(name string) ([]byte, error) {
	read := history.ReadOptions{File: name, InputBytesMax: o.MaxBytes}
	var data []byte
	var err error
	switch {
	case name == "<stdin>":
		data, err = history.ReadAll(o.Stdin, read)
	case o.MapInput:
		data, err = history.MapFileBytes(o.History, read)
	default:
		data, err = history.ReadFileBytes(o.History, read)
	}
	var he *history.Error
	switch {
	case errors.Is(err, history.ErrTooLarge):
		return nil, fmt.Errorf("%w (raise it with -max-bytes)", err)
	case errors.As(err, &he):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("reading history: %w", err)
	}
	return data, nil
}

// check parses the history in data and checks it against the model,
// noting in rec the format read and whether its keys were unpacked.
func (o *CommandOptions) check(data []byte, name string, format history.Format, interrupt *atomic.Bool, rec *Record) (*Report, error) {
	if format == history.FormatAuto {
		format = history.DetectFormat(data)
	}
	rec.Format = string(format)
	parse := history.ReadOptions{File: name, Format: format, Interrupt: interrupt}
	checkOpts := Options{Model: o.Model, Timeout: o.Timeout, MaxSteps: o.MaxSteps, Interrupt: interrupt}
	var r *Report
	var err error
	if format == history.FormatEDN && o.Model != ListAppend {
		// Jepsen's independent [key value] tuples are unpacked between
		// reading and checking.
		var ops []history.HistoryOp
		if ops, err = history.Parse(data, parse); err == nil {
			ops, rec.Independent = unpackIndependent(ops, o.Model)
			r, err = Check(ops, checkOpts)
		}
	} else {
		r, err = ParseAndCheck(data, parse, checkOpts)
	}
	var ie *InputError
	if err != nil && errors.As(err, &ie) && ie.Line > 0 {
		err = fmt.Errorf("%s:%d: %w", name, ie.Line, err)
	}
	return r, err
}

// timeline writes a violation's timeline, where -timeline says or next to
// the history, noting it in rec, and returns the line that says where it
// went or why there is none. Failing to write it makes the exit status 2:
// the verdict stands, but what was asked for is missing.
func (o *CommandOptions) timeline(r *Report, rec *Record) string {
	if !r.HasTimeline() {
		return ""
	}
	path := o.Timeline
	if path == "" {
		path = TimelinePath(o.History)
	}
	if path == "" {
		return "no timeline written: the history came from standard input; give -timeline FILE"
	}
	if err := writeTimeline(r, path); err != nil {
		fmt.Fprintln(o.Stderr, "sf-check: writing the timeline:", err)
		rec.ExitStatus = exitcode.Usage
		return ""
	}
	rec.Timeline = path
	return "timeline: " + path
}

// printVerdict writes the verdict for people: the anomalies, where the
// timeline is, and the verdict's line.
func (o *CommandOptions) printVerdict(r *Report, rec *Record, timelineNote string) {
	w := o.Stdout
	for _, a := range r.Anomalies {
		fmt.Fprintln(w, a.String())
		if a.Count > 1 {
			fmt.Fprintf(w, "  (%d more %s)\n", a.Count-1, a.Kind)
		}
	}
	if timelineNote != "" {
		fmt.Fprintln(w, timelineNote)
	}
	if rec.Independent {
		fmt.Fprintln(w, "keys: from Jepsen's independent [key value] tuples")
	}
	switch r.Verdict {
	case Ok:
		fmt.Fprintf(w, "ok    %s\n", r.Summary)
	case Illegal:
		fmt.Fprintf(w, "FAIL  %s\n", r.Summary)
	default:
		if r.NoneCompleted() {
			fmt.Fprintf(w, "GAVE UP  %s: the history neither passed nor failed (did the workload reach the system?)\n", r.Summary)
			return
		}
		// A give-up before the time limit came from the step limit.
		limit := fmt.Sprintf("after %v", o.Timeout)
		if o.MaxSteps > 0 && r.Elapsed < o.Timeout {
			limit = fmt.Sprintf("at %d steps per key", o.MaxSteps)
		}
		fmt.Fprintf(w, "GAVE UP  %s %s: the history neither passed nor failed (raise -timeout or -max-steps, or check fewer operations)\n", r.Summary, limit)
	}
}

func writeTimeline(r *Report, path string) error {
	var page bytes.Buffer
	if err := r.WriteTimeline(&page); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, page.Bytes(), 0o644)
}

func writeRecord(w io.Writer, rec *Record) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		fmt.Fprintln(w, `{"tool":"sf-check","error":"encoding the verdict failed"}`)
	}
}

// unpackIndependent reads keys from a Jepsen history's independent tuples
// when the history has them. For cas a [key, value] tuple looks like an
// [old, new] pair, so a cas history is unpacked only if it has other
// operations too, whose values settle it.
func unpackIndependent(ops []history.HistoryOp, model string) ([]history.HistoryOp, bool) {
	if model == "cas" && !slices.ContainsFunc(ops, func(op history.HistoryOp) bool { return op.F != "cas" }) {
		return ops, false
	}
	return history.UnpackIndependent(ops)
}
