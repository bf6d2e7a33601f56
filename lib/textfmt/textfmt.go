// Package textfmt writes what several tools print alike, one way: a count
// with its noun ("3 seeds"), a list of seeds ("1-11 13 15-39"), a path as
// the user would type it, and the name of an input read from standard
// input. Each tool used to carry its own copy, and the copies had drifted
// apart (one listed seeds one by one, another as ranges).
package textfmt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Plural is n with its noun, in the plural unless n is 1: "1 seed", "3
// seeds", "2 branches", "4 properties", "0 ways of failing". The noun's
// last word takes the plural, or in a phrase with "of" the word before it.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	head, tail := noun, ""
	if i := strings.Index(noun, " of "); i >= 0 {
		head, tail = noun[:i], noun[i:]
	}
	return fmt.Sprintf("%d %s%s", n, plural(head), tail)
}

// plural is an English noun in the plural, by the regular rules.
func plural(noun string) string {
	switch {
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

// Ranges writes sorted numbers compactly, each run of consecutive ones as
// a range: 1 2 3 5 7 8 gives "1-3", "5", "7-8".
func Ranges(ns []uint64) []string {
	var items []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j > i {
			items = append(items, fmt.Sprintf("%d-%d", ns[i], ns[j]))
		} else {
			items = append(items, fmt.Sprint(ns[i]))
		}
		i = j + 1
	}
	return items
}

// SeedList writes sorted seeds (or runs) for people, as Ranges, separated
// by spaces: "1-11 13 15-39". Past max items the rest are counted, the
// count followed by all: SeedList(seeds, 2, "seeds in all") is "1-11 13
// ... (40 seeds in all)".
func SeedList(seeds []uint64, max int, all string) string {
	items := Ranges(seeds)
	if len(items) > max {
		return strings.Join(items[:max], " ") + fmt.Sprintf(" ... (%d %s)", len(seeds), all)
	}
	return strings.Join(items, " ")
}

// RelPath is p relative to base when it lies inside base, else p as it
// is: how a path is shown next to the folder it belongs to.
func RelPath(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return r
	}
	return p
}

// Display is a path as the user would type it: an absolute path inside
// the working directory relative to it, any other path (relative, "-") as
// it is.
func Display(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	if wd, err := os.Getwd(); err == nil {
		return RelPath(wd, p)
	}
	return p
}

// InputName is how messages name the input at path: "<stdin>" for "-",
// "<input>" for none.
func InputName(path string) string {
	switch path {
	case "":
		return "<input>"
	case "-":
		return "<stdin>"
	}
	return path
}
