package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Number is any Go number type the comparison properties accept.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64
}

// compare records a comparison property with its margin: left-right for
// "greater" forms and right-left for "less" forms, so a positive margin is on
// the true side.
func compare[T Number](kind uint32, op string, left, right T, msg string, details []any) {
	cond, m := compareValues(op, left, right)
	if !hosted() {
		if kind == kindAlways && !cond {
			panic(fmt.Sprintf("sim.Always%s: %s %s", opName(op), msg, comparisonDetails(left, right, details)))
		}
		return
	}
	d := []byte(comparisonDetails(left, right, details))
	if m.float {
		hostPropertyMargin(kind, cond, msg, d, m.f)
	} else {
		hostPropertyMarginInt(kind, cond, msg, d, m.neg, m.mag)
	}
}

// margin is a comparison's margin: a float64 for floats, and for integers
// the exact difference, -mag when neg, which may not fit an int64 (the
// widest is 2^64-1).
type margin struct {
	float bool
	f     float64
	neg   bool
	mag   uint64
}

// numberKind says what T is: a float, a signed or an unsigned integer.
// Only arithmetic tells them apart without reflection: 1/2 is 0 in integer
// division, and 0-1 is below 0 only when signed.
func numberKind[T Number]() (float, signed bool) {
	one, two := T(1), T(2)
	if one/two != 0 {
		return true, true
	}
	var z T
	z--
	return false, z < 0
}

// compareValues compares left and right as T's kind of number: floats as
// float64, signed integers as int64, unsigned ones as uint64, never an
// integer as a float64 (which cannot tell 1.7e18 from 1.7e18+1).
func compareValues[T Number](op string, left, right T) (bool, margin) {
	float, signed := numberKind[T]()
	// a and b are the margin's two sides: a-b is positive when true.
	greater := op == "gt" || op == "ge"
	a, b := left, right
	if !greater {
		a, b = right, left
	}
	strict := op == "gt" || op == "lt"
	switch {
	case float:
		x, y := float64(a), float64(b)
		return x > y || (!strict && x == y), margin{float: true, f: x - y}
	case signed:
		x, y := int64(a), int64(b)
		if x >= y {
			return x > y || !strict, margin{mag: uint64(x) - uint64(y)}
		}
		return false, margin{neg: true, mag: uint64(y) - uint64(x)}
	}
	x, y := uint64(a), uint64(b)
	if x >= y {
		return x > y || !strict, margin{mag: x - y}
	}
	return false, margin{neg: true, mag: y - x}
}

func opName(op string) string {
	return map[string]string{"gt": "GreaterThan", "ge": "GreaterThanOrEqualTo", "lt": "LessThan", "le": "LessThanOrEqualTo"}[op]
}

