// Package schedule is the one reader and writer of fault schedules, the
// files that make a run replay exactly: the faults that fired (or should
// fire), the budget cap, the branches and where the schedule came from.
// sf-run, sf-shrink and sf-faults all go through it, so a schedule is read
// as strictly, and checked against its world in the same way, everywhere.
package schedule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/compressed"
	"github.com/sf-dst/sf/lib/echo"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/textfmt"
)

// MaxBytes is the largest schedule file read. A schedule holds one entry per
// fault that fired, so even a long run with every fault on stays far below.
const MaxBytes = 64 << 20

// Fault is one entry of a schedule; lib/faults defines it, with what each
// kind of fault needs of it.
type Fault = faults.Fault

// Dur is virtual time in nanoseconds that reads and writes as a Go duration
// string ("1.204s").
type Dur = faults.Dur

// Branch re-keys the seed's random streams at the first scheduler step at
// or after At: every stream when Stream is empty, else only that one.
type Branch struct {
	At     Dur    `json:"at"`
	Key    uint64 `json:"key"`
	Stream string `json:"stream,omitempty"`
}

// BranchStreams are the streams a branch may name.
var BranchStreams = []string{"sched", "net", "disk", "io", "udp", "disklatency", "mutant", "random"}

// Schedule is a seed's faults in file form.
type Schedule struct {
	Seed    uint64   `json:"seed"`
	Config  string   `json:"config,omitempty"`
	Profile string   `json:"profile,omitempty"`
	Set     []string `json:"set,omitempty"`
	// Duration is how long a replay runs: for a failing run, when it
	// failed. 0 means the world's duration.
	Duration Dur `json:"duration,omitempty"`
	// Budget, when above 0, caps what sim.Budget returns. A schedule may
	// call it ops, the spec's name; it is written as budget, which every
	// version of sf reads.
	Budget int `json:"budget,omitempty"`
	// opsNamed says the schedule read called Budget ops.
	opsNamed bool
	Branches []Branch `json:"branches,omitempty"`
	// ShrunkFrom and ShrinkRuns say that sf-shrink made this schedule: from
	// how many faults, in how many replays.
	ShrunkFrom int `json:"shrunk_from,omitempty"`
	ShrinkRuns int `json:"shrink_runs,omitempty"`
	// Pinned, in a pinned regression (.seedfall/pinned/), is how the seed
	// failed when it was pinned. A replay with -faults ignores it.
	Pinned *Pinned `json:"pinned,omitempty"`
	Faults []Fault `json:"faults"`
}

// Pinned is how a pinned seed failed: its class, message, failing node and
// virtual time, and the fingerprint that "fails the same way" compares
// (lib/pin).
type Pinned struct {
	Class       string `json:"class"`
	Message     string `json:"message"`
	At          Dur    `json:"at"`
	Node        string `json:"node,omitempty"`
	Fingerprint string `json:"fingerprint"`
}

// ReadFile reads and parses the schedule at path; "-" reads stdin. It does
// not check the schedule against a world: see Check.
func ReadFile(path string, stdin io.Reader) (*Schedule, error) {
	data, err := ReadInput(path, stdin, MaxBytes)
	if err != nil {
		return nil, err
	}
	return Parse(textfmt.InputName(path), data)
}

// ReadInput reads the file at path, or stdin for "-", decompressing it if it
// is zstd or gzip, and refuses more than limit bytes (decompressed) with an
// error that names the file and the limit.
func ReadInput(path string, stdin io.Reader, limit int64) ([]byte, error) {
	var r io.Reader
	if path == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	r, err := compressed.Open(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", textfmt.InputName(path), err)
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", textfmt.InputName(path), err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than the limit of %d bytes for this input", textfmt.InputName(path), limit)
	}
	return data, nil
}

