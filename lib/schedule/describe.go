package schedule

import (
	"fmt"
	"strings"
	"time"
)

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

// Describe returns the fault as reports show it.
func (f Fault) Describe() string {
	switch f.Kind {
	case KindCrash:
		return fmt.Sprintf("crash %s, restart at %s", f.Node, Time(int64(f.Until)))
	case KindCrashIO:
		return fmt.Sprintf("crash %s during disk op #%d%s, restart at %s", f.Node, f.Op, pathText(f.Path), Time(int64(f.Until)))
	case KindBuggify:
		return fmt.Sprintf("buggify %q fires on %s at hit #%d", f.Site, f.Node, f.Op)
	case KindClockJump:
		return fmt.Sprintf("clock jump %s by %s", f.Node, time.Duration(f.Delta))
	case KindUDPDrop, KindUDPDup:
		return fmt.Sprintf("%s: datagram #%d of %s to %s", f.Kind, f.Op, f.Node, f.To)
	case KindPartition:
		if len(f.Side) > 0 {
			return fmt.Sprintf("partition [%s] from the rest until %s", strings.Join(f.Side, " "), Time(int64(f.Until)))
		}
		return fmt.Sprintf("partition %s until %s", GroupsText(f.Groups), Time(int64(f.Until)))
	case KindClog:
		return fmt.Sprintf("clog %s until %s", ClogText(f), Time(int64(f.Until)))
	case KindNetReset:
		return fmt.Sprintf("reset the connections of %s", f.Node)
	case KindSlow:
		return fmt.Sprintf("slow %s by %gx until %s", f.Node, f.Factor, Time(int64(f.Until)))
	case KindPause:
		return fmt.Sprintf("pause %s until %s", f.Node, Time(int64(f.Until)))
	case KindBitrot:
		return fmt.Sprintf("bitrot %s: %s at byte %d", f.Node, f.Path, f.Offset)
	case KindReadEIO, KindReadCorrupt:
		return fmt.Sprintf("%s %s at disk read #%d%s", f.Kind, f.Node, f.Op, pathText(f.Path))
	case KindFsyncEIO, KindWriteEIO, KindWriteENOSPC, KindLostWrite, KindMisdirected, KindMmapWB:
		return fmt.Sprintf("%s %s at disk op #%d%s", f.Kind, f.Node, f.Op, pathText(f.Path))
	case KindPreempt:
		return fmt.Sprintf("preempt %s at counted call #%d", f.Node, f.Op)
	}
	return f.Kind + " " + f.Node
}

func pathText(p string) string {
	if p == "" {
		return ""
	}
	return " (" + p + ")"
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