func comparisonDetails[T Number](left, right T, details []any) string {
	m := map[string]any{"left": jsonNumber(left), "right": jsonNumber(right)}
	if d := detailsJSON(details); d != nil {
		m["details"] = json.RawMessage(d)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// jsonNumber is v for encoding/json, which has no number for an infinity or
// a NaN: those become the strings "+Inf", "-Inf" and "NaN", so that the
// details of a comparison that involves one are still written.
func jsonNumber[T Number](v T) any {
	f := float64(v)
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return v
}

// AlwaysGreaterThan is Always(left > right, ...), and also keeps the smallest
// margin left-right over every hit and seed. Outside the simulator it panics
// when the comparison is false.
func AlwaysGreaterThan[T Number](left, right T, msg string, details ...any) {
	compare(kindAlways, "gt", left, right, msg, details)
}

// AlwaysGreaterThanOrEqualTo is Always(left >= right, ...) with a margin.
func AlwaysGreaterThanOrEqualTo[T Number](left, right T, msg string, details ...any) {
	compare(kindAlways, "ge", left, right, msg, details)
}

// AlwaysLessThan is Always(left < right, ...) with the margin right-left.
func AlwaysLessThan[T Number](left, right T, msg string, details ...any) {
	compare(kindAlways, "lt", left, right, msg, details)
}

// AlwaysLessThanOrEqualTo is Always(left <= right, ...) with a margin.
func AlwaysLessThanOrEqualTo[T Number](left, right T, msg string, details ...any) {
	compare(kindAlways, "le", left, right, msg, details)
}

// SometimesGreaterThan is Sometimes(left > right, ...); the sweep reports the
// largest margin, how close it came to being true. Outside the simulator it
// does nothing.
func SometimesGreaterThan[T Number](left, right T, msg string, details ...any) {
	compare(kindSometimes, "gt", left, right, msg, details)
}

// SometimesGreaterThanOrEqualTo is Sometimes(left >= right, ...) with a margin.
func SometimesGreaterThanOrEqualTo[T Number](left, right T, msg string, details ...any) {
	compare(kindSometimes, "ge", left, right, msg, details)
}

// SometimesLessThan is Sometimes(left < right, ...) with a margin.
func SometimesLessThan[T Number](left, right T, msg string, details ...any) {
	compare(kindSometimes, "lt", left, right, msg, details)
}

// SometimesLessThanOrEqualTo is Sometimes(left <= right, ...) with a margin.
func SometimesLessThanOrEqualTo[T Number](left, right T, msg string, details ...any) {
	compare(kindSometimes, "le", left, right, msg, details)
}

func groupDetails(named map[string]bool, details []any) []byte {
	m := map[string]any{}
	for k, v := range named {
		m[k] = v
	}
	if d := detailsJSON(details); d != nil {
		m["details"] = json.RawMessage(d)
	}
	b, _ := json.Marshal(m) // map keys are sorted, so this is deterministic
	return b
}

// AlwaysSome is Always that at least one value in named is true. The named
// booleans are the failure's details. Outside the simulator it panics when
// none is true.
func AlwaysSome(named map[string]bool, msg string, details ...any) {
	cond := false
	for _, v := range named {
		cond = cond || v
	}
	if !hosted() {
		if !cond {
			panic("sim.AlwaysSome: " + msg + " " + string(groupDetails(named, details)))
		}
		return
	}
	hostPropertyRaw(kindAlways, cond, msg, groupDetails(named, details))
}

// SometimesAll is Sometimes that every value in named is true. Outside the
// simulator it does nothing.
func SometimesAll(named map[string]bool, msg string, details ...any) {
	if !hosted() {
		return
	}
	cond := true
	for _, v := range named {
		cond = cond && v
	}
	hostPropertyRaw(kindSometimes, cond, msg, groupDetails(named, details))
}

// Eventually calls cond until it returns true, sleeping within/100 of
// virtual time between calls, and returns true. If cond is still false after
// within, the run fails with class liveness. It is a property: cataloged,
// shown as eventually in the table, and required to be reached by some seed.
// Outside the simulator it uses real time and panics if cond never holds.
func Eventually(cond func() bool, msg string, within time.Duration) bool {
	step := within / 100
	if step <= 0 {
		step = time.Millisecond
	}
	deadline := time.Now().Add(within)
	for {
		if cond() {
			if hosted() {
				hostPropertyRaw(kindEventually, true, msg, nil)
			}
			return true
		}
		if !time.Now().Before(deadline) {
			break
		}
		time.Sleep(step)
	}
	if !hosted() {
		panic(fmt.Sprintf("sim.Eventually: %s: not true within %s", msg, within))
	}
	hostPropertyRaw(kindEventually, false, msg, []byte(fmt.Sprintf("%q", "not true within "+within.String())))
	return false
}

// QuietFor suppresses every fault for d of virtual time, from any node: it
// heals partitions, lifts clogs and ends slowdowns at once, and no buggify
// site fires meanwhile. Nodes already down still restart on schedule.
// Outside the simulator it does nothing.
func QuietFor(d time.Duration) {
	if hosted() && d > 0 {
		hostQuietFor(int64(d))
	}
}

// SetupComplete tells the simulator that bootstrapping is over; with
// "faults_after_setup" no fault fires before some node calls it. Outside the
// simulator it does nothing.
func SetupComplete() {
	if hosted() {
		hostSetupComplete()
	}
}

// Buggify reports whether the simulator forces the rare path at this site.
// With "buggify" on, a site is enabled in a quarter of runs the first time it
// is reached, and then fires on each hit with probability 0.25. Every firing
// is recorded as a fault, so it replays and shrinks. Outside the simulator
// it returns false.
func Buggify(site string) bool {
	if !hosted() {
		return false
	}
	return hostBuggify(site, 0.25)
}

// BuggifyWithProb is Buggify with firing probability p once the site is
// enabled.
func BuggifyWithProb(site string, p float64) bool {
	if !hosted() {
		return false
	}
	return hostBuggify(site, p)
}
