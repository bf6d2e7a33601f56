package schedule

import (
	"fmt"
	"time"

	"github.com/sf-dst/sf/lib/faults"
)

// Time formats virtual time as schedules are shown to people: a duration
// rounded to the microsecond ("427.268ms", "1.7052s").
func Time(ns int64) string { return faults.Time(ns) }

// Lines lists the faults numbered from 1, as sf-faults and sf-shrink print
// them: "  1   427.268ms  crash server, restart at 791.388ms".
func Lines(faults []Fault) []string {
	out := make([]string, len(faults))
	width := len(fmt.Sprint(len(faults)))
	for i, f := range faults {
		out[i] = fmt.Sprintf("  %*d  %12s  %s", width, i+1, Time(int64(f.At)), f.Describe())
	}
	return out
}

// RoundedDuration shows a run's length the way summaries do: to 100ms from a
// second on, else to the millisecond.
func RoundedDuration(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(time.Millisecond).String()
	}
	return d.String()
}
