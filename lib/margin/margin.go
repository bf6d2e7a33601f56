// Package margin is the margin of a comparison property (sim.AlwaysLessThan
// and its kin): how far the comparison stood from flipping, positive on its
// true side. A margin of integers is kept exact over the whole range of the
// difference of two 64-bit integers, signed or unsigned, since a float64
// would lose the last digits of a nanosecond timestamp; a margin of floats
// is a float64, infinities and NaN included.
//
// In JSON a finite margin is a number, and a non-finite one, which JSON
// cannot hold as a number, the string "+Inf", "-Inf" or "NaN".
package margin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// Value is one margin. The zero Value is the integer 0.
type Value struct {
	float bool
	f     float64
	// neg and mag are an integer margin: -mag when neg, else mag.
	neg bool
	mag uint64
}

// Int is the integer margin -mag when neg, else mag.
func Int(neg bool, mag uint64) Value { return Value{neg: neg && mag != 0, mag: mag} }

// Float is the float margin f.
func Float(f float64) Value { return Value{float: true, f: f} }

// IsInt reports whether v is an integer margin.
func (v Value) IsInt() bool { return !v.float }

// Float64 is v as a float64: exact for a float margin, the nearest float64
// for an integer one.
func (v Value) Float64() float64 {
	if v.float {
		return v.f
	}
	f := float64(v.mag)
	if v.neg {
		return -f
	}
	return f
}

// Less orders margins by value, with NaN below everything else: an always
// keeps its smallest margin, and a NaN (a comparison that can never hold)
// is the closest to failing there is; a sometimes keeps its largest, and a
// NaN is the farthest from true. Integers compare exactly, with each other
// and with floats.
func (v Value) Less(w Value) bool {
	vn, wn := v.float && math.IsNaN(v.f), w.float && math.IsNaN(w.f)
	switch {
	case vn || wn:
		return vn && !wn
	case !v.float && !w.float:
		switch {
		case v.neg != w.neg:
			return v.neg
		case v.neg:
			return v.mag > w.mag
		}
		return v.mag < w.mag
	}
	return v.big().Cmp(w.big()) < 0
}

// big is v exactly, for comparing an integer with a float.
func (v Value) big() *big.Float {
	if v.float {
		return new(big.Float).SetFloat64(v.f)
	}
	b := new(big.Float).SetUint64(v.mag)
	if v.neg {
		b.Neg(b)
	}
	return b
}

// String writes v as its JSON does, without quotes: "-3", "0.25", "+Inf".
func (v Value) String() string {
	if !v.float {
		s := strconv.FormatUint(v.mag, 10)
		if v.neg {
			s = "-" + s
		}
		return s
	}
	switch {
	case math.IsNaN(v.f):
		return "NaN"
	case math.IsInf(v.f, 1):
		return "+Inf"
	case math.IsInf(v.f, -1):
		return "-Inf"
	}
	b, _ := json.Marshal(v.f) // finite, so it encodes
	return string(b)
}

// MarshalJSON writes a finite margin as a number and a non-finite one as a
// string.
func (v Value) MarshalJSON() ([]byte, error) {
	s := v.String()
	if v.float && (math.IsNaN(v.f) || math.IsInf(v.f, 0)) {
		return []byte(`"` + s + `"`), nil
	}
	return []byte(s), nil
}

// UnmarshalJSON reads what MarshalJSON writes: a number (an integer when it
// has neither fraction nor exponent and fits, else a float) or one of the
// strings "+Inf", "-Inf" and "NaN".
func (v *Value) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "+Inf", "Inf":
			*v = Float(math.Inf(1))
		case "-Inf":
			*v = Float(math.Inf(-1))
		case "NaN":
			*v = Float(math.NaN())
		default:
			return fmt.Errorf("margin: %q is neither a number nor +Inf, -Inf or NaN", s)
		}
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("margin: %s is not a number", b)
	}
	s := string(n)
	digits, neg := s, false
	if len(s) > 0 && s[0] == '-' {
		digits, neg = s[1:], true
	}
	if mag, err := strconv.ParseUint(digits, 10, 64); err == nil {
		*v = Int(neg, mag)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("margin: %s: %w", s, err)
	}
	*v = Float(f)
	return nil
}