// Parse decodes a schedule: the object form, or a bare list of faults.
// Unknown fields, in the schedule or in any entry, are errors that name the
// entry, as they are in world files.
func Parse(file string, data []byte) (*Schedule, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty: a schedule is a JSON object with a faults list, or a list of faults", file)
	}
	var raw []json.RawMessage
	s := &Schedule{}
	if json.Valid(trimmed) {
		if p := duplicateKey(trimmed, trimmed[0] == '['); p != "" {
			return nil, fmt.Errorf("%s: %s: duplicate key", file, p)
		}
	}
	if trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, fmt.Errorf("%s: %s", file, jsonError(trimmed, err))
		}
	} else {
		// Decode everything but the faults strictly, then each fault on its
		// own, so that an error names its entry.
		var top map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &top); err != nil {
			return nil, fmt.Errorf("%s: %s", file, jsonError(trimmed, err))
		}
		fs, ok := top["faults"]
		if !ok {
			return nil, fmt.Errorf("%s: faults: missing (an empty schedule is \"faults\": [])", file)
		}
		delete(top, "faults")
		if err := json.Unmarshal(fs, &raw); err != nil || raw == nil {
			return nil, fmt.Errorf("%s: faults: expected a list of faults", file)
		}
		pinned, hasPinned := top["pinned"]
		delete(top, "pinned")
		// Branches one at a time too, so that an error names its index
		// (encoding/json would say branches.key).
		if bs, ok := top["branches"]; ok && string(bs) != "null" {
			var list []json.RawMessage
			if err := json.Unmarshal(bs, &list); err != nil {
				return nil, fmt.Errorf("%s: branches: expected a list of branches", file)
			}
			for i, r := range list {
				var b Branch
				if err := strictDecode(r, &b); err != nil {
					return nil, fmt.Errorf("%s: branches[%d]%v", file, i, pathed(err))
				}
				s.Branches = append(s.Branches, b)
			}
			delete(top, "branches")
		}
		ops, hasOps := top["ops"]
		delete(top, "ops")
		rest, _ := json.Marshal(top)
		if err := strictDecode(rest, s); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		if hasOps {
			if err := s.readOps(ops, top["budget"] != nil); err != nil {
				return nil, fmt.Errorf("%s: %v", file, err)
			}
		}
		if hasPinned && string(pinned) != "null" {
			s.Pinned = &Pinned{}
			if err := strictDecode(pinned, s.Pinned); err != nil {
				return nil, fmt.Errorf("%s: pinned%v", file, pathed(err))
			}
		}
	}
	s.Faults = make([]Fault, 0, len(raw))
	for i, r := range raw {
		var f Fault
		if err := strictDecode(r, &f); err != nil {
			return nil, fmt.Errorf("%s: faults[%d]%v", file, i, pathed(err))
		}
		// at is where a fault fires (or, for one at a numbered event, when
		// it did): a missing at would read as 0, the start of the run.
		var present map[string]json.RawMessage
		json.Unmarshal(r, &present) // strictDecode took it as an object
		for _, k := range []string{"at", "kind"} {
			if _, ok := present[k]; !ok {
				return nil, fmt.Errorf("%s: faults[%d].%s: missing", file, i, k)
			}
		}
		s.Faults = append(s.Faults, f)
	}
	return s, nil
}

// readOps reads ops, the spec's name for the Budget cap, which a schedule
// may give instead of budget, or next to it with the same value.
func (s *Schedule) readOps(data json.RawMessage, hasBudget bool) error {
	var v struct {
		Ops int `json:"ops"`
	}
	if err := strictDecode(append(append([]byte(`{"ops":`), data...), '}'), &v); err != nil {
		return err
	}
	if hasBudget && s.Budget != v.Ops {
		return fmt.Errorf("ops: %d, but budget says %d: they are the same cap, give one", v.Ops, s.Budget)
	}
	s.Budget, s.opsNamed = v.Ops, true
	return nil
}

// budgetName is the name the schedule gave its Budget cap, for messages.
func (s *Schedule) budgetName() string {
	if s.opsNamed {
		return "ops"
	}
	return "budget"
}

// pathed turns a decoding error into ".field: problem" or ": problem".
func pathed(err error) string {
	msg := err.Error()
	if f, rest, ok := strings.Cut(msg, ": "); ok && !strings.Contains(f, " ") {
		return "." + f + ": " + rest
	}
	return ": " + msg
}

// strictDecode decodes one JSON object into v, refusing unknown fields and
// naming the field a wrong value is in.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return fmt.Errorf("%s: expected %s, got %s", te.Field, te.Type, te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("expected an object, got %s", te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return fmt.Errorf("%s: unknown field", strings.Trim(name, `"`))
	}
	msg := err.Error()
	// Errors from Dur say which value was wrong but not where: find it.
	if strings.HasPrefix(msg, "expected a duration") || strings.HasPrefix(msg, "invalid duration") {
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) == nil {
			for _, k := range []string{"at", "until", "delta", "delay", "duration"} {
				var d Dur
				if v, ok := m[k]; ok && d.UnmarshalJSON(v) != nil {
					return fmt.Errorf("%s: %s", k, msg)
				}
			}
		}
	}
	return errors.New(strings.TrimPrefix(msg, "json: "))
}

