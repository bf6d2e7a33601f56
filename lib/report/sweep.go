package report

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/schedule"
	"github.com/sf-dst/sf/lib/textfmt"
)

// Sweep is what the report says about one sweep: one sf-run stream, or the
// shards of one sweep merged.
type Sweep struct {
	// World is the world file as the records name it; Profile and Set are
	// what it was loaded with.
	World   string
	Profile string
	Set     []string
	// SeedsText is the sweep's seed set as given to sf-run ("1-500").
	SeedsText string
	// Shards is N for a sharded sweep, 0 otherwise; Missing lists the
	// shards (K) that were expected and not given.
	Shards  int
	Missing []int
	// Unfinished lists the streams (file:line of their start) that ended
	// without a summary: their run was killed.
	Unfinished []string
	Sources    []string // file:line of each stream's start record

	Ran              int // seeds that finished
	Passed           int
	Failed           int
	Horizon          int
	Nondeterministic int
	FailedSeeds      []uint64
	// GaveUpSeeds are the seeds whose history check gave up.
	GaveUpSeeds []uint64
	// HostStallSeeds are the seeds whose first run hit the real-time
	// watchdog and whose second run did not: they count as the second run
	// came out, and are listed so that a loaded host does not go unseen.
	HostStallSeeds []uint64
	// GaveUpRuns and HostStallRuns are, in an exploration, the runs of
	// GaveUpSeeds and HostStallSeeds: one seed may be several of them.
	GaveUpRuns       []int
	HostStallRuns    []int
	Properties       []record.Property
	PropertyFailures int
	Buggify          []record.BuggifySite
	Interrupted      bool
	// RealNs is the real time of the sweep, or of its longest shard.
	RealNs int64

	// Pins are the replays of the world's pinned regressions that came
	// before the seeds, one per pin file, in the order sf-run wrote them.
	// sf-run replays them in the first shard of a sharded sweep only;
	// should several streams of one sweep hold a replay of the same file,
	// the lowest shard's is kept, so that a pin is never counted twice.
	// PinsFailed counts those that failed (or were nondeterministic): each
	// is in a finding too.
	Pins       []record.Pin
	PinsFailed int
	// PinsUnseen lists the streams whose summary counts more pins than
	// they hold pin records for: the stream was cut, so the report cannot
	// say how those pins came out.
	PinsUnseen []string

	// ExploreBudget is -explore-runs for a stream of sf-run -explore, 0
	// for a sweep. An exploration's seed records are its failing runs
	// alone, so Ran, Passed and Horizon come from its summary (each run
	// counts as one seed), Failed counts its failing runs, and Explore is
	// the summary's account of the runs; nil when the stream was cut.
	ExploreBudget int
	Explore       *record.ExploreCounts

	Findings []*Finding
	// Resolved are findings of the findings file that this sweep no longer
	// shows: set by Store.Update.
	Resolved []*Finding
	// ShrinkOnly is set for a report of sf-shrink records that match no
	// sf-run sweep given: it has findings and nothing else.
	ShrinkOnly bool
	// causeOnly marks a ShrinkOnly sweep made of sf-shrink -cause curves.
	causeOnly bool
	// ShrinkErrors are the seeds sf-shrink could not shrink, each as
	// "seed N: why".
	ShrinkErrors []string

	ran     map[uint64]bool // seeds that finished
	pinsRan map[string]bool // pin files replayed
}

// Status is the sweep's outcome: "pass", "fail" (a seed failed or a property
// was never reached or never true) or "incomplete" (shards are missing, or
// a stream ended early) when it did not otherwise fail.
func (s *Sweep) Status() string {
	switch {
	case s.Failed > 0 || s.PropertyFailures > 0 || s.PinsFailed > 0 || len(s.Findings) > 0 || s.GaveUpOnly() > 0:
		return "fail"
	case len(s.Missing) > 0 || len(s.Unfinished) > 0 || s.Interrupted || len(s.ShrinkErrors) > 0 || len(s.PinsUnseen) > 0:
		return "incomplete"
	}
	return "pass"
}

// GaveUpOnly counts the seeds (runs, in an exploration) whose history check
// gave up and that did not fail otherwise: neither passed nor failed, as
// sf-run's summary counts them.
func (s *Sweep) GaveUpOnly() int { return max(s.Ran-s.Passed-s.Failed, 0) }

