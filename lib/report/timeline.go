package report

import (
	"sort"

	"github.com/sf-dst/sf/lib/schedule"
)

// Timeline is a shrunk schedule laid out for drawing: one lane per node,
// each fault placed along the run from 0 to the failure.
type Timeline struct {
	EndNs int64 // the right edge: when the shrunk run fails
	Lanes []Lane
}

// Lane is one node's faults.
type Lane struct {
	Node  string
	Marks []Mark
}

// Mark is one fault: Left and Width are percentages of the run; Width is 0
// for a fault that happens at an instant (a crash on a disk operation, a
// clock jump).
type Mark struct {
	Left, Width float64
	Kind        string
	Label       string // the fault as reports describe it, with its time
	Index       int    // the fault's place in the schedule, from 0
}

// networkLane holds faults that belong to no single node (partitions).
const networkLane = "(network)"

// Layout lays out a schedule's faults; endNs is when the run fails, or 0 to
// use the schedule's duration or, failing that, the last fault's end.
func Layout(s *schedule.Schedule, endNs int64) Timeline {
	if endNs <= 0 {
		endNs = int64(s.Duration)
	}
	for _, f := range s.Faults {
		endNs = max(endNs, int64(f.At), int64(f.Until))
	}
	if endNs <= 0 {
		endNs = 1
	}
	lanes := map[string]*Lane{}
	for i, f := range s.Faults {
		node := f.Node
		if node == "" {
			node = f.From
		}
		if node == "" {
			node = networkLane
		}
		l := lanes[node]
		if l == nil {
			l = &Lane{Node: node}
			lanes[node] = l
		}
		at, until := int64(f.At), int64(f.Until)
		m := Mark{Left: pct(at, endNs), Kind: f.Kind, Label: schedule.Time(at) + "  " + f.Describe(), Index: i}
		if until > at {
			m.Width = pct(min(until, endNs), endNs) - m.Left
		}
		l.Marks = append(l.Marks, m)
	}
	t := Timeline{EndNs: endNs}
	for _, l := range lanes {
		t.Lanes = append(t.Lanes, *l)
	}
	sort.Slice(t.Lanes, func(i, j int) bool { return t.Lanes[i].Node < t.Lanes[j].Node })
	return t
}

func pct(ns, end int64) float64 {
	p := float64(ns) * 100 / float64(end)
	return float64(int64(p*100+0.5)) / 100 // two decimals are plenty for a page
}
