package jsontext

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
	"testing"
)

var samples = []string{
	`null`, `true`, `false`, `0`, `-0`, `1.5e-3`, `12`, `"a"`, `"\u00e9\n\"\\"`, `[]`, `{}`,
	`[1, "a", [null, {"k": [true]}]]`, ` { "a" : 1 , "b" : [ ] } `,
	`["a","b","c"]`, `["a",1,"b"]`, `[1,"a"]`, `["a", "b"]`, `{"a":"b","c":["d","e"]}`, `[["a","b"],"c"]`,
	// invalid
	``, `[`, `]`, `[1,]`, `{"a"}`, `{"a":}`, `{1:2}`, `01`, `1.`, `1e`, `-`, `"\x"`, `"\u12"`, "\"a\x01\"",
	`tru`, `nul`, `[1 2]`, `{"a":1,}`, `"abc`, `[[[[`, `{"a":1}}`,
	`["a","b`, `["a","b"`, `["a",]`, `["a","\x"]`, "[\"a\",\"b\x01\"]", `["a","b""c"]`, `["a","b"}`, `{"a":"b","c"}`,
}

func TestValidateAgreesWithSkip(t *testing.T) {
	for _, in := range samples {
		checkAgreement(t, []byte(in))
	}
	// Nesting past the validator's first stack, up to the limit and past it.
	nested := func(depth int) []byte {
		return []byte(strings.Repeat(`{"a":[`, depth/2) + strings.Repeat("[", depth%2) + "1" + strings.Repeat("]", depth%2) + strings.Repeat("]}", depth/2))
	}
	for _, depth := range []int{15, 16, 17, 40, DepthMax} {
		checkAgreement(t, nested(depth))
	}
	if _, ok := validate(nested(DepthMax+1), 0); ok {
		t.Errorf("validate takes %d levels, more than DepthMax", DepthMax+1)
	}
	if err := (&Scanner{Data: nested(DepthMax + 1)}).skip(0); err == nil {
		t.Errorf("skip takes %d levels, more than DepthMax", DepthMax+1)
	}
}

func checkAgreement(t *testing.T, data []byte) {
	t.Helper()
	s := Scanner{Data: data}
	s.SkipSpace()
	start := s.Pos
	end, ok := validate(data, start)
	err := s.skip(0)
	if ok != (err == nil) || (ok && end != s.Pos) {
		t.Fatalf("%q: validate says %v (end %d), skip says %v (end %d)", data, ok, end, err, s.Pos)
	}
	if whole := ok && (&Scanner{Data: data, Pos: end}).AtEnd(); whole != json.Valid(data) {
		t.Fatalf("%q: we say valid=%v, encoding/json says %v", data, whole, json.Valid(data))
	}
}

func FuzzValidate(f *testing.F) {
	for _, s := range samples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkAgreement(t, data) })
}

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"`:                "plain",
		`"a\"b\\c\/d\b\f\n\r\t"`: "a\"b\\c/d\b\f\n\r\t",
		`"\u00e9\ud83d\ude00"`:   "é😀",
		`"\ud800x"`:              "\ufffdx",
	} {
		s := Scanner{Data: []byte(in)}
		got, err := s.String()
		if err != nil || string(got) != want {
			t.Errorf("String(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"a\"b\\c\n\x01": `"a\"b\\c\n\u0001"`,
		"é":             `"é"`,
		"a\xffb":        `"a\ufffdb"`,
	} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestInt(t *testing.T) {
	for in, want := range map[string]string{
		"9223372036854775807":  "",
		"-9223372036854775808": "",
		"9223372036854775808":  "column 1: integer 9223372036854775808 out of range",
		"1e3":                  "column 1: expected an integer, found 1e3",
		"x":                    "column 1: expected a number, found 'x'",
	} {
		s := Scanner{Data: []byte(in)}
		_, err := s.Int()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("Int(%s): %q, want %q", in, got, want)
		}
	}
}

func TestStringStops(t *testing.T) {
	// Every byte value at every position, after plain bytes and after
	// another stop: the lowest mark is the first byte plain does not take.
	for pos := range 8 {
		for c := range 256 {
			for _, fill := range []byte{'a', 0xff, 0x7f, '"' + 1} {
				var w [8]byte
				for i := range w {
					w[i] = fill
				}
				w[pos] = byte(c)
				if pos < 7 {
					w[pos+1] = 0 // a stop after it must not hide it
				}
				m := stringStops(binary.LittleEndian.Uint64(w[:]))
				want := 8
				for i, b := range w {
					if !plain[b] {
						want = i
						break
					}
				}
				got := 8
				if m != 0 {
					got = bits.TrailingZeros64(m) / 8
				}
				if got != want {
					t.Fatalf("stringStops(%q): first stop at %d, want %d", w, got, want)
				}
			}
		}
	}
}
