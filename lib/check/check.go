// Package check checks recorded histories: linearizability with Porcupine for
// the models kv, cas, append, queue, set and counter, each key on its own, and
// serializability with Elle-style anomaly detection for list-append
// transactions (package listappend, below this one). A counter key whose adds
// all add one amount, a set key, and an append key whose values are all
// different are decided in polynomial time without Porcupine's search (see
// quick.go). Both checkers read values with package jsonvalue.
//
// The engine calls Check at the end of a run with the operations its
// history.Recorder collected; sf-check calls it on a history file. Both get a
// Report with a verdict (Ok, Illegal, or Unknown when the linearizability check
// gave up at its time limit), a one-line summary, every anomaly with one
// explained example, and for a linearizability violation a timeline of the
// history as one self-contained HTML file.
//
// A history that does not fit its model (an operation the model does not have,
// or a value of the wrong type) is an *InputError, not a verdict: a typo must
// not silently weaken the check.
package check

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sf-dst/sf/lib/check/listappend"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/textfmt"
)

// TimeoutDefault is the real-time limit on checking one history for
// linearizability. Linearizability checking is NP-complete; a history with many
// operations of unknown outcome can take longer than any test should run.
const TimeoutDefault = 30 * time.Second

// ModelDefault is the model used when none is named.
const ModelDefault = "kv"

// Verdict is the outcome of a check.
type Verdict string

// The verdicts, as Porcupine names them.
const (
	Ok      Verdict = "ok"      // the history is linearizable (serializable)
	Illegal Verdict = "illegal" // it is not
	Unknown Verdict = "unknown" // no verdict: the checker gave up, or no operation completed
)

// The classes of failure a violation belongs to, as the engine reports them.
const (
	ClassLinearizability = "linearizability"
	ClassIsolation       = "isolation"
)

// Options configure Check.
type Options struct {
	// Model is the model to check against: kv, cas, append, queue, set,
	// counter or list-append. Defaults to kv.
	Model string
	// Timeout is the real-time limit for a linearizability check, after which
	// the verdict is Unknown. Defaults to TimeoutDefault; a negative value
	// means no limit. list-append checking is polynomial and has no limit.
	Timeout time.Duration
	// MaxSteps, when above 0, limits a linearizability check by its work
	// rather than by the clock: the search may apply the model to at most
	// this many operations per key, and a key that needs more makes the
	// verdict Unknown (unless another key is Illegal). Keys are then searched
	// one after the other in sorted order, so the outcome is the same on
	// every machine. Timeout still bounds the whole check. Defaults to 0, no
	// limit on steps.
	MaxSteps int64
	// NoTimeline skips the second, verbose Porcupine run after a
	// linearizability violation, which finds the keys that fail (Report.Keys
	// and the example) and draws the timeline. Keys that the quick checks of
	// counter, set and append proved to fail are named all the same.
	// Defaults to false.
	NoTimeline bool
	// Interrupt, when not nil, stops the check once it becomes true: Check
	// then returns ErrInterrupted and no report. Both checkers look at it
	// as they go (the linearizability search at each model step, the
	// list-append checker every few thousand transactions or few hundred
	// edges), so a check stops within a fraction of a second however long
	// it would have run.
	Interrupt *atomic.Bool
}

// ModelInfo names a model a history can be checked against and says in a
// line what it checks.
type ModelInfo struct {
	Name        string
	Description string
}

// modelInfos is the one list of models, in the order the manuals list them.
// Everything else that names models (the world file's checker.model,
// sf-check -model, the manuals) takes them from here; a test holds
// linModels, docs/checkers.md and sf-check's manual to it.
var modelInfos = []ModelInfo{
	{"kv", "put a string, get the string read (\"\" or null when absent): a register"},
	{"cas", "kv plus cas with value [old, new] and output true if it swapped"},
	{"append", "append a string, read the whole list: an append-only log"},
	{"queue", "enqueue a string, dequeue the item taken (\"\" when empty): a FIFO queue"},
	{"set", "add a string, read the members in any order: a grow-only set"},
	{"counter", "add an integer, read the integer: a counter"},
	{ListAppend, "txn with [f, key, value] micro-ops, f r or append: serializability"},
}

