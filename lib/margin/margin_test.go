package margin

import (
	"encoding/json"
	"math"
	"testing"
)

func TestJSON(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		json string
	}{
		{Int(false, 1), `1`},
		{Int(true, 1), `-1`},
		{Int(true, 0), `0`},
		{Int(false, math.MaxUint64), `18446744073709551615`},
		{Int(true, math.MaxUint64), `-18446744073709551615`},
		{Float(0.25), `0.25`},
		{Float(-1.5e300), `-1.5e+300`},
		{Float(math.Inf(1)), `"+Inf"`},
		{Float(math.Inf(-1)), `"-Inf"`},
		{Float(math.NaN()), `"NaN"`},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil || string(b) != tc.json {
			t.Errorf("%#v encodes as %s (%v), want %s", tc.v, b, err, tc.json)
			continue
		}
		var back Value
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("%s: %v", b, err)
			continue
		}
		if back.String() != tc.v.String() || back.IsInt() != tc.v.IsInt() {
			t.Errorf("%s reads back as %#v, want %#v", b, back, tc.v)
		}
	}
	// A margin written by an older sf, a float64, reads as a number.
	var v Value
	if err := json.Unmarshal([]byte(`1e+21`), &v); err != nil || v.IsInt() || v.Float64() != 1e21 {
		t.Errorf("1e+21 reads as %#v (%v)", v, err)
	}
	for _, bad := range []string{`"infinite"`, `true`, `[1]`, `1e999`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s read as %#v", bad, v)
		}
	}
}

func TestLess(t *testing.T) {
	// In order, each below the next.
	order := []Value{Float(math.NaN()), Float(math.Inf(-1)), Int(true, math.MaxUint64), Float(-1.5e19),
		Int(true, 1), Float(-0.5), Int(false, 0), Float(0.5), Int(false, 1700000000000000000),
		Int(false, 1700000000000000001), Float(1.8e19), Int(false, math.MaxUint64), Float(math.Inf(1))}
	for i := range order {
		for j := range order {
			if got, want := order[i].Less(order[j]), i < j; got != want {
				t.Errorf("%s < %s = %v, want %v", order[i], order[j], got, want)
			}
		}
	}
	// An integer that a float64 cannot tell from its neighbour still is.
	if !Int(false, 1<<60).Less(Int(false, 1<<60+1)) || Float(1<<60).Less(Int(false, 1<<60)) || !Float(1<<60).Less(Int(false, 1<<60+1)) {
		t.Errorf("integers above 2^53 do not compare exactly")
	}
}
