package engine

import (
	"encoding/json"
	"fmt"
	"time"
)

// Fault is one entry of a fault schedule, in the reference format: at and
// until are Go duration strings of virtual time.
type Fault struct {
	At    Dur    `json:"at"`
	Kind  string `json:"kind"`
	Node  string `json:"node,omitempty"`
	Site  string `json:"site,omitempty"`
	Until Dur    `json:"until"`
	Op    int64  `json:"op,omitempty"`
	// Path and Offset say where a disk fault struck; Target is where a
	// misdirected write landed. They are filled in by the run for reading
	// and ignored on replay.
	Path   string `json:"path,omitempty"`
	Offset int64  `json:"offset,omitempty"`
	Target int64  `json:"target,omitempty"`
	// Delta is how far a clock_jump moves the node's wall clock.
	Delta Dur `json:"delta,omitempty"`
	// Network faults: a partition's groups, a clog's link (From, To) or node
	// and direction, its mode and, when slow, its delay; a slowdown's factor.
	Groups [][]string `json:"groups,omitempty"`
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
		return fmt.Errorf("expected a duration string like \"1.5s\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %q", s)
	}
	*d = Dur(v)
	return nil
}

// Fault kinds this version plans and applies.
const (
	KindCrash     = "crash"
	KindBuggify   = "buggify"
	KindClockJump = "clock_jump"
)

// knownKinds are the fault kinds a schedule may hold.
var knownKinds = map[string]bool{KindCrash: true, KindBuggify: true, KindClockJump: true, KindBitrot: true,
	KindCrashIO: true, KindFsyncEIO: true, KindWriteEIO: true, KindWriteENOSPC: true, KindReadEIO: true,
	KindReadCorrupt: true, KindLostWrite: true, KindMisdirected: true}

// countedKinds fire at a numbered event of a node (a buggify hit, a disk
// operation) rather than at a time; their at only records when it happened.
var countedKinds = map[string]bool{KindBuggify: true}

// Schedule is the file form of a seed's faults (.seedfall/seed-N.faults.json).
type Schedule struct {
	Seed     uint64  `json:"seed"`
	Config   string  `json:"config,omitempty"`
	Duration Dur     `json:"duration,omitempty"`
	Faults   []Fault `json:"faults"`
}

// ParseSchedule reads a schedule: either the object form written by sf-run
// or a bare JSON list of faults. Every fault is checked against the nodes of
// the world.
func ParseSchedule(file string, data []byte, nodes []string) (*Schedule, error) {
	var s Schedule
	trimmed := firstNonSpace(data)
	if trimmed == '[' {
		if err := json.Unmarshal(data, &s.Faults); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
	} else if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	known := map[string]bool{}
	for _, n := range nodes {
		known[n] = true
	}
	for i, f := range s.Faults {
		switch {
		case !knownKinds[f.Kind]:
			return nil, fmt.Errorf("%s: faults[%d].kind: unknown or unsupported fault kind %q", file, i, f.Kind)
		case f.Kind != KindPartition && (f.Kind != KindClog || f.From == "") && !known[f.Node]:
			return nil, fmt.Errorf("%s: faults[%d].node: no node named %q in the world", file, i, f.Node)
		case f.Kind == KindClog && f.Node == "" && (!known[f.From] || !known[f.To] || f.From == f.To):
			return nil, fmt.Errorf("%s: faults[%d]: a clog of one link needs two different nodes of the world in from and to", file, i)
		case f.Kind == KindClog && f.Mode != "stop" && f.Mode != "slow" && f.Mode != "jam":
			return nil, fmt.Errorf("%s: faults[%d].mode: %q is not one of stop, slow, jam", file, i, f.Mode)
		case f.Kind == KindClog && f.Node != "" && (f.From != "" || f.To != ""):
			return nil, fmt.Errorf("%s: faults[%d]: a clog names a node with dir, or a link with from and to, not both", file, i)
		case f.Kind == KindClog && (f.Delay < 0 || (f.Delay != 0 && f.Mode != "slow")):
			return nil, fmt.Errorf("%s: faults[%d].delay: only a slow clog has a delay, and it is not negative", file, i)
		case f.Kind == KindClog && f.Node != "" && f.Dir != "in" && f.Dir != "out" && f.Dir != "both":
			return nil, fmt.Errorf("%s: faults[%d].dir: %q is not one of in, out, both", file, i, f.Dir)
		case f.Kind == KindSlow && f.Factor < 1:
			return nil, fmt.Errorf("%s: faults[%d].factor: must be at least 1", file, i)
		case f.Kind == KindPartition && !groupsKnown(f.Groups, known):
			return nil, fmt.Errorf("%s: faults[%d].groups: every group must name nodes of the world", file, i)
		case f.At < 0:
			return nil, fmt.Errorf("%s: faults[%d].at: negative time", file, i)
		case countedKinds[f.Kind] && f.Op < 1:
			return nil, fmt.Errorf("%s: faults[%d].op: a %s fault needs an op of at least 1", file, i, f.Kind)
		case f.Kind == KindBuggify && f.Site == "":
			return nil, fmt.Errorf("%s: faults[%d].site: a buggify fault names its site", file, i)
		case !countedKinds[f.Kind] && f.Until < f.At && f.Kind != KindNetReset && f.Kind != KindClockJump && f.Kind != KindBitrot:
			return nil, fmt.Errorf("%s: faults[%d].until: before at", file, i)
		}
	}
	return &s, nil
}

