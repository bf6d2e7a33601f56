package listappend

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/sf-dst/sf/lib/check/internal/txngen"
)

// TestMopHead: micro-ops written compactly are read by mopHead, anything
// else by the scanner, with the same results.
func TestMopHead(t *testing.T) {
	for raw, want := range map[string]string{
		`["r","x",null]`: "read x", `["read","k1",["1"]]`: "read k1", `["append","",  "1"]`: "append ",
		`[ "r","x",null]`: "", `["r" ,"x",null]`: "", `["r", "x",null]`: "", `["r","x" ,null]`: "",
		`["r",1,null]`: "", `["r","a\"b",null]`: "", "[\"r\",\"a\x01\",null]": "", `["w","x","1"]`: "", `["r","x`: "",
	} {
		read, key, next, ok := mopHead([]byte(raw), 0)
		got := ""
		if ok {
			got = map[bool]string{true: "read ", false: "append "}[read] + string(key)
			if raw[next-1] != ',' || raw[next-2] != '"' {
				t.Errorf("%s: next %d is not after the key's comma", raw, next)
			}
		}
		if got != want {
			t.Errorf("mopHead(%s) = %q, want %q", raw, got, want)
		}
	}
	// The same history with its micro-ops spread out (which mopHead leaves
	// to the scanner) gives the same report.
	ops := txngen.ListAppend(3000, true, 4)
	spread := slices.Clone(ops)
	for i := range spread {
		for _, raw := range []*json.RawMessage{&spread[i].Value, &spread[i].Output} {
			if len(*raw) == 0 {
				continue
			}
			var b bytes.Buffer
			if err := json.Indent(&b, *raw, "", " "); err != nil {
				t.Fatal(err)
			}
			*raw = b.Bytes()
		}
	}
	a, aerr := Check(ops, nil)
	b, berr := Check(spread, nil)
	if aerr != nil || berr != nil || len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Fatalf("compact: %+v, %v\nspread out: %+v, %v", a, aerr, b, berr)
	}
}