// WorldKey names the world of a fingerprint: the file with its profile and
// overrides.
func (s *Sweep) WorldKey() string {
	k := s.World
	if s.Profile != "" {
		k += " -profile " + s.Profile
	}
	for _, v := range s.Set {
		k += " -set " + v
	}
	return k
}

// Finding is one way a sweep fails: its failing seeds grouped by class and
// message head (liveness failures by node).
type Finding struct {
	Class string
	// Head is the property message or failure message with the failing
	// instance, the details after the first ": " and every number left
	// out ("acknowledged write lost"); for liveness it is empty.
	Head string
	// Node is the node without its instance number, for liveness.
	Node string
	// Seeds are the seeds that failed this way, each once.
	Seeds []uint64
	// Runs are, in an exploration, the runs that failed this way, in run
	// order: several may be runs of one seed.
	Runs []int
	// Pins are the replays of pinned regressions that failed this way.
	// A finding may have pins and no seeds: a bug that came back where
	// none of the sweep's seeds reaches it.
	Pins []record.Pin
	// First is the record of the finding's first seed; zero when the
	// finding has no seed, only pins.
	First record.Seed
	// Shrunk is the shortest shrunk schedule of the finding's seeds, if
	// sf-shrink records were given.
	Shrunk *record.Shrink
	// Timeline is the first history timeline of the finding's seeds.
	Timeline string
	// Schedule is the shrunk schedule read from its file (Schedules), or
	// ScheduleErr why it could not be read.
	Schedule    *schedule.Schedule
	ScheduleErr string
	// Cause is the cause curve sf-shrink -cause drew for one of the
	// finding's seeds, if its records were given.
	Cause *Curve

	// Status, FirstSeen and LastSeen come from the findings file:
	// new, ongoing, resolved or regressed. Empty without one.
	Status    string
	FirstSeen string
	LastSeen  string
}

// Title is how reports name the finding: "assert · acknowledged write
// lost" or "liveness · server".
func (f *Finding) Title() string {
	if f.Class == "liveness" {
		return "liveness · " + f.Node
	}
	if f.Head == "" {
		return f.Class
	}
	return f.Class + " · " + f.Head
}

// Repro is the command that shows the finding: the shrunk schedule's replay
// when there is one, else the first seed's, else the first pin's.
func (f *Finding) Repro() string {
	if f.Shrunk != nil && f.Shrunk.Repro != "" {
		return f.Shrunk.Repro
	}
	if len(f.Seeds) == 0 && len(f.Pins) > 0 {
		return f.Pins[0].Repro
	}
	return f.First.Repro
}

// size is how many runs fail this way: seeds (or an exploration's runs)
// and pins.
func (f *Finding) size() int {
	if len(f.Runs) > 0 {
		return len(f.Runs) + len(f.Pins)
	}
	return len(f.Seeds) + len(f.Pins)
}

// SeedsText lists the finding's failing seeds compactly, or for an
// exploration its runs and their seeds: "runs 3 5 (seed 1)".
func (f *Finding) SeedsText() string {
	if len(f.Runs) == 0 {
		return textfmt.SeedList(f.Seeds, seedItemsMax, "seeds in all")
	}
	runs := make([]uint64, len(f.Runs))
	for i, r := range f.Runs {
		runs[i] = uint64(r)
	}
	seeds := append([]uint64{}, f.Seeds...)
	sort.Slice(seeds, func(i, j int) bool { return seeds[i] < seeds[j] })
	what := "seeds"
	if len(seeds) == 1 {
		what = "seed"
	}
	which := "runs"
	if len(runs) == 1 {
		which = "run"
	}
	return fmt.Sprintf("%s %s (%s %s)", which, textfmt.SeedList(runs, seedItemsMax, "runs in all"), what, textfmt.SeedList(seeds, seedItemsMax, "seeds in all"))
}

// PinFailed says whether a pin's replay is a problem: it failed, or it was
// nondeterministic.
func PinFailed(p record.Pin) bool { return p.Status == "fail" || p.Status == "nondeterministic" }

func (f *Finding) key() string { return f.Class + "\x00" + f.Head + "\x00" + f.Node }

var (
	instancePrefix = regexp.MustCompile(`^[A-Za-z0-9_.-]+#[0-9]+: `)
	instanceNum    = regexp.MustCompile(`#[0-9]+\b`)
	number         = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
)

