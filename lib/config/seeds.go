package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sf-dst/sf/lib/echo"
	"github.com/sf-dst/sf/lib/textfmt"
)

// MaxSeeds is the largest number of seeds a seed list may name, counting repeats. At about 100 runs a
// second per core, ten million seeds keep a 32-core machine busy for about an hour, and the list alone
// takes 80 MB; a larger sweep is split into shards.
const MaxSeeds = 10_000_000

// FormatSeeds writes seeds as a seed list that ParseSeeds reads back,
// each run of consecutive seeds as a range: "1-3,5".
func FormatSeeds(seeds []uint64) string { return strings.Join(textfmt.Ranges(seeds), ",") }

// span is an inclusive range of seeds.
type span struct{ lo, hi uint64 }

// ParseSeeds parses a seed list: comma-separated seeds and inclusive ranges, such as "7", "1-100" or
// "1-5,9,20-22". Seeds are integers from 0 to 2^64-1. Spaces around items are allowed. The result is in
// the order of the list with repeats removed, keeping the first. A list may name at most MaxSeeds seeds,
// counting repeats.
func ParseSeeds(s string) ([]uint64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty seed list")
	}
	var spans []span
	var total uint64
	for _, item := range strings.Split(s, ",") {
		sp, msg := parseSpan(strings.TrimSpace(item))
		if msg != "" {
			return nil, fmt.Errorf("seed list %s: %s", echo.Quote(s), msg)
		}
		if n := sp.hi - sp.lo; n >= MaxSeeds || total+n+1 > MaxSeeds {
			return nil, fmt.Errorf("seed list %s: more than %d seeds", echo.Quote(s), MaxSeeds)
		}
		total += sp.hi - sp.lo + 1
		spans = append(spans, sp)
	}
	seeds := make([]uint64, 0, total)
	if !overlapping(spans) {
		for _, sp := range spans {
			seeds = appendSpan(seeds, sp, nil)
		}
		return seeds, nil
	}
	seen := make(map[uint64]bool)
	for _, sp := range spans {
		seeds = appendSpan(seeds, sp, seen)
	}
	return seeds, nil
}

// appendSpan appends the seeds of sp, skipping and recording those in seen when seen is not nil. It stops
// at sp.hi without overflowing when sp.hi is the largest uint64.
func appendSpan(seeds []uint64, sp span, seen map[uint64]bool) []uint64 {
	for v := sp.lo; ; v++ {
		if seen == nil || !seen[v] {
			seeds = append(seeds, v)
			if seen != nil {
				seen[v] = true
			}
		}
		if v == sp.hi {
			return seeds
		}
	}
}

// overlapping reports whether any two spans share a seed.
func overlapping(spans []span) bool {
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b span) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	for i := 1; i < len(sorted); i++ {
		if sorted[i].lo <= sorted[i-1].hi {
			return true
		}
	}
	return false
}

// parseSpan parses one item of a seed list, a seed or a range lo-hi.
func parseSpan(item string) (span, string) {
	if item == "" {
		return span{}, "empty item"
	}
	if strings.HasPrefix(item, "-") {
		return span{}, fmt.Sprintf("%s is negative: seeds are 0 or more", echo.Quote(item))
	}
	los, his, isRange := strings.Cut(item, "-")
	lo, msg := parseSeed(strings.TrimSpace(los))
	if msg != "" {
		return span{}, msg
	}
	if !isRange {
		return span{lo, lo}, ""
	}
	his = strings.TrimSpace(his)
	switch {
	case his == "":
		return span{}, fmt.Sprintf("range %s has no end", echo.Quote(item))
	case strings.HasPrefix(his, "-"):
		return span{}, fmt.Sprintf("range %s has a negative end: seeds are 0 or more", echo.Quote(item))
	}
	hi, msg := parseSeed(his)
	if msg != "" {
		return span{}, msg
	}
	if lo > hi {
		return span{}, fmt.Sprintf("range %s is reversed: %d > %d", echo.Quote(item), lo, hi)
	}
	return span{lo, hi}, ""
}

// parseSeed parses one decimal seed.
func parseSeed(s string) (uint64, string) {
	v, err := strconv.ParseUint(s, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Sprintf("seed %s is larger than %d", s, uint64(1<<64-1))
	case err != nil:
		return 0, fmt.Sprintf("%s is not a seed: want a number like 7 or a range like 1-100", echo.Quote(s))
	}
	return v, ""
}
