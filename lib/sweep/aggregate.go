package sweep

// This file sums the properties and buggify sites of every seed into the
// sweep's coverage tables.

import (
	"sort"
	"strings"

	"github.com/sf-dst/sf/lib/catalog"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/record"
)

// aggregate sums the properties seen in each seed into the sweep's table.
type aggregate struct {
	rows_ map[string]*record.Property
	sites map[string]*record.BuggifySite
}

func newAggregate() *aggregate {
	return &aggregate{rows_: map[string]*record.Property{}, sites: map[string]*record.BuggifySite{}}
}

func (a *aggregate) addSites(sites []engine.SiteResult) {
	for _, s := range sites {
		row := a.sites[s.Site]
		if row == nil {
			row = &record.BuggifySite{Site: s.Site}
			a.sites[s.Site] = row
		}
		if s.Reached {
			row.SeedsReached++
		}
		if s.Enabled {
			row.SeedsEnabled++
		}
		if s.Fired > 0 {
			row.SeedsFired++
		}
		row.Fired += s.Fired
	}
}

func (a *aggregate) siteRows() []record.BuggifySite {
	out := make([]record.BuggifySite, 0, len(a.sites))
	for _, r := range a.sites {
		switch {
		case r.SeedsReached == 0:
			r.Verdict = "never reached"
		case r.Fired == 0:
			r.Verdict = "never fired"
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Site < out[j].Site })
	return out
}

func (a *aggregate) add(props []engine.Property) {
	for _, p := range props {
		key := p.Kind + "\x00" + p.Message
		row := a.rows_[key]
		if row == nil {
			row = &record.Property{Kind: p.Kind, Message: p.Message}
			a.rows_[key] = row
		}
		if p.Reached {
			row.SeedsReached++
		}
		if p.True {
			row.SeedsTrue++
		}
		if p.Margin != nil {
			switch {
			case row.Margin == nil:
				v := *p.Margin
				row.Margin = &v
			case p.Kind == "always" && *p.Margin < *row.Margin, p.Kind == "sometimes" && *p.Margin > *row.Margin:
				*row.Margin = *p.Margin
			}
		}
	}
}

var kindOrder = map[string]int{"always": 0, "alwaysOrUnreachable": 1, "sometimes": 2, "reachable": 3, "unreachable": 4, "eventually": 5}

// catalog adds every property and buggify site found in the source, so
// that those no seed reaches still get a row.
func (a *aggregate) catalog(c *catalog.Catalog) {
	if c == nil {
		return
	}
	for _, p := range c.Properties {
		key := p.Kind + "\x00" + p.Message
		if a.rows_[key] == nil {
			a.rows_[key] = &record.Property{Kind: p.Kind, Message: p.Message, Location: strings.Join(c.Locations(p.Kind, p.Message), ", ")}
		}
	}
	for _, s := range c.Sites {
		if a.sites[s.Name] == nil {
			a.sites[s.Name] = &record.BuggifySite{Site: s.Name, Location: strings.Join(c.SiteLocations(s.Name), ", ")}
		}
	}
}

// mustBeReached are the kinds a sweep fails on when no seed reached them.
var mustBeReached = map[string]bool{"always": true, "sometimes": true, "reachable": true, "eventually": true}

func (a *aggregate) rows() []record.Property {
	out := make([]record.Property, 0, len(a.rows_))
	for _, r := range a.rows_ {
		switch {
		case r.SeedsReached == 0 && mustBeReached[r.Kind]:
			r.Verdict = "never reached"
		case r.Kind == "sometimes" && r.SeedsTrue == 0:
			r.Verdict = "never true"
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if kindOrder[out[i].Kind] != kindOrder[out[j].Kind] {
			return kindOrder[out[i].Kind] < kindOrder[out[j].Kind]
		}
		return out[i].Message < out[j].Message
	})
	return out
}
