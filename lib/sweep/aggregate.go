package sweep

// This file sums the properties and buggify sites of every seed into the
// sweep's coverage tables.

import (
	"strings"

	"github.com/sf-dst/sf/lib/catalog"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/faults"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/runner"
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

func (a *aggregate) siteRows() []record.BuggifySite { return record.BuggifyTable(a.sites) }

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
			case p.Kind == "always" && p.Margin.Less(*row.Margin), p.Kind == "sometimes" && row.Margin.Less(*p.Margin):
				*row.Margin = *p.Margin
			}
		}
	}
}

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

func (a *aggregate) rows() []record.Property { return record.PropertyTable(a.rows_) }

// Tables are the property and buggify tables of a summary, summed over runs:
// a sweep's over its seeds, an exploration's (sf-run -explore) over its runs.
type Tables struct {
	agg     *aggregate
	buggify bool
}

// NewTables starts the tables of runs of p's world, with a row for every
// property and buggify site found in its source.
func NewTables(p *runner.Prepared) *Tables {
	t := &Tables{agg: newAggregate(), buggify: p.Spec.Kinds.Rate(faults.KindBuggify) > 0}
	t.agg.catalog(p.Catalog)
	return t
}

// Add sums one finished run into the tables.
func (t *Tables) Add(r *engine.Result) {
	t.agg.add(r.Properties)
	t.agg.addSites(r.Buggify)
}

// Fill sets the summary's property table, its buggify table when the world
// enables buggify, and its count of properties that were never reached or
// never true.
func (t *Tables) Fill(sum *record.Summary) {
	sum.Properties = t.agg.rows()
	if t.buggify {
		sum.BuggifySites = t.agg.siteRows()
	}
	sum.PropertyFailures = 0
	for _, p := range sum.Properties {
		if p.Verdict != "" {
			sum.PropertyFailures++
		}
	}
}