// Group returns the class, message head and node a failure groups by, the
// rule sf-shrink uses for "fails the same way" (lib/shrink.FailureOf) worked
// out from a record: the property's message when the record has one, else
// the message without the failing instance in front; cut at its first ": ";
// with instance numbers dropped and other numbers masked as N. Only a
// liveness failure keeps its node, without the instance.
func Group(class, message, property, node string) (head, nodeName string) {
	msg := instancePrefix.ReplaceAllString(message, "")
	if property != "" {
		msg = property
	}
	h, _, _ := strings.Cut(msg, ": ")
	head = number.ReplaceAllString(instanceNum.ReplaceAllString(h, ""), "N")
	if class == "liveness" {
		return "", instanceNum.ReplaceAllString(node, "")
	}
	return head, ""
}

// Build reads every input and returns the sweeps they hold, in the order
// their first stream appears. Shards of one sweep (the same seed set and
// shard count) are merged; streams without a shard are sweeps of their own;
// sf-shrink records join the sweep of their world, or a sweep of their own.
func Build(inputs []Input) ([]*Sweep, error) {
	var streams []*stream
	for _, in := range inputs {
		ss, err := readStreams(in)
		if err != nil {
			return nil, err
		}
		if len(ss) == 0 {
			return nil, fmt.Errorf("%s: no records: pipe sf-run (with -json, or into a pipe) or sf-shrink -json into sf-report, or name their record files", in.Name)
		}
		streams = append(streams, ss...)
	}
	var sweeps []*Sweep
	groups := map[string][]*stream{}
	var order []string
	var shrinks []*stream
	for _, st := range streams {
		switch {
		case st.start.Tool == "sf-shrink":
			shrinks = append(shrinks, st)
		case st.start.Tool != "sf-run":
			continue // another tool's stream: not a sweep
		case st.n == 0:
			key := fmt.Sprintf("single\x00%d", len(order))
			groups[key] = []*stream{st}
			order = append(order, key)
		default:
			key := fmt.Sprintf("shards\x00%s\x00%d", st.start.Seeds, st.n)
			if groups[key] == nil {
				order = append(order, key)
			}
			groups[key] = append(groups[key], st)
		}
	}
	for _, key := range order {
		sw, err := merge(groups[key])
		if err != nil {
			return nil, err
		}
		sweeps = append(sweeps, sw)
	}
	sweeps = append(sweeps, attachShrinks(sweeps, shrinks)...)
	sweeps = append(sweeps, attachCauses(sweeps, shrinks)...)
	if len(sweeps) == 0 {
		return nil, fmt.Errorf("no sf-run or sf-shrink records in the input")
	}
	return sweeps, nil
}

// merge makes one sweep of a stream, or of the shards of one sweep.
func merge(ss []*stream) (*Sweep, error) {
	sw, err := newSweep(ss)
	if err != nil {
		return nil, err
	}
	// Shards in K order, so the merged sweep does not depend on the order
	// the files were named in.
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].k < ss[j].k })
	seeds, props, sites, buggify := sw.summaries(ss)
	groups := map[string]*Finding{}
	sw.countSeeds(seeds, groups)
	if sw.Explore != nil {
		// The stream holds records of the failing runs only; the summary
		// counts them all. An exploration is one stream, never shards.
		sum := ss[0].summary
		sw.Ran, sw.Passed, sw.Horizon = sum.Seeds, sum.Passed, sum.Horizon
	}
	sw.addPins(ss, groups)
	sortFindings(sw.Findings)
	sw.Properties = propertyRows(props)
	for _, p := range sw.Properties {
		if p.Verdict != "" {
			sw.PropertyFailures++
		}
	}
	if buggify {
		sw.Buggify = siteRows(sites)
	}
	return sw, nil
}

