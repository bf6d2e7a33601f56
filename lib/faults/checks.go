package faults

import (
	"fmt"
	"strings"

	"github.com/sf-dst/sf/lib/echo"
)

// The network kinds name their nodes in their own fields: a partition in
// side or groups, a clog in a link (from, to) or a node and a direction.

func describePartition(f Fault) string {
	if len(f.Side) > 0 {
		return fmt.Sprintf("partition [%s] from the rest until %s", strings.Join(f.Side, " "), Time(int64(f.Until)))
	}
	return fmt.Sprintf("partition %s until %s", GroupsText(f.Groups), Time(int64(f.Until)))
}

func checkPartition(f Fault, _ Context) error {
	switch {
	case len(f.Side) > 0 && len(f.Groups) > 0:
		return entryErr("", "a partition has side or groups, not both")
	case len(f.Side) == 0 && len(f.Groups) == 0:
		return entryErr("", "a partition needs side (one group against the rest) or groups")
	case f.Node != "":
		return entryErr("node", "a partition names its nodes in side or groups")
	case len(f.Groups) == 1:
		return entryErr("groups", "a partition needs at least two groups")
	}
	for j, g := range f.Groups {
		if len(g) == 0 {
			return entryErr(fmt.Sprintf("groups[%d]", j), "empty")
		}
	}
	return nil
}

func checkClog(f Fault, _ Context) error {
	switch {
	case !contains(ClogModes, f.Mode):
		return entryErr("mode", "%s is not one of %s", echo.Quote(f.Mode), strings.Join(ClogModes, ", "))
	case f.Node != "" && (f.From != "" || f.To != ""):
		return entryErr("", "a clog names a node with dir, or a link with from and to, not both")
	case f.Node != "" && f.Dir != "in" && f.Dir != "out" && f.Dir != "both":
		return entryErr("dir", "%s is not one of in, out, both", echo.Quote(f.Dir))
	case f.Node == "" && f.Dir != "":
		return entryErr("dir", "a clog of one link (from, to) has no dir")
	case f.Node == "" && (f.From == "" || f.To == "" || f.From == f.To):
		return entryErr("", "a clog of one link needs two different nodes in from and to")
	case f.Delay < 0 || (f.Delay != 0 && f.Mode != "slow"):
		return entryErr("delay", "only a slow clog has a delay, and it is not negative")
	case f.Mode == "slow" && f.Delay == 0:
		// The generator never draws one, so this is a slip in a
		// hand-written or edited schedule.
		return entryErr("delay", "missing: a slow clog adds delay to every message, so without one it does nothing")
	}
	return nil
}
