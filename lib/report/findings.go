package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/record"
)

// Finding statuses across runs.
const (
	StatusNew       = "new"       // not in the findings file before
	StatusOngoing   = "ongoing"   // seen before, seen again
	StatusResolved  = "resolved"  // seen before; its seeds ran again and no longer fail that way
	StatusRegressed = "regressed" // resolved before, seen again
)

// FindingsFile is the name of the findings file in a world's state folder.
const FindingsFile = "findings.json"

// stateDir is the folder next to a world file where sf keeps what it
// writes for it (lib/build's StateDir; this package does not import the
// build for one name, and a test holds the two equal).
const stateDir = ".seedfall"

// FindingsPath is where the findings of the world file named world (as the
// records name it, relative to the current folder) are kept unless a file
// is given: findings.json in the .seedfall folder next to the world file,
// beside the world's artifacts. A world read from standard input ("-") has
// the current folder's, as its artifacts do.
func FindingsPath(world string) string {
	dir := "."
	if world != "-" && world != "" {
		dir = filepath.Dir(world)
	}
	return filepath.Join(dir, stateDir, FindingsFile)
}

// UpdateFindings records what the sweeps found (Store.Update) in the
// findings file given, or, with file empty, in each world's own
// (FindingsPath): sweeps of worlds in one folder share that folder's file,
// and worlds in several folders update one file each. It returns the files
// written, in the order the sweeps first name them. A world whose folder
// does not exist here (the records were written elsewhere) is an error
// that says what to give instead.
func UpdateFindings(sweeps []*Sweep, file, now string) ([]string, error) {
	var paths []string
	groups := map[string][]*Sweep{}
	for _, sw := range sweeps {
		path := file
		if path == "" {
			path = FindingsPath(sw.World)
			if dir := filepath.Dir(filepath.Dir(path)); !isDir(dir) {
				return nil, fmt.Errorf("findings of %s: its folder %s is not here, so there is no .seedfall beside it: run sf-report where sf-run ran, or name a findings file (-findings FILE, or \"\" for none)", sw.World, dir)
			}
		}
		if _, ok := groups[path]; !ok {
			paths = append(paths, path)
		}
		groups[path] = append(groups[path], sw)
	}
	for _, path := range paths {
		store, err := LoadStore(path)
		if err != nil {
			return nil, err
		}
		store.Update(groups[path], now)
		if err := store.Save(); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// StoreVersion is the version of the findings file's format.
const StoreVersion = 1

// SeedsKeptMax bounds the seeds kept per finding in the findings file; a
// finding that fails more seeds keeps the first ones.
const SeedsKeptMax = 1000

// Store is the findings file: every finding seen, with its status.
type Store struct {
	Version  int       `json:"version"`
	Findings []*Record `json:"findings"`

	path string
}

// Record is one finding in the findings file. Its fingerprint is the world,
// class, message head and (for liveness) node.
type Record struct {
	Fingerprint string `json:"fingerprint"`
	World       string `json:"world"`
	Class       string `json:"class"`
	Message     string `json:"message,omitempty"`
	Node        string `json:"node,omitempty"`
	Status      string `json:"status"`
	FirstSeen   string `json:"first_seen"`
	LastSeen    string `json:"last_seen"`
	// ResolvedAt is when a sweep last found the finding resolved.
	ResolvedAt string `json:"resolved_at,omitempty"`
	// Seeds are the seeds that failed this way when it was last seen.
	Seeds []uint64 `json:"seeds"`
	// Pins are the pin files whose replay failed this way when it was
	// last seen.
	Pins []string `json:"pins,omitempty"`
}

// Fingerprint identifies a finding of a world across runs.
func Fingerprint(world string, f *Finding) string {
	h := sha256.Sum256([]byte(world + "\x00" + f.Class + "\x00" + f.Head + "\x00" + f.Node))
	return hex.EncodeToString(h[:8])
}

// LoadStore reads the findings file at path; a file that does not exist yet
// is an empty store.
func LoadStore(path string) (*Store, error) {
	s := &Store{Version: StoreVersion, path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("findings file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("findings file %s: %v (move it away to start afresh)", path, err)
	}
	if s.Version != StoreVersion {
		return nil, fmt.Errorf("findings file %s: version %d, this sf-report reads version %d", path, s.Version, StoreVersion)
	}
	return s, nil
}

// Update records what each sweep found at time now and sets each finding's
// status, first and last seen. A finding of a sweep's world that the sweep
// does not show is resolved when every seed it failed on last time ran in
// the sweep; those go into the sweep's Resolved list.
func (s *Store) Update(sweeps []*Sweep, now string) {
	byFP := map[string]*Record{}
	for _, r := range s.Findings {
		byFP[r.Fingerprint] = r
	}
	for _, sw := range sweeps {
		world := sw.WorldKey()
		seen := map[string]bool{}
		for _, f := range sw.Findings {
			fp := Fingerprint(world, f)
			seen[fp] = true
			r := byFP[fp]
			switch {
			case r == nil:
				r = &Record{Fingerprint: fp, World: world, Class: f.Class, Message: f.Head, Node: f.Node,
					Status: StatusNew, FirstSeen: now}
				byFP[fp] = r
				s.Findings = append(s.Findings, r)
			case r.Status == StatusResolved:
				r.Status = StatusRegressed
			default:
				r.Status = StatusOngoing
			}
			r.LastSeen = now
			r.Seeds = append([]uint64{}, f.Seeds[:min(len(f.Seeds), SeedsKeptMax)]...)
			if len(f.Runs) > 0 {
				// Found by branching: the seed's own run may well pass, so a
				// sweep that runs it must not take that for a fix.
				r.Seeds = []uint64{}
			}
			r.Pins = nil
			for _, p := range f.Pins {
				r.Pins = append(r.Pins, p.Pin)
			}
			f.Status, f.FirstSeen, f.LastSeen = r.Status, r.FirstSeen, r.LastSeen
		}
		if sw.ShrinkOnly {
			continue
		}
		for _, r := range s.Findings {
			if r.World != world || seen[r.Fingerprint] || r.Status == StatusResolved || !sw.ranAll(r.Seeds, r.Pins) {
				continue
			}
			r.Status, r.ResolvedAt = StatusResolved, now
			f := &Finding{Class: r.Class, Head: r.Message, Node: r.Node,
				Seeds: r.Seeds, Status: r.Status, FirstSeen: r.FirstSeen, LastSeen: r.LastSeen}
			for _, p := range r.Pins {
				f.Pins = append(f.Pins, record.Pin{Pin: p})
			}
			sw.Resolved = append(sw.Resolved, f)
		}
	}
	sort.SliceStable(s.Findings, func(i, j int) bool {
		if s.Findings[i].World != s.Findings[j].World {
			return s.Findings[i].World < s.Findings[j].World
		}
		return s.Findings[i].FirstSeen < s.Findings[j].FirstSeen
	})
}

// ranAll says whether every one of seeds finished in the sweep and every
// one of pins was replayed before it; never for an exploration.
func (sw *Sweep) ranAll(seeds []uint64, pins []string) bool {
	// An exploration's passing runs have no records, and its runs of a
	// seed are branches, not the seed's own run: it cannot tell that a
	// finding's seeds no longer fail.
	if (len(seeds) == 0 && len(pins) == 0) || sw.ExploreBudget > 0 {
		return false
	}
	for _, s := range seeds {
		if !sw.ran[s] {
			return false
		}
	}
	for _, p := range pins {
		if !sw.pinsRan[p] {
			return false
		}
	}
	return true
}

// Save writes the findings file atomically.
func (s *Store) Save() error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(s.path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("findings file: %w", err)
	}
	return nil
}
