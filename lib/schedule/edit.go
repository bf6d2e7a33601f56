package schedule

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sf-dst/sf/lib/echo"
	"github.com/sf-dst/sf/lib/faults"
)

// Editor changes a schedule the way sf-faults does. Positions count from 1
// in the order the schedule lists its faults, and always refer to the
// schedule as it was before the edit, whatever the order of the calls: so
// removing fault 1 does not make fault 2 become fault 1 for a later Shift.
// Result applies the changes.
type Editor struct {
	base    *Schedule
	faults  []Fault // base's faults, shifted in place
	removed []bool
	shifted []bool
	added   []Fault
}

// NewEditor starts an edit of s; s itself is never changed.
func NewEditor(s *Schedule) *Editor {
	faults := make([]Fault, len(s.Faults))
	copy(faults, s.Faults)
	return &Editor{base: s, faults: faults, removed: make([]bool, len(faults)), shifted: make([]bool, len(faults))}
}

// entry returns the index of the fault at position pos, or an error that
// names the position and the schedule's length.
func (e *Editor) entry(pos int) (int, error) {
	if pos < 1 || pos > len(e.faults) {
		return 0, fmt.Errorf("there is no fault %d (the schedule has %d)", pos, len(e.faults))
	}
	if e.removed[pos-1] {
		return 0, fmt.Errorf("fault %d is removed already: remove it once, and do not shift it", pos)
	}
	return pos - 1, nil
}

// Remove drops the fault at position pos.
func (e *Editor) Remove(pos int) error {
	i, err := e.entry(pos)
	if err != nil {
		return err
	}
	if e.shifted[i] {
		return fmt.Errorf("fault %d is shifted: remove it or shift it, not both", pos)
	}
	e.removed[i] = true
	return nil
}

// Shift moves the fault at position pos. A fault planned in time moves by a
// signed Go duration ("-50ms", "+1s"), its until with it. A fault that fires
// at a numbered event of its node (a disk op, a read, a buggify hit...)
// moves by a signed count of those events ("+2", "-1"); its at, which only
// records when the event happened, stays. Shifting one fault twice adds the
// amounts.
func (e *Editor) Shift(pos int, amount string) error {
	i, err := e.entry(pos)
	if err != nil {
		return err
	}
	f := &e.faults[i]
	k, known := faults.Lookup(f.Kind)
	if known && k.Positional() {
		n, err := strconv.ParseInt(amount, 10, 64)
		if err != nil {
			return fmt.Errorf("fault %d (%s) fires at a numbered %s: shift it by a count such as +2 or -1, not %s", pos, f.Kind, k.Counter, echo.Quote(amount))
		}
		if (n > 0 && f.Op > math.MaxInt64-n) || f.Op+n < 1 {
			if n > 0 {
				return fmt.Errorf("fault %d (%s): op %d moved by %+d is past the largest op number (%d)", pos, f.Kind, f.Op, n, int64(math.MaxInt64))
			}
			return fmt.Errorf("fault %d (%s): op %d moved by %+d is %d, and %ss count from 1", pos, f.Kind, f.Op, n, f.Op+n, k.Counter)
		}
		f.Op += n
		e.shifted[i] = true
		return nil
	}
	d, err := time.ParseDuration(amount)
	if err != nil {
		return fmt.Errorf("fault %d (%s) is planned in time: shift it by a duration such as -50ms or +1s, not %s", pos, f.Kind, echo.Quote(amount))
	}
	// A virtual time is int64 nanoseconds (about 292 years): a sum past
	// that would wrap around to a negative time.
	if d > 0 && (int64(f.At) > math.MaxInt64-int64(d) || int64(f.Until) > math.MaxInt64-int64(d)) {
		return fmt.Errorf("fault %d (%s): at %s moved by %s is past the latest virtual time (%s)", pos, f.Kind, time.Duration(f.At), signed(d), time.Duration(math.MaxInt64))
	}
	if int64(f.At)+int64(d) < 0 {
		return fmt.Errorf("fault %d (%s): at %s moved by %s is %s, before the run starts", pos, f.Kind, time.Duration(f.At), signed(d), time.Duration(int64(f.At)+int64(d)))
	}
	// until moves with at when the fault lasts (crash, pause, partition...)
	// or says when it ends; an unset until of an instant fault stays unset.
	if (known && k.Span) || f.Until != 0 {
		f.Until += Dur(d)
	}
	f.At += Dur(d)
	e.shifted[i] = true
	return nil
}

func signed(d time.Duration) string {
	if d < 0 {
		return d.String()
	}
	return "+" + d.String()
}

// Add parses one fault, in the format of a schedule's faults list, and adds
// it. The fault is read strictly: an unknown field or kind is an error, and
// a fault planned in time needs its at. The other checks of a schedule come
// with Check, once the edit is done.
func (e *Editor) Add(data []byte) error {
	f, err := ParseFault(data)
	if err != nil {
		return err
	}
	e.added = append(e.added, f)
	return nil
}

// ParseFault reads one fault, strictly, as Add does.
func ParseFault(data []byte) (Fault, error) {
	var f Fault
	if len(strings.TrimSpace(string(data))) == 0 {
		return f, errors.New("empty: a fault is a JSON object such as {\"at\":\"1s\",\"kind\":\"pause\",\"node\":\"server\",\"until\":\"1.5s\"}")
	}
	if err := strictDecode(data, &f); err != nil {
		return f, err
	}
	if f.Kind == "" {
		return f, errors.New("kind: missing")
	}
	k, ok := faults.Lookup(f.Kind)
	if !ok {
		return f, fmt.Errorf("kind: %s is not a fault kind (%s)", echo.Quote(f.Kind), strings.Join(faults.Kinds(), ", "))
	}
	if !k.Positional() {
		var fields map[string]json.RawMessage
		if json.Unmarshal(data, &fields) == nil && fields["at"] == nil {
			return f, fmt.Errorf("at: missing: a %s fault is planned at a time", f.Kind)
		}
	}
	return f, nil
}

// Changed reports whether any edit was made.
func (e *Editor) Changed() bool {
	if len(e.added) > 0 {
		return true
	}
	for i := range e.faults {
		if e.removed[i] || e.shifted[i] {
			return true
		}
	}
	return false
}

// Result returns the edited schedule: the faults kept, shifted, then those
// added, sorted by at. Everything else of the schedule is kept, except
// that an edited schedule drops ShrunkFrom and ShrinkRuns: it is no longer
// what sf-shrink found. Result does not check the schedule: see Check.
func (e *Editor) Result() *Schedule {
	s := *e.base
	s.Faults = make([]Fault, 0, len(e.faults)+len(e.added))
	for i, f := range e.faults {
		if !e.removed[i] {
			s.Faults = append(s.Faults, f)
		}
	}
	s.Faults = append(s.Faults, e.added...)
	if e.Changed() {
		s.ShrunkFrom, s.ShrinkRuns = 0, 0
	}
	s.Sort()
	return &s
}
