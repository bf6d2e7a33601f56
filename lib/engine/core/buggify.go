package core

import (
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/rng"
)

// BuggifyEnableProb is the chance that a site is enabled for a run, decided
// the first time any node reaches it.
const BuggifyEnableProb = 0.25

// SiteResult is what one run saw of one buggify site.
type SiteResult struct {
	Site    string `json:"site"`
	Reached bool   `json:"reached"`
	Enabled bool   `json:"enabled"`
	Fired   int    `json:"fired"`
}

type siteState struct {
	name    string // the site, as the sites map's key: a hit reads it from the guest without making a string
	enabled bool
	fired   int
	hits    map[int]int64 // per node index: hits so far
	fire    map[int]*rng.Stream
}

type siteKey struct {
	node int
	site string
	hit  int64
}

// buggify decides whether a site fires at this hit. The enable decision is
// keyed by the seed and the site, the firing decisions by the seed, the site
// and the node, so adding a site, or reaching another one more often, never
// moves an existing site's firings. A replayed schedule fires exactly the
// hits it lists. site is read only during the call (it may be a view of the
// guest's memory); Buggify returns the site as a string for the caller's
// use, the same string at every hit.
func (in *Instance) Buggify(siteBytes []byte, prob float64) (fired bool, site string) {
	r := in.Run
	st := r.sites[string(siteBytes)]
	if st == nil {
		site = string(siteBytes)
		st = &siteState{name: site, hits: map[int]int64{}, fire: map[int]*rng.Stream{}}
		st.enabled = r.buggifyOn() && rng.New(r.Seed, "buggify-enable", rng.Key(site)).Chance(BuggifyEnableProb)
		r.sites[site] = st
		if r.buggifyOn() {
			what := "disabled"
			if st.enabled {
				what = "enabled"
			}
			r.Tracef("buggify %q first reached by %s: %s for this run", site, in.Name, what)
		}
	}
	site = st.name
	idx := in.Node.Idx
	st.hits[idx]++
	hit := st.hits[idx]
	if !r.buggifyOn() {
		return false, site
	}
	var fires bool
	if r.Opts.Faults != nil {
		fires = r.scheduledHits[siteKey{idx, site, hit}]
	} else {
		s := st.fire[idx]
		if s == nil {
			s = rng.New(r.SeedOf(bsBuggify), "buggify", rng.Key(site), rng.Key(in.Node.Spec.Name))
			st.fire[idx] = s
		}
		draw := s.Float64() // one draw per hit, so hit k always gets the k-th draw
		fires = st.enabled && draw < prob
	}
	if fires && r.Quiet() {
		r.Tracef("quiet: buggify %q on %s at hit #%d suppressed", site, in.Name, hit)
		fires = false
	}
	if !fires {
		return false, site
	}
	st.fired++
	f := Fault{At: Dur(r.Now), Kind: faults.KindBuggify, Node: in.Node.Spec.Name, Site: site, Op: hit}
	r.res.Faults = append(r.res.Faults, f)
	r.Tracef("fault buggify %q fires on %s at hit #%d", site, in.Name, hit)
	return true, site
}

// quiet reports whether faults are suppressed now: during a QuietFor, in the
// recovery phase, or before setup completes when the world waits for it.
func (r *Run) Quiet() bool {
	if r.Now < r.quietUntil || r.recovering {
		return true
	}
	return r.Spec.FaultsAfterSetup && !r.setupDone
}

// QuietFor is sim.QuietFor: from in, no fault fires for d, and the network
// heals now.
func (r *Run) QuietFor(in *Instance, d int64) {
	if until := r.Now + d; d > 0 && until > r.quietUntil {
		r.quietUntil = until
		r.HealNetwork()
		r.Tracef("quiet: %s suppresses faults until %s", in.Name, fmtTime(until))
	}
}

// SetupComplete is sim.SetupComplete (or the Antithesis SDK's): who says who
// called it. Faults held back for the setup may fire from now on.
func (r *Run) SetupComplete(who string) {
	if !r.setupDone {
		r.setupDone = true
		r.Tracef("setup complete (%s)", who)
	}
}

// Budget answers sim.Budget(n): n, or Options.Budget when that is set and
// smaller. It also remembers the largest n asked for, which tells shrinking
// whether a cap is worth trying.
func (r *Run) Budget(in *Instance, n int64) int64 {
	if n > int64(r.res.BudgetAsked) {
		r.res.BudgetAsked = int(n)
	}
	if limit := int64(r.Opts.Budget); limit > 0 && n > limit {
		r.Tracef("%s: sim.Budget capped at %d of %d operations", in.Name, limit, n)
		return limit
	}
	return n
}
