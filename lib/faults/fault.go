package faults

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sf-dst/sf/lib/echo"
)

// Fault is one fault, as a schedule lists it: what fired in a run, or what
// a replay fires. at and until are virtual times written as Go duration
// strings. Which fields a fault uses depends on its kind; lib/schedule reads
// and writes whole schedules of them.
type Fault struct {
	At    Dur    `json:"at"`
	Kind  string `json:"kind"`
	Node  string `json:"node,omitempty"`
	Site  string `json:"site,omitempty"`
	Until Dur    `json:"until"`
	Op    int64  `json:"op,omitempty"`
	// Path and Offset say where a disk fault struck; Target is where a
	// misdirected write landed. The run fills them in for people to read;
	// a replay ignores them.
	Path   string `json:"path,omitempty"`
	Offset int64  `json:"offset,omitempty"`
	Target int64  `json:"target,omitempty"`
	// Delta is how far a clock_jump moves the node's wall clock.
	Delta Dur `json:"delta,omitempty"`
	// Bytes is how many bytes a short read or write moved; a replay moves
	// as many, and draws them when it is 0.
	Bytes int64 `json:"bytes,omitempty"`
	// Network faults: a partition's groups (or its side, one group against
	// every other node), a clog's link (From, To) or node and direction, its
	// mode and, when slow, its delay; a slowdown's factor.
	Groups [][]string `json:"groups,omitempty"`
	Side   []string   `json:"side,omitempty"`
	From   string     `json:"from,omitempty"`
	To     string     `json:"to,omitempty"`
	Dir    string     `json:"dir,omitempty"`
	Mode   string     `json:"mode,omitempty"`
	Delay  Dur        `json:"delay,omitempty"`
	Factor float64    `json:"factor,omitempty"`
}

// Dur is virtual time in nanoseconds that reads and writes as a Go duration
// string ("1.204s").
type Dur int64

// MarshalJSON writes d as a duration string.
func (d Dur) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string.
func (d *Dur) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("expected a duration string like \"1.5s\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %s", echo.Quote(s))
	}
	*d = Dur(v)
	return nil
}

// Describe returns the fault as reports, sf-faults and sf-shrink show it:
// its kind's Describe, or the kind and node for a kind sf does not know.
func (f Fault) Describe() string {
	if k, ok := Lookup(f.Kind); ok {
		return k.Describe(f)
	}
	return f.Kind + " " + f.Node
}

// PartitionGroups returns the groups of a partition: Groups, or Side
// against every other node of the world.
func (f Fault) PartitionGroups(nodes []string) [][]string {
	if len(f.Side) == 0 {
		return f.Groups
	}
	var rest []string
	for _, n := range nodes {
		if !contains(f.Side, n) {
			rest = append(rest, n)
		}
	}
	return [][]string{f.Side, rest}
}

// EntryError is what a kind's Check finds wrong with a schedule entry: the
// entry's field it is about ("mode"), or "" when it is about the entry as a
// whole, and what is wrong. lib/schedule puts the entry's place in front
// ("faults[3].mode: ...").
type EntryError struct {
	Field, Msg string
}

func (e *EntryError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

func entryErr(field, format string, args ...any) error {
	return &EntryError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Time formats virtual time as schedules are shown to people: a duration
// rounded to the microsecond ("427.268ms", "1.7052s").
func Time(ns int64) string {
	if ns == 0 {
		return "0s"
	}
	d := time.Duration(ns).Round(time.Microsecond)
	if d == 0 {
		return time.Duration(ns).String()
	}
	return d.String()
}

// GroupsText shows a partition's groups: [a b] | [c].
func GroupsText(groups [][]string) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = "[" + strings.Join(g, " ") + "]"
	}
	return strings.Join(parts, " | ")
}

// ClogText shows what a clog holds: a link or a node's direction, and its
// mode.
func ClogText(f Fault) string {
	what := fmt.Sprintf("%s -> %s", f.From, f.To)
	if f.Node != "" {
		what = fmt.Sprintf("%s %s", f.Node, f.Dir)
	}
	what += " " + f.Mode
	if f.Mode == "slow" {
		what += fmt.Sprintf(" +%s", time.Duration(f.Delay))
	}
	return what
}

func pathText(p string) string {
	if p == "" {
		return ""
	}
	return " (" + p + ")"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
