package sweep

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/schedule"
)

// ArtifactDir is where the artifacts of a world's seeds go: a folder under
// .seedfall next to the world file, named by the world file and profile
// (.seedfall/seedfall.fixed/, .seedfall/seedfall.nightly/ for profile
// nightly), so sweeps of sibling worlds never overwrite each other.
func ArtifactDir(w *config.World) string {
	name := strings.TrimSuffix(filepath.Base(w.File), filepath.Ext(w.File))
	if w.File == "-" || name == "" {
		name = "stdin"
	}
	if w.Profile != "" {
		name += "." + w.Profile
	}
	return filepath.Join(build.Dir(w), name)
}

// ScheduleWorld is what a schedule for this world is checked against.
func (p *Prepared) ScheduleWorld() schedule.World {
	return schedule.World{File: p.World.File, Nodes: p.nodeNames(), DurationNs: p.Spec.DurationNs,
		PreemptPCT: p.World.Preempt.Strategy == "pct"}
}

// ReadSchedule reads the schedule at path ("-" for stdin) and checks it
// against the world.
func (p *Prepared) ReadSchedule(path string, stdin io.Reader) (*schedule.Schedule, error) {
	s, err := schedule.ReadFile(path, stdin)
	if err != nil {
		return nil, fmt.Errorf("-faults: %w", err)
	}
	if err := s.Check(p.ScheduleWorld()); err != nil {
		return nil, fmt.Errorf("-faults: %s: %w", displayPath(path), err)
	}
	return s, nil
}

func displayPath(path string) string {
	if path == "-" {
		return "<stdin>"
	}
	return path
}

// RunOptions are the engine options that replay sched; with a nil sched
// the seed draws its own faults.
func (p *Prepared) RunOptions(sched *schedule.Schedule) engine.Options {
	if sched == nil {
		return engine.Options{}
	}
	faults := sched.Faults
	if faults == nil {
		faults = []engine.Fault{}
	}
	return engine.Options{Faults: faults, StopAtNs: int64(sched.Duration), Budget: sched.Budget, Branches: sched.Branches}
}

// ShellJoin joins args into a command line a POSIX shell reads back as the
// same words, quoting only the words that need it.
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./=:,+@%", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
