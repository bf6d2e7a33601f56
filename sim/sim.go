package sim

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
)

// Enabled reports whether the program runs inside the sf simulator. It reads
// the SEEDFALL environment variable, which the simulator sets to "1" for
// every node.
func Enabled() bool { return os.Getenv("SEEDFALL") == "1" }

// Node returns the name of the node this program runs as, from the world
// file. Outside the simulator it returns "".
func Node() string {
	if !Enabled() {
		return ""
	}
	return os.Getenv("SEEDFALL_NODE")
}

// Property kinds as the host sees them. The numbers are part of the ABI
// between this package and the engine; never renumber them.
const (
	kindAlways              = 1
	kindAlwaysOrUnreachable = 2
	kindSometimes           = 3
	kindReachable           = 4
	kindUnreachable         = 5
	kindAssert              = 6
	kindEventually          = 7
)

// Fail stops the simulated run as failed with msg. Outside the simulator it
// panics with msg, so the same code fails an ordinary test.
func Fail(msg string) {
	if !hosted() {
		panic("sim.Fail: " + msg)
	}
	hostFail(msg)
}

// Assert fails the run with msg when cond is false. Outside the simulator it
// panics when cond is false.
func Assert(cond bool, msg string) {
	if cond {
		return
	}
	if !hosted() {
		panic("sim.Assert: " + msg)
	}
	hostProperty(kindAssert, cond, msg, nil)
}

// Always is a property that must hold every time it is reached: a false cond
// fails the seed, and a sweep in which no seed reaches it fails too. details
// are encoded as JSON in the failure message but do not make a new property.
// Outside the simulator it panics when cond is false.
func Always(cond bool, msg string, details ...any) {
	if !hosted() {
		if !cond {
			panic("sim.Always: " + msg + detailsSuffix(details))
		}
		return
	}
	hostProperty(kindAlways, cond, msg, details)
}

// AlwaysOrUnreachable is Always without the need to be reached. Outside the
// simulator it does nothing.
func AlwaysOrUnreachable(cond bool, msg string, details ...any) {
	if !hosted() {
		return
	}
	hostProperty(kindAlwaysOrUnreachable, cond, msg, details)
}

// Sometimes is a property that must be reached with cond true in at least one
// seed of a sweep. It never fails a single seed. Outside the simulator it
// does nothing.
func Sometimes(cond bool, msg string, details ...any) {
	if !hosted() {
		return
	}
	hostProperty(kindSometimes, cond, msg, details)
}

// Reachable marks code that some seed of a sweep must run. Outside the
// simulator it does nothing.
func Reachable(msg string, details ...any) {
	if !hosted() {
		return
	}
	hostProperty(kindReachable, true, msg, details)
}

// Unreachable marks code that must never run: reaching it fails the seed.
// Outside the simulator it panics.
func Unreachable(msg string, details ...any) {
	if !hosted() {
		panic("sim.Unreachable: " + msg + detailsSuffix(details))
	}
	hostProperty(kindUnreachable, false, msg, details)
}

// Event records a moment of the run in the trace, with details encoded as
// JSON. Outside the simulator it does nothing.
func Event(name string, details any) {
	if !hosted() {
		return
	}
	hostEvent(name, encodeDetails(details))
}

// Budget returns how many operations a workload should perform, given that it
// wants n. In an ordinary simulated run, and outside the simulator, it
// returns n unchanged. In a replay whose fault schedule sets budget (as a
// shrunk schedule may), it returns the smaller of n and that budget, and the
// run's trace records the cap. Use the returned count everywhere the number
// of operations matters, including in messages and final checks.
func Budget(n int) int {
	if !hosted() || n <= 0 {
		return n
	}
	return hostBudget(n)
}

// Random returns a random number. Inside the simulator it reads the node's
// seeded random stream (through crypto/rand, which the simulator feeds), so
// a seed replays the same choices; outside it reads crypto/rand.
func Random() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("sim.Random: " + err.Error())
	}
	return binary.LittleEndian.Uint64(b[:])
}

// RandomChoice returns one element of items, each equally likely, drawn as
// Random does. An empty slice fails the run (outside the simulator it
// panics), since there is nothing to return.
func RandomChoice[T any](items []T) T {
	if len(items) == 0 {
		Fail("sim.RandomChoice: empty slice")
		var zero T
		return zero
	}
	n := uint64(len(items))
	// Reject draws from the incomplete last block so every item is as likely.
	limit := ^uint64(0) - (^uint64(0) % n)
	for {
		r := Random()
		if r < limit {
			return items[r%n]
		}
	}
}

func encodeDetails(details any) []byte {
	if details == nil {
		return nil
	}
	// Details are for people reading a failure, not for a web page: keep
	// <, > and & as they are.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(details); err != nil {
		buf.Reset()
		enc.Encode(fmt.Sprint(details))
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

func detailsJSON(details []any) []byte {
	switch len(details) {
	case 0:
		return nil
	case 1:
		return encodeDetails(details[0])
	default:
		return encodeDetails(details)
	}
}

func detailsSuffix(details []any) string {
	if b := detailsJSON(details); b != nil {
		return " " + string(b)
	}
	return ""
}