func jsonError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := 1, 1
		for _, c := range data[:max(0, min(int(se.Offset)-1, len(data)))] {
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Sprintf("line %d, column %d: %v", line, col, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("expected a JSON object or a list of faults, got %s", te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// Marshal returns the schedule as indented JSON, ending in a newline.
func (s *Schedule) Marshal() []byte {
	c := *s
	if c.Faults == nil {
		c.Faults = []Fault{}
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("schedule: encoding a schedule: %v", err)) // every field encodes
	}
	return append(data, '\n')
}

// WriteFile writes the schedule to path atomically.
func (s *Schedule) WriteFile(path string) error {
	return atomicfile.WriteFile(path, s.Marshal(), 0o644)
}

// Sort orders the faults by at, keeping the order of faults at one time.
func (s *Schedule) Sort() {
	sort.SliceStable(s.Faults, func(i, j int) bool { return s.Faults[i].At < s.Faults[j].At })
}

// World is what a schedule is checked against.
type World struct {
	File       string   // the world file, for messages
	Nodes      []string // every node, workload and finally check, in world order
	DurationNs int64    // the world's duration
	PreemptPCT bool     // preempt.strategy is pct
	// Liveness says the world has a recovery phase after its duration, so a
	// schedule may run (and fail) past the world's duration.
	Liveness bool
	// NoFaults are the programs that take no fault at all, each with why
	// ("faults": false, the finally check): a schedule may not name them
	// in any fault but a buggify or preempt, which act inside their own
	// code.
	NoFaults map[string]string
}

// Check checks the schedule against the world, with every check of a
// schedule edit: it returns the first problem, naming the entry and field
// (faults[3].node: "sever" is not a node of this world (server, client)).
func (s *Schedule) Check(w World) error {
	known := map[string]bool{}
	for _, n := range w.Nodes {
		known[n] = true
	}
	end := int64(s.Duration)
	if end == 0 {
		end = w.DurationNs
	}
	nodeErr := func(i int, field, name string) error {
		return fmt.Errorf("faults[%d].%s: %s is not a node of this world (%s)", i, field, echo.Quote(name), strings.Join(w.Nodes, ", "))
	}
	checkNodes := func(i int, field string, names []string) error {
		for _, n := range names {
			if !known[n] {
				return nodeErr(i, field, n)
			}
		}
		return nil
	}
	if s.Duration < 0 {
		return errors.New("duration: negative")
	}
	if w.DurationNs > 0 && int64(s.Duration) > w.DurationNs && !w.Liveness {
		return fmt.Errorf("duration: %s is longer than the world's duration (%s)", time.Duration(s.Duration), time.Duration(w.DurationNs))
	}
	if s.Budget < 0 {
		return fmt.Errorf("%s: negative", s.budgetName())
	}
	var last Dur
	for i, b := range s.Branches {
		switch {
		case b.At < 0:
			return fmt.Errorf("branches[%d].at: negative", i)
		case b.At < last:
			return fmt.Errorf("branches[%d].at: %s is before the branch above it (%s): branches are in order of at", i, time.Duration(b.At), time.Duration(last))
		case b.Stream != "" && !contains(BranchStreams, b.Stream):
			return fmt.Errorf("branches[%d].stream: %s is not one of %s", i, echo.Quote(b.Stream), strings.Join(BranchStreams, ", "))
		}
		last = b.At
	}
	ctx := faults.Context{PreemptPCT: w.PreemptPCT}
	for i, f := range s.Faults {
		k, ok := faults.Lookup(f.Kind)
		if !ok {
			return fmt.Errorf("faults[%d].kind: %s is not a fault kind (%s)", i, echo.Quote(f.Kind), strings.Join(faults.Kinds(), ", "))
		}
		if f.Node != "" && !known[f.Node] {
			return nodeErr(i, "node", f.Node)
		}
		if err := checkNodes(i, "side", f.Side); err != nil {
			return err
		}
		for j, g := range f.Groups {
			if err := checkNodes(i, fmt.Sprintf("groups[%d]", j), g); err != nil {
				return err
			}
		}
		for _, fld := range []struct{ name, v string }{{"from", f.From}, {"to", f.To}} {
			if fld.v != "" && !known[fld.v] {
				return nodeErr(i, fld.name, fld.v)
			}
		}
		if err := w.checkReach(i, f); err != nil {
			return err
		}
		switch {
		case f.At < 0:
			return fmt.Errorf("faults[%d].at: negative", i)
		case !k.Positional() && int64(f.At) > end:
			return fmt.Errorf("faults[%d].at: %s is after the end of the run (%s)", i, time.Duration(f.At), time.Duration(end))
		case k.Span && f.Until < f.At:
			return fmt.Errorf("faults[%d].until: %s is before at (%s)", i, time.Duration(f.Until), time.Duration(f.At))
		}
		if err := k.Check(f, ctx); err != nil {
			var ee *faults.EntryError
			if errors.As(err, &ee) && ee.Field != "" {
				return fmt.Errorf("faults[%d].%s: %s", i, ee.Field, ee.Msg)
			}
			return fmt.Errorf("faults[%d]: %v", i, err)
		}
	}
	return s.checkSet()
}

// checkReach refuses fault i when it names a program that takes no faults:
// the run would apply it all the same. A buggify or preempt fault acts
// inside the program's own code, which such a program keeps.
func (w World) checkReach(i int, f Fault) error {
	if len(w.NoFaults) == 0 || f.Kind == faults.KindBuggify || f.Kind == faults.KindPreempt {
		return nil
	}
	check := func(field string, names ...string) error {
		for _, n := range names {
			if why, ok := w.NoFaults[n]; ok {
				return fmt.Errorf("faults[%d].%s: %s takes no faults (%s)", i, field, echo.Quote(n), why)
			}
		}
		return nil
	}
	if err := check("node", f.Node); err != nil {
		return err
	}
	if err := check("side", f.Side...); err != nil {
		return err
	}
	for j, g := range f.Groups {
		if err := check(fmt.Sprintf("groups[%d]", j), g...); err != nil {
			return err
		}
	}
	if err := check("from", f.From); err != nil {
		return err
	}
	return check("to", f.To)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
