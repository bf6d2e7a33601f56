// Package wiretest helps the tests of packages that encode run state with
// lib/wire.
package wiretest

import (
	"reflect"
	"strings"
	"testing"
)

// CheckFields fails t for each type of pinned whose fields, in order, are
// not the names listed for it. An encoder's test pins the fields its Encode
// writes, so that a field added to a type fails there until Encode and
// Decode write it (or the list says why not).
func CheckFields(t testing.TB, pinned map[reflect.Type]string) {
	t.Helper()
	for typ, want := range pinned {
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s's fields are now\n\t%s\nEncode knows\n\t%s", typ, g, want)
		}
	}
}