// newSweep is the sweep of the streams ss, its shards, before their
// records are read: an error when they are not shards of one sweep.
func newSweep(ss []*stream) (*Sweep, error) {
	first := ss[0]
	sw := &Sweep{World: first.start.Config, Profile: first.start.Profile, Set: first.start.Set,
		SeedsText: first.start.Seeds, Shards: first.n, ran: map[uint64]bool{}, pinsRan: map[string]bool{},
		ExploreBudget: first.start.ExploreRuns}
	byK := map[int]*stream{}
	for _, st := range ss {
		if st.start.Config != sw.World || st.start.Profile != sw.Profile || strings.Join(st.start.Set, "\x00") != strings.Join(sw.Set, "\x00") {
			return nil, fmt.Errorf("%s: shard %s is of world %s, and shard %s (%s) of %s: shards of one sweep run one world",
				st.source, st.start.Shard, describeWorld(st.start), first.start.Shard, first.source, describeWorld(first.start))
		}
		if st.n > 0 {
			if prev := byK[st.k]; prev != nil {
				return nil, fmt.Errorf("%s: shard %s was given twice, first at %s", st.source, st.start.Shard, prev.source)
			}
			byK[st.k] = st
		}
		sw.Sources = append(sw.Sources, st.source)
	}
	for k := 1; k <= sw.Shards; k++ {
		if byK[k] == nil {
			sw.Missing = append(sw.Missing, k)
		}
	}
	return sw, nil
}

// summaries gathers the streams' seed records, in seed order, and what
// their summaries say: properties, buggify sites (and whether the sweep had
// buggify on), interruptions, an exploration's counts.
func (sw *Sweep) summaries(ss []*stream) (seeds []record.Seed, props map[string]*record.Property, sites map[string]*record.BuggifySite, buggify bool) {
	props, sites = map[string]*record.Property{}, map[string]*record.BuggifySite{}
	for _, st := range ss {
		seeds = append(seeds, st.seeds...)
		if st.summary == nil {
			sw.Unfinished = append(sw.Unfinished, st.source)
		} else {
			sum := st.summary
			if sum.Pins > len(st.pins) {
				sw.PinsUnseen = append(sw.PinsUnseen, fmt.Sprintf("the stream starting at %s counts %s in its summary and holds %d pin records",
					st.source, textfmt.Plural(sum.Pins, "pinned regression"), len(st.pins)))
			}
			sw.Interrupted = sw.Interrupted || sum.Interrupted
			if sum.Explore != nil {
				sw.Explore = sum.Explore
			}
			sw.RealNs = max(sw.RealNs, sum.RealNs)
			for _, p := range sum.Properties {
				mergeProperty(props, p)
			}
			if sum.BuggifySites != nil {
				buggify = true
			}
			for _, b := range sum.BuggifySites {
				mergeSite(sites, b)
			}
		}
	}
	sort.SliceStable(seeds, func(i, j int) bool {
		if seeds[i].ExploreRun != seeds[j].ExploreRun {
			return seeds[i].ExploreRun < seeds[j].ExploreRun
		}
		return seeds[i].Seed < seeds[j].Seed
	})
	return seeds, props, sites, buggify
}

// countSeeds counts the seeds' outcomes and groups the failing ones into
// findings.
func (sw *Sweep) countSeeds(seeds []record.Seed, groups map[string]*Finding) {
	// An exploration has several failing runs of one seed; the seed is
	// listed once.
	failed := map[uint64]bool{}
	addFailed := func(seed uint64) {
		if !failed[seed] {
			failed[seed] = true
			sw.FailedSeeds = append(sw.FailedSeeds, seed)
		}
	}
	for _, s := range seeds {
		sw.ran[s.Seed] = true
		sw.Ran++
		switch {
		case (s.Status == "pass" || s.Status == "horizon") && s.HistoryCheck == "unknown":
			// Its history check gave up: not a pass (sf-run counts it apart).
		case s.Status == "pass":
			sw.Passed++
		case s.Status == "horizon":
			sw.Passed++
			sw.Horizon++
		case s.Status == "nondeterministic":
			sw.Nondeterministic++
			sw.Failed++
			addFailed(s.Seed)
		default:
			sw.Failed++
			addFailed(s.Seed)
		}
		if s.HistoryCheck == "unknown" {
			sw.GaveUpSeeds = append(sw.GaveUpSeeds, s.Seed)
			if s.ExploreRun > 0 {
				sw.GaveUpRuns = append(sw.GaveUpRuns, s.ExploreRun)
			}
		}
		if s.HostStall {
			sw.HostStallSeeds = append(sw.HostStallSeeds, s.Seed)
			if s.ExploreRun > 0 {
				sw.HostStallRuns = append(sw.HostStallRuns, s.ExploreRun)
			}
		}
		if s.Status != "fail" && s.Status != "nondeterministic" {
			continue
		}
		f := sw.group(groups, s.Status, s.Class, s.Message, s.Property, s.Node)
		if len(f.Seeds) == 0 {
			f.First = s
		}
		if sw.ExploreBudget > 0 {
			// An exploration fails one seed in several runs: each run
			// counts, the seed is listed once.
			f.Runs = append(f.Runs, s.ExploreRun)
			if !slices.Contains(f.Seeds, s.Seed) {
				f.Seeds = append(f.Seeds, s.Seed)
			}
		} else {
			f.Seeds = append(f.Seeds, s.Seed)
		}
		if f.Timeline == "" && s.Artifacts != nil {
			f.Timeline = s.Artifacts.Timeline
		}
	}
}

