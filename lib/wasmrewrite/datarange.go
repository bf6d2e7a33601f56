package wasmrewrite

import "sort"

// DataRange returns the longest run [lo, hi) of linear-memory addresses that
// the module's active data segments write whole when it is instantiated, so
// that a reused memory need not be cleared there first: every byte of it is
// written before the guest runs. It reports false, and nothing may be
// skipped, for a module with passive segments, an offset that is not a
// constant, no data or anything it cannot parse.
func DataRange(bin []byte) (lo, hi uint64, ok bool) {
	secs, err := splitSections(bin)
	if err != nil {
		return 0, 0, false
	}
	for _, s := range secs {
		if s.id != 11 {
			continue
		}
		segs, err := parseActiveSegments(s.body)
		if err != nil {
			return 0, 0, false
		}
		type span struct{ lo, hi uint64 }
		spans := make([]span, 0, len(segs))
		for _, g := range segs {
			if len(g.data) > 0 {
				spans = append(spans, span{uint64(g.offset), uint64(g.offset) + uint64(len(g.data))})
			}
		}
		// The union of the spans, run by run: sort by start, then extend a
		// run while the next span touches or overlaps it.
		sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
		var best, cur span
		for i, sp := range spans {
			if i == 0 || sp.lo > cur.hi {
				cur = sp
			} else {
				cur.hi = max(cur.hi, sp.hi)
			}
			if cur.hi-cur.lo > best.hi-best.lo {
				best = cur
			}
		}
		if best.hi == best.lo {
			return 0, 0, false
		}
		return best.lo, best.hi, true
	}
	return 0, 0, false
}
