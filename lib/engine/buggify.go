package engine

import "github.com/sf-dst/sf/lib/rng"

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
// hits it lists.
func (in *instance) buggify(site string, prob float64) bool {
	r := in.run
	st := r.sites[site]
	if st == nil {
		st = &siteState{hits: map[int]int64{}, fire: map[int]*rng.Stream{}}
		st.enabled = r.buggifyOn() && rng.New(r.seed, "buggify-enable", rng.Key(site)).Chance(BuggifyEnableProb)
		r.sites[site] = st
		if r.buggifyOn() {
			what := "disabled"
			if st.enabled {
				what = "enabled"
			}
			r.tracef("buggify %q first reached by %s: %s for this run", site, in.name, what)
		}
	}
	idx := in.node.idx
	st.hits[idx]++
	hit := st.hits[idx]
	if !r.buggifyOn() {
		return false
	}
	var fires bool
	if r.opts.Faults != nil {
		fires = r.scheduledHits[siteKey{idx, site, hit}]
	} else {
		s := st.fire[idx]
		if s == nil {
			s = rng.New(r.seedOf(bsBuggify), "buggify", rng.Key(site), rng.Key(in.node.spec.Name))
			st.fire[idx] = s
		}
		draw := s.Float64() // one draw per hit, so hit k always gets the k-th draw
		fires = st.enabled && draw < prob
	}
	if fires && r.quiet() {
		r.tracef("quiet: buggify %q on %s at hit #%d suppressed", site, in.name, hit)
		fires = false
	}
	if !fires {
		return false
	}
	st.fired++
	f := Fault{At: Dur(r.now), Kind: KindBuggify, Node: in.node.spec.Name, Site: site, Op: hit}
	r.res.Faults = append(r.res.Faults, f)
	r.tracef("fault buggify %q fires on %s at hit #%d", site, in.name, hit)
	return true
}

// quiet reports whether faults are suppressed now: during a QuietFor, in the
// recovery phase, or before setup completes when the world waits for it.
func (r *run) quiet() bool {
	if r.now < r.quietUntil || r.recovering {
		return true
	}
	return r.spec.FaultsAfterSetup && !r.setupDone
}
