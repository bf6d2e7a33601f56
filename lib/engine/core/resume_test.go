package core

import (
	"fmt"
	"testing"

	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/schedule"
)

// TestResumedOptions: a resumed run keeps what shaped the forked run from
// its start and the branches still to come in it, adds the new branches
// after those, and takes the options that only matter from the fork on
// from the resume.
func TestResumedOptions(t *testing.T) {
	early, late, added := schedule.Branch{At: 1, Key: 1}, schedule.Branch{At: 9, Key: 2}, schedule.Branch{At: 5, Key: 3}
	forked := Options{
		Faults: []Fault{{Kind: faults.KindCrash, Node: "n"}}, Mutant: "m", Budget: 3, StopAtNs: 100,
		Branches: []schedule.Branch{early, late}, RedrawAfterBranch: true, Inspect: true, RecordCalls: [2]uint64{1, 2},
	}
	tests := []struct {
		name       string
		opts       Options
		branches   []schedule.Branch
		stop       int64
		redraw     bool
		inspect    bool
		recordFrom uint64
	}{
		{"nothing", Options{}, []schedule.Branch{late}, 100, true, false, 0},
		{"a branch, a stop, a window", Options{Branches: []schedule.Branch{added}, StopAtNs: 50, Inspect: true, RecordCalls: [2]uint64{7, 9}},
			[]schedule.Branch{late, added}, 50, true, true, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := resumedOptions(forked, forked.Branches[1:], tt.opts)
			if fmt.Sprint(o.Branches) != fmt.Sprint(tt.branches) || o.StopAtNs != tt.stop || o.RedrawAfterBranch != tt.redraw ||
				o.Inspect != tt.inspect || o.RecordCalls[0] != tt.recordFrom {
				t.Errorf("branches %v, stop %d, redraw %v, inspect %v, record from %d; want %v, %d, %v, %v, %d",
					o.Branches, o.StopAtNs, o.RedrawAfterBranch, o.Inspect, o.RecordCalls[0], tt.branches, tt.stop, tt.redraw, tt.inspect, tt.recordFrom)
			}
			if len(o.Faults) != 1 || o.Mutant != "m" || o.Budget != 3 {
				t.Errorf("the forked run's faults, mutant or budget were not kept: %+v", o)
			}
		})
	}
}