// ModelInfos returns every model, in the order the manuals list them.
func ModelInfos() []ModelInfo { return slices.Clone(modelInfos) }

// Models returns the names of the models, sorted.
func Models() []string {
	names := make([]string, 0, len(modelInfos))
	for _, m := range modelInfos {
		names = append(names, m.Name)
	}
	slices.Sort(names)
	return names
}

// IsModel reports whether name is the name of a model.
func IsModel(name string) bool {
	return slices.ContainsFunc(modelInfos, func(m ModelInfo) bool { return m.Name == name })
}

// ModelList names the models in the manuals' order, as a phrase: "kv, cas,
// ... or list-append".
func ModelList() string {
	var b strings.Builder
	for i, m := range modelInfos {
		switch {
		case i == len(modelInfos)-1:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(m.Name)
	}
	return b.String()
}

// ListAppend is the name of the transactional model.
const ListAppend = listappend.Model

// Anomaly is one kind of problem found in a history.
type Anomaly struct {
	// Kind is the anomaly's name: for list-append one of G0, G1a, G1b, G1c,
	// G-single, G2, internal, incompatible-order, duplicate-elements,
	// duplicate-append, garbage-read; for the other models
	// "nonlinearizable".
	Kind string `json:"kind"`
	// Count is how many instances were found: cycles are counted once per
	// strongly connected component, other anomalies once per read, key or
	// transaction they concern.
	Count int `json:"count"`
	// Example explains one instance, for a cycle in the form
	// "T4 -rw z-> T0 -wr z-> T6 -ww y-> T4; T4 (client 4, ok) [...]; ...".
	Example string `json:"example"`
	// Ops are the ids of the operations in the example.
	Ops []int64 `json:"ops,omitempty"`
}

// String returns the anomaly as the trace prints it: "G-single: T4 -rw z-> ...".
func (a Anomaly) String() string { return a.Kind + ": " + a.Example }

// Report is the result of checking one history.
type Report struct {
	// Model is the model the history was checked against.
	Model string `json:"model"`
	// Verdict is ok, illegal or unknown.
	Verdict Verdict `json:"verdict"`
	// Class is linearizability or isolation, the class of failure the model
	// checks for.
	Class string `json:"class"`
	// Operations is the number of operations (transactions for list-append)
	// in the history.
	Operations int `json:"operations"`
	// Checked is the number of operations given to the checker, after
	// dropping failed operations and reads of unknown outcome.
	Checked int `json:"checked"`
	// Completed is the number of operations that completed ok. A history
	// of operations none of which completed tests nothing, however it is
	// checked: every one may or may not have happened, so any order fits.
	// Its verdict is Unknown, not Ok (see NoneCompleted).
	Completed int `json:"completed"`
	// Summary is the verdict as one line, such as "history of 121 transactions
	// is not serializable: G-single, G2, internal" or "gave up checking 412
	// operations for linearizability".
	Summary string `json:"summary"`
	// Anomalies lists every kind of anomaly found, in the order of the
	// spec's table.
	Anomalies []Anomaly `json:"anomalies,omitempty"`
	// Keys lists the keys whose history is not linearizable, sorted.
	Keys []string `json:"keys,omitempty"`
	// Elapsed is the real time the check took. It is not deterministic.
	Elapsed time.Duration `json:"-"`

	timeline func(io.Writer) error
}

// Passed reports whether the history passed: only an Ok verdict passes; a
// check that gave up neither passes nor fails.
func (r *Report) Passed() bool { return r.Verdict == Ok }

// NoneCompleted reports whether the history holds operations but none that
// completed ok, as when a workload never reached the system it tests. Such
// a history passes any model, so its verdict is Unknown.
func (r *Report) NoneCompleted() bool { return r.Operations > 0 && r.Completed == 0 }

// HasTimeline reports whether WriteTimeline has a timeline to write: after a
// linearizability violation, unless Options.NoTimeline was set or the
// verbose rerun ran out of time.
func (r *Report) HasTimeline() bool { return r.timeline != nil }

// WriteTimeline writes the interactive timeline of the history, one
// self-contained HTML file made by Porcupine's visualization.
func (r *Report) WriteTimeline(w io.Writer) error {
	if r.timeline == nil {
		return fmt.Errorf("no timeline: the check of model %s found no linearizability violation to show", r.Model)
	}
	return r.timeline(w)
}

// InputError is a history that does not fit its model, such as an operation
// the model does not have or a value of the wrong type. Line is the input line
// of the operation's invocation, when known.
type InputError struct {
	Model string
	Line  int
	ID    int64
	Msg   string
}

// Error returns the message in the spec's form, "history (model M): ...".
func (e *InputError) Error() string {
	return "history (model " + e.Model + "): " + e.Msg
}

// ErrInterrupted is Check's error when Options.Interrupt stopped it: there
// is no verdict, the history neither passed nor failed.
var ErrInterrupted = errors.New("interrupted: the check was stopped before it finished")

// interrupted reports whether flag is set.
func interrupted(flag *atomic.Bool) bool { return flag != nil && flag.Load() }

// Check checks a history against opts.Model.
func Check(ops []history.HistoryOp, opts Options) (*Report, error) {
	if opts.Model == "" {
		opts.Model = ModelDefault
	}
	if opts.Timeout == 0 {
		opts.Timeout = TimeoutDefault
	}
	start := time.Now()
	var (
		r   *Report
		err error
	)
	if opts.Model == ListAppend {
		r, err = checkListAppend(ops, opts.Interrupt)
	} else if m, ok := linModels[opts.Model]; ok {
		r, err = checkLinearizable(m, ops, opts, start)
	} else {
		return nil, fmt.Errorf("unknown model %q: want one of %s", opts.Model, strings.Join(Models(), ", "))
	}
	if err == nil && interrupted(opts.Interrupt) {
		// Set after the checker last looked: the verdict may be whole, but
		// a check asked to stop says so however far it had got.
		return nil, ErrInterrupted
	}
	if r != nil {
		for _, op := range ops {
			if op.Status == history.StatusOK {
				r.Completed++
			}
		}
		if r.Verdict == Ok && r.NoneCompleted() {
			r.Verdict = Unknown
			r.Summary = fmt.Sprintf("nothing to check: none of the %s of the history completed (each failed or ended unknown)",
				textfmt.Plural(r.Operations, unit(r.Model)))
		}
		r.Elapsed = time.Since(start)
	}
	return r, err
}

// unit is what the model's history is made of, as a summary counts it.
func unit(model string) string {
	if model == ListAppend {
		return "transaction"
	}
	return "operation"
}

// checkListAppend checks list-append transactions with package listappend
// and makes its report: the anomalies found, and the verdict and summary
// they give. The package's errors become this one's.
func checkListAppend(ops []history.HistoryOp, interrupt *atomic.Bool) (*Report, error) {
	found, err := listappend.Check(ops, interrupt)
	var ie *listappend.InputError
	switch {
	case errors.Is(err, listappend.ErrInterrupted):
		return nil, ErrInterrupted
	case errors.As(err, &ie):
		return nil, &InputError{Model: ListAppend, Line: ie.Line, ID: ie.ID, Msg: ie.Msg}
	case err != nil:
		return nil, err
	}
	r := &Report{Model: ListAppend, Class: ClassIsolation, Operations: len(ops), Checked: len(ops), Verdict: Ok}
	var kinds []string
	for _, a := range found {
		kinds = append(kinds, a.Kind)
		r.Anomalies = append(r.Anomalies, Anomaly(a))
	}
	txns := textfmt.Plural(len(ops), "transaction")
	if len(kinds) == 0 {
		r.Summary = "history of " + txns + " is serializable"
	} else {
		r.Verdict = Illegal
		r.Summary = "history of " + txns + " is not serializable: " + strings.Join(kinds, ", ")
	}
	return r, nil
}
