package record

import "sort"

// propertyKindOrder is the order of property kinds in a table.
var propertyKindOrder = map[string]int{"always": 0, "alwaysOrUnreachable": 1, "sometimes": 2, "reachable": 3, "unreachable": 4, "eventually": 5}

// mustBeReached are the property kinds a sweep fails on when no seed
// reached them.
var mustBeReached = map[string]bool{"always": true, "sometimes": true, "reachable": true, "eventually": true}

// PropertyTable judges each row's verdict from its counts ("never reached",
// "never true" or none) and returns the rows in table order: by kind, then
// message. sf-run and sf-report both build their tables with it, so a
// merged report says what the sweep said.
func PropertyTable(rows map[string]*Property) []Property {
	out := make([]Property, 0, len(rows))
	for _, r := range rows {
		r.Verdict = ""
		switch {
		case r.SeedsReached == 0 && mustBeReached[r.Kind]:
			r.Verdict = "never reached"
		case r.Kind == "sometimes" && r.SeedsTrue == 0:
			r.Verdict = "never true"
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if propertyKindOrder[out[i].Kind] != propertyKindOrder[out[j].Kind] {
			return propertyKindOrder[out[i].Kind] < propertyKindOrder[out[j].Kind]
		}
		return out[i].Message < out[j].Message
	})
	return out
}

// BuggifyTable judges each site's verdict ("never reached", "never fired"
// or none) and returns the rows sorted by site.
func BuggifyTable(rows map[string]*BuggifySite) []BuggifySite {
	out := make([]BuggifySite, 0, len(rows))
	for _, r := range rows {
		r.Verdict = ""
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
