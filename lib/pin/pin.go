// Package pin keeps pinned regressions: failing seeds' schedules stored
// under .seedfall/pinned/<world>/ next to the world file, to be committed
// with the code. A pin is an ordinary schedule file (sf-run -faults replays
// it) with a "pinned" object that remembers how the seed failed, so that a
// failure that comes back can name the pin, its original seed, and whether
// it fails the way it did. sf-run replays a world's pins before its sweep,
// sf-run -pin and sf-shrink -pin write them, and simtest replays them under
// go test.
package pin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/schedule"
)

// Failure is what "fails the same way" compares: the class, the head of the
// message and, for liveness, the node. sf-shrink keeps a subset of faults
// only while the run fails the same way, and a pin's replay says whether
// the failure that came back is the one it pinned.
type Failure struct {
	Class string
	Head  string
	Node  string
}

func (f Failure) String() string {
	if f.Class == engine.ClassLiveness {
		return "liveness · " + f.Node
	}
	return f.Class + ": " + f.Head
}

var (
	instancePrefix = regexp.MustCompile(`^[A-Za-z0-9_.-]+#[0-9]+: `)
	instanceNum    = regexp.MustCompile(`#[0-9]+\b`)
	number         = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
)

// FailureOf is how r failed. The message head is the failing property's
// message, or else the failure's message without the failing instance in
// front, without the details after its first ": " and
// with every number masked, so that "client#1: acknowledged write lost:
// k138=v138" and "client#2: acknowledged write lost: k63=v63" are the same
// failure, and so are "counter is 136 after 100 increments" and "counter is
// 101 after 100 increments": a message that only counts differently is the
// same property failing.
func FailureOf(r *engine.Result) Failure {
	msg := instancePrefix.ReplaceAllString(r.Message, "")
	if r.Property != "" {
		msg = r.Property
	}
	head, _, _ := strings.Cut(msg, ": ")
	f := Failure{Class: r.Class, Head: number.ReplaceAllString(instanceNum.ReplaceAllString(head, ""), "N")}
	if r.Class == engine.ClassLiveness {
		f.Node = instanceNum.ReplaceAllString(r.Node, "")
	}
	return f
}

// Same reports whether r fails the way f describes.
func (f Failure) Same(r *engine.Result) bool {
	return r.Status == engine.StatusFail && FailureOf(r) == f
}

// Folder is the folder under .seedfall that holds pins.
const Folder = "pinned"

// ListMax bounds how many pins a world may have: each is replayed before
// every sweep, so a folder of thousands is a mistake, not a test suite.
const ListMax = 1000

// Dir is where the pins of the world w are kept:
// .seedfall/pinned/<world>/ next to the world file, <world> being the
// world file's name without its extension, plus ".<profile>" when a profile
// is applied and ".set-<hash>" when -set overrides are (the same name as
// the world's artifact folder: config.World.Name).
func Dir(w *config.World) string {
	return filepath.Join(build.Dir(w), Folder, w.Name())
}

// Path is the pin file of seed in the world w: seed-<N>.json in Dir(w).
func Path(w *config.World, seed uint64) string {
	return filepath.Join(Dir(w), "seed-"+strconv.FormatUint(seed, 10)+".json")
}

// Make returns sched as a pin of the failing run r: a copy with the pinned
// object filled in from r and no duration, so that a replay runs the
// world's whole duration and a change that only delays the failure does not
// pass the pin.
func Make(sched *schedule.Schedule, r *engine.Result) *schedule.Schedule {
	c := *sched
	c.Duration = 0
	c.Pinned = &schedule.Pinned{Class: r.Class, Message: r.Message, At: schedule.Dur(r.AtNs), Node: r.Node,
		Fingerprint: FailureOf(r).String()}
	return &c
}

// Write stores the pin of the failing run r (replayed or shrunk to sched)
// for the world w, replacing an older pin of the same seed, and returns its
// path.
func Write(w *config.World, sched *schedule.Schedule, r *engine.Result) (string, error) {
	if r.Status != engine.StatusFail {
		return "", fmt.Errorf("seed %d did not fail (%s): there is no failure to pin", r.Seed, r.Status)
	}
	path := Path(w, sched.Seed)
	if err := Make(sched, r).WriteFile(path); err != nil {
		return "", fmt.Errorf("writing the pin: %w", err)
	}
	if err := w.WriteOverrides(Dir(w)); err != nil {
		return "", fmt.Errorf("writing the pin: %w", err)
	}
	return path, nil
}

// List returns the pin files of the world w, in order of seed, then name.
// A world without a pin folder has none. Only files named seed-<N>.json
// count, so notes kept beside the pins (a README) are left alone.
func List(w *config.World) ([]string, error) {
	dir := Dir(w)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pinned regressions: %w", err)
	}
	type pinFile struct {
		seed uint64
		path string
	}
	var pins []pinFile
	for _, e := range entries {
		name := e.Name()
		num, ok := strings.CutPrefix(name, "seed-")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		num, ok = strings.CutSuffix(num, ".json")
		if !ok {
			continue
		}
		seed, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			continue
		}
		pins = append(pins, pinFile{seed, filepath.Join(dir, name)})
	}
	if len(pins) > ListMax {
		return nil, fmt.Errorf("pinned regressions: %s holds %d pins, more than the limit of %d replayed before every sweep", dir, len(pins), ListMax)
	}
	sort.Slice(pins, func(i, j int) bool {
		if pins[i].seed != pins[j].seed {
			return pins[i].seed < pins[j].seed
		}
		return pins[i].path < pins[j].path
	})
	out := make([]string, len(pins))
	for i, p := range pins {
		out[i] = p.path
	}
	return out, nil
}
