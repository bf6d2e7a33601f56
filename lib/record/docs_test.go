package record

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestDocsNameEveryField: docs/records.md names, as `field`, every JSON
// field of every record kind in that kind's section, so a field added to a
// record and not to its page fails here. The fields of a nested object
// (artifacts, property rows, buggify rows, explore counts) are looked for
// in the first section whose kind holds it: pin's artifacts are "as in
// seed".
func TestDocsNameEveryField(t *testing.T) {
	data, err := os.ReadFile("../../docs/records.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Split(string(data), "\n")
	seen := map[reflect.Type]bool{}
	for _, tc := range []struct {
		// path are the headings that lead to the section: each is the
		// first heading so named after the one before.
		path []string
		rec  any
	}{
		{[]string{"## start"}, Start{}},
		{[]string{"## seed"}, Seed{}},
		{[]string{"## pin"}, Pin{}},
		{[]string{"## summary"}, Summary{}},
		{[]string{"## sf-shrink", "### shrink"}, Shrink{}},
		{[]string{"## sf-shrink", "### cause"}, Cause{}},
		{[]string{"## sf-shrink", "### summary"}, ShrinkSummary{}},
		{[]string{"## sf-mutate", "### mutant"}, Mutant{}},
		{[]string{"## sf-mutate", "### summary"}, MutateSummary{}},
	} {
		name := strings.Join(tc.path, " > ")
		text, ok := section(doc, tc.path)
		if !ok {
			t.Errorf("docs/records.md has no section %s", name)
			continue
		}
		fields := jsonFields(reflect.TypeOf(tc.rec), seen)
		if len(fields) == 0 {
			t.Errorf("%T has no JSON fields", tc.rec)
		}
		for _, f := range fields {
			if !strings.Contains(text, "`"+f+"`") {
				t.Errorf("docs/records.md, section %s, does not name the field `%s` of %T", name, f, tc.rec)
			}
		}
	}
}

// section is the text under the heading path leads to, up to the next
// heading of any level.
func section(doc []string, path []string) (string, bool) {
	i := 0
	for _, h := range path {
		for i < len(doc) && doc[i] != h {
			i++
		}
		if i == len(doc) {
			return "", false
		}
		i++
	}
	var b strings.Builder
	for ; i < len(doc) && !strings.HasPrefix(doc[i], "#"); i++ {
		b.WriteString(doc[i])
		b.WriteByte('\n')
	}
	return b.String(), true
}

// jsonFields lists the JSON names of t's fields and of the fields of the
// structs it holds (by pointer or slice too) that are not in seen yet.
func jsonFields(t reflect.Type, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return nil
	}
	seen[t] = true
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, name)
		out = append(out, jsonFields(f.Type, seen)...)
	}
	return out
}
