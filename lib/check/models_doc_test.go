package check

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestModelListIsTheOnlyOne: the list of models in ModelInfos is the one the
// checker implements, and the manuals that list models (docs/checkers.md,
// docs/world.md, docs/sf-check.md and sf-check's -h) list the same models in
// the same order.
func TestModelListIsTheOnlyOne(t *testing.T) {
	var names []string
	for _, m := range ModelInfos() {
		names = append(names, m.Name)
	}
	implemented := []string{ListAppend}
	for name := range linModels {
		implemented = append(implemented, name)
	}
	if got, want := Models(), slices.Sorted(slices.Values(implemented)); !slices.Equal(got, want) {
		t.Errorf("ModelInfos lists %v, the checker implements %v", got, want)
	}

	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("..", "..", rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// docs/checkers.md: the rows of the models table, "| `kv` | ...".
	checkers := read("docs/checkers.md")
	start := strings.Index(checkers, "\n| model |")
	if start < 0 {
		t.Fatal("docs/checkers.md has no table of models (a header starting | model |)")
	}
	table, _, _ := strings.Cut(checkers[start+1:], "\n\n")
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|").FindAllStringSubmatch(table, -1) {
		if !slices.Contains(rows, m[1]) {
			rows = append(rows, m[1])
		}
	}
	if !slices.Equal(rows, names) {
		t.Errorf("docs/checkers.md's table lists %v, want %v", rows, names)
	}
	// cmd/sf-check/doc.go: "//\tkv           description", the -h manual.
	var manual []string
	for _, m := range regexp.MustCompile(`(?m)^//\t([a-z-]+) +(.+)$`).FindAllStringSubmatch(read("cmd/sf-check/doc.go"), -1) {
		if IsModel(m[1]) || strings.Contains(m[2], ": ") {
			manual = append(manual, m[1])
			if i := slices.Index(names, m[1]); i >= 0 && modelInfos[i].Description != m[2] {
				t.Errorf("sf-check's manual says %s is %q; ModelInfos says %q", m[1], m[2], modelInfos[i].Description)
			}
		}
	}
	if !slices.Equal(manual, names) {
		t.Errorf("sf-check's manual lists %v, want %v", manual, names)
	}
	// The phrases in docs/world.md and docs/sf-check.md: "`kv` ..., `cas`, ... or `list-append`".
	for _, doc := range []string{"docs/world.md", "docs/sf-check.md"} {
		text := strings.Join(strings.Fields(read(doc)), " ")
		var quoted []string
		for _, n := range names {
			quoted = append(quoted, "`"+n+"`")
		}
		phrase := strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
		phrase = strings.Replace(phrase, "`kv`", "`kv` (the default)", 1)
		if doc == "docs/sf-check.md" {
			phrase = strings.Replace(phrase, "`kv` (the default)", "`kv`", 1)
		}
		if !strings.Contains(text, phrase) {
			t.Errorf("%s does not list the models as %q", doc, phrase)
		}
	}
}