// addPins adds the pins' replays, after the seeds, so that a finding's
// first record is a seed's whenever a seed fails that way.
func (sw *Sweep) addPins(ss []*stream, groups map[string]*Finding) {
	for _, st := range ss {
		for _, p := range st.pins {
			if sw.pinsRan[p.Pin] {
				continue
			}
			sw.pinsRan[p.Pin] = true
			sw.Pins = append(sw.Pins, p)
			if !PinFailed(p) {
				continue
			}
			sw.PinsFailed++
			f := sw.group(groups, p.Status, p.Class, p.Message, p.Property, p.Node)
			f.Pins = append(f.Pins, p)
			if f.Timeline == "" && p.Artifacts != nil {
				f.Timeline = p.Artifacts.Timeline
			}
		}
	}
}

// group returns the sweep's finding of a failing run, by the rule of
// Group, adding a new one to the sweep when no run failed that way before.
func (sw *Sweep) group(groups map[string]*Finding, status, class, message, property, node string) *Finding {
	if status == "nondeterministic" && class == "" {
		class = "nondeterministic"
	}
	head, nodeName := Group(class, message, property, node)
	f := &Finding{Class: class, Head: head, Node: nodeName}
	if g := groups[f.key()]; g != nil {
		return g
	}
	groups[f.key()] = f
	sw.Findings = append(sw.Findings, f)
	return f
}

// sortFindings puts the finding with the most failing runs (seeds and
// pins) first, then by title.
func sortFindings(fs []*Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].size() != fs[j].size() {
			return fs[i].size() > fs[j].size()
		}
		return fs[i].Title() < fs[j].Title()
	})
}

func describeWorld(s record.Start) string {
	w := s.Config
	if s.Profile != "" {
		w += " (profile " + s.Profile + ")"
	}
	if len(s.Set) > 0 {
		w += " with -set " + strings.Join(s.Set, " -set ")
	}
	return w
}

// mergeProperty adds one shard's row to the merged table, as sf-run adds up
// seeds: counts add, and the margin is the smallest of an always and the
// largest of a sometimes.
func mergeProperty(rows map[string]*record.Property, p record.Property) {
	key := p.Kind + "\x00" + p.Message
	row := rows[key]
	if row == nil {
		row = &record.Property{Kind: p.Kind, Message: p.Message, Location: p.Location}
		rows[key] = row
	}
	row.SeedsReached += p.SeedsReached
	row.SeedsTrue += p.SeedsTrue
	if row.Location == "" {
		row.Location = p.Location
	}
	if p.Margin != nil {
		switch {
		case row.Margin == nil:
			v := *p.Margin
			row.Margin = &v
		case p.Kind == "always" && p.Margin.Less(*row.Margin), p.Kind == "sometimes" && row.Margin.Less(*p.Margin):
			*row.Margin = *p.Margin
		}
	}
}

// propertyRows works out each row's verdict from the merged counts and sorts
// the table as sf-run does.
func propertyRows(rows map[string]*record.Property) []record.Property {
	return record.PropertyTable(rows)
}

func mergeSite(rows map[string]*record.BuggifySite, b record.BuggifySite) {
	row := rows[b.Site]
	if row == nil {
		row = &record.BuggifySite{Site: b.Site, Location: b.Location}
		rows[b.Site] = row
	}
	row.SeedsReached += b.SeedsReached
	row.SeedsEnabled += b.SeedsEnabled
	row.SeedsFired += b.SeedsFired
	row.Fired += b.Fired
}