func groupsKnown(groups [][]string, known map[string]bool) bool {
	if len(groups) == 0 {
		return false
	}
	for _, g := range groups {
		for _, n := range g {
			if !known[n] {
				return false
			}
		}
	}
	return true
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// Describe returns the fault as the trace and the failure report show it.
func (f Fault) Describe() string {
	switch f.Kind {
	case KindCrash:
		return fmt.Sprintf("crash %s, restart at %s", f.Node, fmtTime(int64(f.Until)))
	case KindBuggify:
		return fmt.Sprintf("buggify %q fires on %s at hit #%d", f.Site, f.Node, f.Op)
	case KindClockJump:
		return fmt.Sprintf("clock jump %s by %s", f.Node, time.Duration(f.Delta))
	case KindUDPDrop, KindUDPDup:
		return fmt.Sprintf("%s: datagram #%d of %s to %s", f.Kind, f.Op, f.Node, f.To)
	case KindPartition:
		return fmt.Sprintf("partition %s until %s", groupsText(f.Groups), fmtTime(int64(f.Until)))
	case KindClog:
		return fmt.Sprintf("clog %s until %s", clogText(f), fmtTime(int64(f.Until)))
	case KindNetReset:
		return fmt.Sprintf("reset the connections of %s", f.Node)
	case KindSlow:
		return fmt.Sprintf("slow %s by %gx until %s", f.Node, f.Factor, fmtTime(int64(f.Until)))
	case KindPause:
		return fmt.Sprintf("pause %s until %s", f.Node, fmtTime(int64(f.Until)))
	case KindCrashIO:
		return fmt.Sprintf("crash %s during disk op #%d (%s), restart at %s", f.Node, f.Op, f.Path, fmtTime(int64(f.Until)))
	case KindBitrot:
		return fmt.Sprintf("bitrot %s: %s at byte %d", f.Node, f.Path, f.Offset)
	case KindReadEIO, KindReadCorrupt:
		return fmt.Sprintf("%s %s at disk read #%d (%s)", f.Kind, f.Node, f.Op, f.Path)
	case KindFsyncEIO, KindWriteEIO, KindWriteENOSPC, KindLostWrite, KindMisdirected:
		return fmt.Sprintf("%s %s at disk op #%d (%s)", f.Kind, f.Node, f.Op, f.Path)
	}
	return f.Kind + " " + f.Node
}
