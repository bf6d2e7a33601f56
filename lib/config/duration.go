package config

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sf-dst/sf/lib/echo"
)

// rangeShape is the message for a range that is not an array of two duration strings.
const rangeShape = `expected a range of two durations like ["1ms", "10ms"]`

// Duration is a length of virtual time in nanoseconds. Its JSON form is a Go duration string such as
// "250ms" or "2s".
type Duration int64

// String returns d in the form of time.Duration's String, such as "1.5s".
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as a quoted Go duration string, such as "250ms".
func (d Duration) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, d.String()), nil
}

// UnmarshalJSON reads a Go duration string such as "250ms". A JSON null leaves d unchanged.
func (d *Duration) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	v, msg := parseDuration(parseJSON(data))
	if msg != "" {
		return errors.New(msg)
	}
	*d = v
	return nil
}

// Range is an inclusive range of durations [lo, hi] from which a value is drawn. Its JSON form is an array
// of exactly two duration strings, such as ["1ms", "10ms"]; both are at least 0 and lo is at most hi.
type Range [2]Duration

// MarshalJSON writes r as an array of two duration strings, such as ["1ms","10ms"].
func (r Range) MarshalJSON() ([]byte, error) {
	b := append([]byte{'['}, strconv.Quote(r[0].String())...)
	b = append(b, ',')
	b = append(b, strconv.Quote(r[1].String())...)
	return append(b, ']'), nil
}

// UnmarshalJSON reads an array of two duration strings and checks that neither is negative and that the
// first is not larger than the second. A JSON null leaves r unchanged.
func (r *Range) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	v, msg := parseRange(parseJSON(data))
	if msg != "" {
		return errors.New(msg)
	}
	*r = v
	return nil
}

// parseJSON reads a JSON value that encoding/json has already checked into a tree.
func parseJSON(data []byte) *jvalue {
	v, err := parseTree(data, &source{}, "")
	if err != nil {
		return &jvalue{kind: 'n'}
	}
	return v
}

// parseDuration decodes one JSON duration string. It returns a message instead of an error so that the
// caller can put the JSON path in front of it.
func parseDuration(v *jvalue) (Duration, string) {
	if v.kind != '"' {
		return 0, `expected a duration string like "250ms"`
	}
	x, err := time.ParseDuration(v.str)
	if err != nil {
		return 0, fmt.Sprintf("invalid duration %s", echo.Quote(v.str))
	}
	return Duration(x), ""
}

// parseRange decodes one JSON range, returning a message on failure like parseDuration.
func parseRange(v *jvalue) (Range, string) {
	if v.kind != '[' || len(v.elems) != 2 {
		return Range{}, rangeShape
	}
	var r Range
	for i, e := range v.elems {
		if e.kind != '"' {
			return Range{}, rangeShape
		}
		x, msg := parseDuration(e)
		if msg != "" {
			return Range{}, msg
		}
		if x < 0 {
			return Range{}, fmt.Sprintf("negative duration %s", echo.Quote(e.str))
		}
		r[i] = x
	}
	if r[0] > r[1] {
		return Range{}, fmt.Sprintf("range is reversed: %s > %s", r[0], r[1])
	}
	return r, ""
}