func siteRows(rows map[string]*record.BuggifySite) []record.BuggifySite {
	return record.BuggifyTable(rows)
}

// attachShrinks gives each finding the shortest shrunk schedule among its
// seeds. Shrink records whose seed belongs to no sweep given make sweeps of
// their own, one per world in the order first seen, with a finding per way
// of failing, which it returns.
func attachShrinks(sweeps []*Sweep, shrinks []*stream) []*Sweep {
	var orphans []*Sweep
	orphanOf := func(sh *record.Shrink) *Sweep {
		if sw := worldSweep(orphans, sh); sw != nil {
			return sw
		}
		sw := &Sweep{World: sh.Config, Profile: sh.Profile, Set: sh.Set, ShrinkOnly: true, ran: map[uint64]bool{}}
		orphans = append(orphans, sw)
		return sw
	}
	for _, st := range shrinks {
		for i := range st.shrinks {
			sh := &st.shrinks[i]
			if sh.Error != "" {
				// A seed sf-shrink could not shrink is shown with its reason,
				// in the sweep of its world when one was given.
				msg := fmt.Sprintf("seed %d: %s", sh.Seed, sh.Error)
				sw := worldSweep(sweeps, sh)
				if sw == nil {
					sw = orphanOf(sh)
				}
				sw.ShrinkErrors = append(sw.ShrinkErrors, msg)
				continue
			}
			if f := findingOf(sweeps, sh); f != nil {
				if shorter(sh, f.Shrunk) {
					f.Shrunk = sh
				}
				continue
			}
			orphan := orphanOf(sh)
			head, node := Group(sh.Class, sh.Message, "", sh.Node)
			f := &Finding{Class: sh.Class, Head: head, Node: node}
			var g *Finding
			for _, x := range orphan.Findings {
				if x.key() == f.key() {
					g = x
				}
			}
			if g == nil {
				g = f
				g.First = record.Seed{Seed: sh.Seed, Config: sh.Config, Status: "fail", Class: sh.Class, Message: sh.Message,
					Node: sh.Node, AtNs: sh.DurationNs, Repro: sh.Repro}
				orphan.Findings = append(orphan.Findings, g)
			}
			g.Seeds = append(g.Seeds, sh.Seed)
			if shorter(sh, g.Shrunk) {
				g.Shrunk = sh
			}
		}
	}
	for _, o := range orphans {
		for _, f := range o.Findings {
			sort.Slice(f.Seeds, func(i, j int) bool { return f.Seeds[i] < f.Seeds[j] })
		}
		sortFindings(o.Findings)
	}
	return orphans
}

// worldSweep is the sweep of sh's world, or nil.
func worldSweep(sweeps []*Sweep, sh *record.Shrink) *Sweep {
	for _, sw := range sweeps {
		if sw.World == sh.Config && sw.Profile == sh.Profile && strings.Join(sw.Set, "\x00") == strings.Join(sh.Set, "\x00") {
			return sw
		}
	}
	return nil
}

// findingOf is the finding that holds sh's seed in a sweep of sh's world:
// in an exploration, for the shrink of an explore run, the one that holds
// that run; in a plain sweep otherwise.
func findingOf(sweeps []*Sweep, sh *record.Shrink) *Finding {
	for _, sw := range sweeps {
		if sw.World != sh.Config || sw.Profile != sh.Profile || strings.Join(sw.Set, "\x00") != strings.Join(sh.Set, "\x00") {
			continue
		}
		if (sh.ExploreRun > 0) != (sw.ExploreBudget > 0) {
			continue
		}
		for _, f := range sw.Findings {
			if sh.ExploreRun > 0 && !slices.Contains(f.Runs, sh.ExploreRun) {
				continue
			}
			if slices.Contains(f.Seeds, sh.Seed) {
				return f
			}
		}
	}
	return nil
}

// shorter says whether a is a shorter shrunk schedule than b: fewer faults,
// then an earlier failure, then a smaller seed.
func shorter(a, b *record.Shrink) bool {
	switch {
	case b == nil:
		return true
	case a.FaultsAfter != b.FaultsAfter:
		return a.FaultsAfter < b.FaultsAfter
	case a.DurationNs != b.DurationNs:
		return a.DurationNs < b.DurationNs
	}
	return a.Seed < b.Seed
}
