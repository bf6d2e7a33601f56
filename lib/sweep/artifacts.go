package sweep

// This file writes a seed's artifacts (trace, schedule, history) under the
// world's folder in .seedfall, each file whole or not at all. With -compress
// the trace and history are zstd files; the schedule stays plain JSON, which
// people read and edit.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/compressed"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/history"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/runner"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/textfmt"
)

// writeArtifacts writes a failing seed's trace and fault schedule next to
// the world file.
func writeArtifacts(p *runner.Prepared, o Options, r *engine.Result) (*record.Artifacts, error) {
	dir, err := MakeArtifactDir(p.World)
	if err != nil {
		return nil, err
	}
	stem := o.artifactName
	if stem == "" {
		prefix := o.artifactPrefix
		if prefix == "" {
			prefix = "seed-"
		}
		stem = fmt.Sprintf("%s%d", prefix, r.Seed)
	}
	arts := &record.Artifacts{}
	if arts.History, arts.Timeline, err = writeHistory(dir, stem, r, o.Compress); err != nil {
		return nil, err
	}
	if r.Status != engine.StatusFail && r.Status != engine.StatusNondeterministic {
		return arts, nil // a passing replay keeps only its history
	}
	trace := filepath.Join(dir, stem+".trace.log")
	faults := filepath.Join(dir, stem+".faults.json")
	var b strings.Builder
	b.WriteString(failureBlock(o, r))
	b.WriteString("\ntrace:\n")
	for _, l := range r.Trace {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	trace, err = writeMaybeCompressed(trace, []byte(b.String()), o.Compress)
	if err != nil {
		return nil, err
	}
	arts.Trace = textfmt.Display(trace)
	if o.Faults != "" && o.Faults != "-" && sameFile(o.Faults, faults) {
		// A replay never overwrites the schedule it read.
		arts.Faults = textfmt.Display(faults)
		return arts, nil
	}
	sched := &schedule.Schedule{Seed: r.Seed, Config: o.Config, Profile: o.Profile, Set: o.Set, Duration: engine.Dur(r.AtNs),
		Budget: o.budget, Branches: o.branches, Faults: r.Faults}
	if err := sched.WriteFile(faults); err != nil {
		return nil, err
	}
	arts.Faults = textfmt.Display(faults)
	return arts, nil
}

// writeHistory writes r's recorded history as stem.history.jsonl in dir
// and, when its check has a timeline (a linearizability violation), the
// timeline as stem.history.html. It returns their paths as shown, or ""
// for a file not written.
func writeHistory(dir, stem string, r *engine.Result, compress bool) (hist, timeline string, err error) {
	if len(r.History) == 0 {
		return "", "", nil
	}
	var b bytes.Buffer
	if err := history.WriteEvents(&b, r.History); err != nil {
		return "", "", err
	}
	path, err := writeMaybeCompressed(filepath.Join(dir, stem+".history.jsonl"), b.Bytes(), compress)
	if err != nil {
		return "", "", err
	}
	hist = textfmt.Display(path)
	if r.Check != nil && r.Check.HasTimeline() {
		tl := filepath.Join(dir, stem+".history.html")
		var page bytes.Buffer
		if err := r.Check.WriteTimeline(&page); err != nil {
			return "", "", err
		}
		if err := atomicfile.WriteFile(tl, page.Bytes(), 0o644); err != nil {
			return "", "", err
		}
		timeline = textfmt.Display(tl)
	}
	return hist, timeline, nil
}

// WriteShrunkHistory writes the history (and timeline) of the replay of a
// shrunk schedule next to it: seed-N.shrunk.history.jsonl and .html for
// seed-N.shrunk.faults.json, names no sweep writes.
func WriteShrunkHistory(p *runner.Prepared, seed uint64, exploreRun int, r *engine.Result) (hist, timeline string, err error) {
	dir, err := MakeArtifactDir(p.World)
	if err != nil {
		return "", "", err
	}
	return writeHistory(dir, strings.TrimSuffix(ShrunkName(seed, exploreRun), ".faults.json"), r, false)
}

// WriteRunArtifacts writes the artifacts of a failing run that is not one
// of a sweep's seeds, exactly as a sweep writes a failing seed's, but named
// name.trace.log, name.history.jsonl (and .history.html), name.faults.json:
// sf-run -explore names each failing run's files after the run. o names the
// world, the tool and -compress; o.Faults is the schedule that replays the
// run, already written, or empty when the run drew its own faults (a
// schedule of them is then written as for a sweep's seed).
func WriteRunArtifacts(p *runner.Prepared, o Options, name string, r *engine.Result) (*record.Artifacts, error) {
	o.artifactName = name
	return writeArtifacts(p, o, r)
}

// writeMaybeCompressed writes data to path, or compressed with zstd to
// path.zst, and returns the path it wrote. It removes the other of the two,
// left by an earlier run, so the folder never holds two versions of one
// artifact.
func writeMaybeCompressed(path string, data []byte, compress bool) (string, error) {
	stale := path + ".zst"
	if compress {
		path, stale = stale, path
		data = compressed.EncodeZstd(data)
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return "", err
	}
	if err := os.Remove(stale); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return path, nil
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// ShrunkName is the file name of a shrunk schedule in the world's artifact
// folder: seed-N.shrunk.faults.json for a sweep's seed,
// explore-N-run-R.shrunk.faults.json for a run of sf-run -explore. It is
// never the name a run writes its own schedule to (seed-N.faults.json,
// explore-N-run-R.faults.json), so that the next sweep, which rewrites
// those, never replaces a shrunk schedule with the raw one and the replay
// line sf-shrink printed keeps replaying what it shrank.
func ShrunkName(seed uint64, exploreRun int) string {
	if exploreRun > 0 {
		return fmt.Sprintf("explore-%d-run-%d.shrunk.faults.json", seed, exploreRun)
	}
	return fmt.Sprintf("seed-%d.shrunk.faults.json", seed)
}

// ArtifactDir is where the artifacts of a world's seeds go: a folder under
// .seedfall next to the world file, named by the world file, profile and
// -set overrides (.seedfall/seedfall.fixed/, .seedfall/seedfall.nightly/
// for profile nightly, .seedfall/seedfall.set-1f0c93a2/ for some -set
// values: see config.World.Name), so sweeps of distinct worlds never
// overwrite each other.
func ArtifactDir(w *config.World) string {
	return filepath.Join(build.Dir(w), w.Name())
}

// MakeArtifactDir creates the world's artifact folder, with the file that
// lists its -set overrides when it has some, and returns it. Everything
// that writes into the folder calls it first.
func MakeArtifactDir(w *config.World) (string, error) {
	dir := ArtifactDir(w)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, w.WriteOverrides(dir)
}
