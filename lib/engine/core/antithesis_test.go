package core

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestSDKLinesReadAsEncodingJSON: the SDK's lines are read with gjson where
// that is safe and with encoding/json elsewhere, and what a line means is
// encoding/json's reading of it. Every line here, those the SDK writes and
// odd ones, must read as encoding/json alone reads it; and the SDK's own
// lines must take the fast way.
func TestSDKLinesReadAsEncodingJSON(t *testing.T) {
	sdk := []string{
		`{"antithesis_assert":{"hit":true,"must_hit":true,"assert_type":"always","display_type":"Always","message":"balance never negative","condition":true,"id":"balance never negative","location":{"class":"","function":"main.transfer","file":"/src/main.go","begin_line":42,"begin_column":0},"details":{"from":3,"to":"b"}}}`,
		`{"antithesis_assert":{"hit":false,"must_hit":true,"assert_type":"reachability","display_type":"Reachable","message":"leader elected","condition":false,"id":"leader elected","location":{"class":"","function":"main.run","file":"/src/main.go","begin_line":7,"begin_column":0},"details":null}}`,
		`{"antithesis_assert":{"hit":true,"must_hit":false,"assert_type":"sometimes","display_type":"Sometimes","message":"retry","condition":false,"details":{}}}`,
		`{"antithesis_setup":{"status":"complete","details":null}}`,
		`{"antithesis_sdk":{"language":{"name":"Go","version":"go1.26"},"sdk_version":"0.4.3","protocol_version":"1.1.0"}}`,
		`{"transfer_done":{"id":7}}`,
		`{"quiet":null}`,
	}
	odd := []string{
		``, `null`, `[]`, `{}`, `"x"`, `{"a":1,"b":2}`, `{"a":1,"a":2}`, `{"a":1,}`, `{"a" 1}`,
		`{"antithesis\u005fassert":{"hit":true,"assert_type":"always","message":"m","condition":true}}`,
		`{"antithesis_assert":{"Hit":true,"assert_type":"always","message":"m","condition":true}}`,
		`{"antithesis_assert":{"hit":true,"Message":"upper","message":"lower","assert_type":"always"}}`,
		`{"antithesis_assert":{"hit":true,"mesſage":"fold","assert_type":"always"}}`,
		`{"antithesis_assert":{"hit":"yes","assert_type":"always","message":"m"}}`,
		`{"antithesis_assert":{"hit":true,"assert_type":"always","message":7}}`,
		`{"antithesis_assert":{"hit":true,"assert_type":"always","message":null,"condition":null}}`,
		`{"antithesis_assert":{"hit":true,"assert_type":"always","message":"tab\tand \u00e9 \ud800","condition":true}}`,
		"{\"antithesis_assert\":{\"hit\":true,\"assert_type\":\"always\",\"message\":\"bad \xff utf-8\",\"condition\":true}}",
		"{\"antithesis_assert\":{\"hit\":true,\"assert_type\":\"always\",\"message\":\"raw \x01 control\"}}",
		`{"antithesis_assert":{"hit":true,"hit":false,"assert_type":"always","message":"dup"}}`,
		`{"antithesis_assert":{"hit":true,"assert_type":"always","details":[1, 2 ,3],"details":{"k" : "v"}}}`,
		`{"antithesis_assert":[1]}`,
		`{"antithesis_assert":"text"}`,
		` {"antithesis_assert" : { "hit" : true , "assert_type" : "always" , "message" : "spaces" } } `,
		`{"antithesis_assert":{"hit":true,"assert_type":"always"}} trailing`,
		`{"event":  {"a": 1}  }`,
	}
	for _, line := range append(append([]string{}, sdk...), odd...) {
		key, body, ok := sdkLine(line)
		var msg map[string]json.RawMessage
		wantOK := json.Unmarshal([]byte(line), &msg) == nil && len(msg) == 1
		if ok != wantOK {
			t.Errorf("%q: read as a line %v, encoding/json says %v", line, ok, wantOK)
			continue
		}
		if !ok {
			continue
		}
		if wantBody, found := msg[key]; !found || !bytes.Equal(wantBody, []byte(body)) {
			t.Errorf("%q: key %q with %q; encoding/json read %v", line, key, body, msg)
			continue
		}
		a, ok := sdkAssert(body)
		var want antithesisAssert
		wantOK = json.Unmarshal([]byte(body), &want) == nil
		if ok != wantOK || ok && (a.AssertType != want.AssertType || a.DisplayType != want.DisplayType ||
			a.Message != want.Message || a.Hit != want.Hit || a.MustHit != want.MustHit ||
			a.Condition != want.Condition || !bytes.Equal(a.Details, want.Details)) {
			t.Errorf("%q: assertion %+v (%v), encoding/json reads %+v (%v)", line, a, ok, want, wantOK)
		}
	}
	for i, line := range sdk {
		_, body, ok := sdkLinePlain(line)
		if !ok {
			t.Errorf("%q: the SDK's own line was not read the fast way", line)
		}
		if _, ok := sdkAssertPlain(body); i < 3 && !ok {
			t.Errorf("%q: the SDK's own assertion was not read the fast way", line)
		}
	}
}
