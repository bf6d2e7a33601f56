package history

import (
	"encoding/binary"
	"math/bits"

	"github.com/sf-dst/sf/lib/history/jsontext"
)

// fastEvent reads a line written exactly as AppendEvent writes it: the
// fields in its order, no white space between them, integers that fit in 18
// digits, names without escapes. It reports false for anything else, and
// parseEvent then reads the line from its start, so that every line it
// cannot take gets the general reader's verdict and error. A line it takes
// is one the general reader accepts with the same result; about a third of
// reading time used to go to finding field names and separators that are
// always the same.
//
// ev may hold the event of the line before, whose names fastEvent reuses
// when they are the same; it sets every field of ev but Line when it
// reports true, and leaves ev in no particular state when it reports false.
//
// With deferOK, the value of an invocation or of an ok completion is not
// validated: it is taken to end where the line's fixed tail starts (see
// okTail), and whoever reads the event must make sure that value is
// valid JSON (see ReadOptions.DeferValueCheck). The values of info and
// fail completions, which pairing drops, are validated.
func fastEvent(d []byte, ev *Event, intern map[string]string, memo *jsontext.ArrayMemo, deferOK bool) bool {
	// Names longer than eight bytes are matched in two parts: the compiler
	// compares up to eight bytes of a constant in place, and calls
	// memequal for more.
	i, ok := lit2(d, 0, `{"index"`, `:`)
	if !ok {
		return false
	}
	if ev.Index, i, ok = fastInt(d, i); !ok {
		return false
	}
	if i, ok = lit(d, i, `,"type":`); !ok {
		return false
	}
	// The types with their quotes fit in eight bytes, one comparison each.
	switch {
	case hasAt(d, i, `"invoke"`):
		ev.Type, i = Invoke, i+len(`"invoke"`)
	case hasAt(d, i, `"ok"`):
		ev.Type, i = OK, i+len(`"ok"`)
	case hasAt(d, i, `"info"`):
		ev.Type, i = Info, i+len(`"info"`)
	case hasAt(d, i, `"fail"`):
		ev.Type, i = Fail, i+len(`"fail"`)
	default:
		return false
	}
	if i, ok = lit2(d, i, `,"proces`, `s":`); !ok {
		return false
	}
	if ev.Process, i, ok = fastInt(d, i); !ok {
		return false
	}
	if i, ok = lit(d, i, `,"f":`); !ok {
		return false
	}
	var b []byte
	if b, i, ok = fastString(d, i); !ok {
		return false
	}
	// Consecutive lines nearly always share their names, so ev's names
	// from the line before are a cache in front of the map.
	if string(b) != ev.F {
		ev.F = internBytes(intern, b)
	}
	if hasAt(d, i, `,"key":`) {
		if b, i, ok = fastString(d, i+len(`,"key":`)); !ok {
			return false
		}
		if string(b) != ev.Key {
			ev.Key = internBytes(intern, b)
		}
	} else {
		ev.Key = ""
	}
	if i, ok = lit2(d, i, `,"value"`, `:`); !ok {
		return false
	}
	if deferOK && (ev.Type == OK || ev.Type == Invoke) {
		// The tail read backwards is the whole rest of the line, time
		// and id included, so nothing is left to read forwards.
		if end, time, id, ok := okTail(d, i); ok {
			ev.Value, ev.Time, ev.ID = d[i:end], time, id
			return true
		}
	}
	end, ok := jsontext.ValidAt(d, i, memo)
	if !ok {
		return false
	}
	ev.Value, i = d[i:end], end
	if i, ok = lit(d, i, `,"time":`); !ok {
		return false
	}
	if ev.Time, i, ok = fastInt(d, i); !ok {
		return false
	}
	if i, ok = lit(d, i, `,"id":`); !ok {
		return false
	}
	if ev.ID, i, ok = fastInt(d, i); !ok {
		return false
	}
	if i, ok = lit(d, i, `}`); !ok {
		return false
	}
	for ; i < len(d); i++ {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return false
		}
	}
	return true
}

// okTail reads the rest of a line whose value starts at d[i] without
// reading the value: the tail ,"time":N,"id":N} and optional white space
// that AppendEvent ends every line with is matched from the end of the line
// backwards, and time and id are read on the way, by fastInt's rules (an
// optional '-', one to 18 digits, no leading zero). It returns where the
// value ends, time and id, and false when the line does not end that way,
// when either integer breaks those rules, or when the value would be empty
// or have white space at either end, which a value that ValidAt takes never
// has; the line is then read forwards as any other, so whatever this
// refuses gets fastInt's or the general reader's verdict.
//
// Matching backwards from the end is unambiguous, so when the text before
// the tail is one valid JSON value, it is the value ValidAt would find, and
// the event is the one the strict reading gives. When it is not (the line
// is broken, or its value is), the text taken as the value is not valid
// JSON, and the strict decoding the caller owes it fails.
func okTail(d []byte, i int) (end int, time, id int64, ok bool) {
	// On t, with indexes counted down from its length, the compiler drops
	// the bounds checks of the loops, which were a fifth of the cost.
	t := d[i:]
	j := len(t)
	for j > 0 && isBlank(t[j-1]) {
		j--
	}
	if j == 0 || t[j-1] != '}' {
		return 0, 0, 0, false
	}
	if id, j = intBefore(t, j-1); j < len(`,"id":`) || string(t[j-len(`,"id":`):j]) != `,"id":` {
		return 0, 0, 0, false
	}
	if time, j = intBefore(t, j-len(`,"id":`)); j < len(`,"time":`) || string(t[j-len(`,"time":`):j]) != `,"time":` {
		return 0, 0, 0, false
	}
	j -= len(`,"time":`)
	if j == 0 || isBlank(t[0]) || isBlank(t[j-1]) {
		return 0, 0, 0, false
	}
	return i + j, time, id, true
}

// intBefore reads backwards the integer whose last digit is t[j-1], by
// fastInt's rules but for the byte after it, which is the caller's to
// check. It returns the integer and where its text starts, or -1 there
// when t[j-1] is no digit or the rules are broken.
func intBefore(t []byte, j int) (int64, int) {
	if j > len(t) {
		return 0, -1
	}
	var v, p int64 = 0, 1
	k, more := j, true
	if j >= 8 {
		// The eight bytes that end at t[j-1] at once, as fastInt
		// does forwards. Backwards, the digits are the top bytes of
		// the word, so no borrow or carry from the bytes below them
		// may reach them: xor takes '0' off without a borrow, and
		// the top bit is tested apart from the other seven, to which
		// adding 0x76 cannot carry. A byte that is no digit has its
		// top bit set in m.
		x := binary.LittleEndian.Uint64(t[j-8:j]) ^ 0x3030303030303030
		m := (x | (x&0x7f7f7f7f7f7f7f7f + 0x7676767676767676)) & 0x8080808080808080
		n := bits.LeadingZeros64(m) >> 3
		// The bytes below the digits become zeros, leading ones, and
		// the digits are combined in pairs, fours and eights. The
		// shift is taken mod 64, which the compiler then need not
		// guard: with no digit at all (n 0) nothing is cleared, and
		// the garbage is refused below.
		x &^= 1<<((64-8*uint(n))&63) - 1
		x = (x*10 + x>>8) & 0x00ff00ff00ff00ff
		x = (x*100 + x>>16) & 0x0000ffff0000ffff
		x = (x*10000 + x>>32) & 0xffffffff
		v, p, k, more = int64(x), 100000000, j-n, n == 8
	}
	if more {
		for ; k > 0; k-- {
			c := t[k-1] - '0'
			if c > 9 {
				break
			}
			// Past 18 digits p and v wrap around, but such a
			// number is refused below.
			v += int64(c) * p
			p *= 10
		}
	}
	if n := j - k; n == 0 || n > 18 || (n > 1 && t[k] == '0') {
		return 0, -1
	}
	if k > 0 && t[k-1] == '-' {
		return -v, k - 1
	}
	return v, k
}

// isBlank is JSON white space; one comparison rules out every byte above
// a space.
func isBlank(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r') }

func hasAt(d []byte, i int, s string) bool {
	return len(d)-i >= len(s) && string(d[i:i+len(s)]) == s
}

func lit(d []byte, i int, s string) (int, bool) {
	if hasAt(d, i, s) {
		return i + len(s), true
	}
	return 0, false
}

// lit2 is lit of s1+s2.
func lit2(d []byte, i int, s1, s2 string) (int, bool) {
	if hasAt(d, i, s1) && hasAt(d, i+len(s1), s2) {
		return i + len(s1) + len(s2), true
	}
	return 0, false
}

// fastInt reads a JSON integer of at most 18 digits at i, which the byte
// after it must end: not a digit, a point or an exponent.
func fastInt(d []byte, i int) (int64, int, bool) {
	if i >= len(d) {
		return 0, 0, false
	}
	b := d[i:]
	k := 0
	if b[0] == '-' {
		k = 1
	}
	start := k
	var v int64
	if len(b)-k >= 8 {
		// Up to eight digits at once, however many there are. Less
		// '0', a byte below '0' wraps to 0xd0 or more and one above
		// '9' reaches 0x80 once 0x76 is added, so the first byte that
		// is not a digit has its top bit set in m; the borrow or carry
		// it makes goes to the bytes after it, never into the digits
		// before. Those digits, moved to the top of the word, are then
		// combined in pairs, fours and eights.
		t := binary.LittleEndian.Uint64(b[k:]) - 0x3030303030303030
		m := (t | (t + 0x7676767676767676)) & 0x8080808080808080
		n := bits.TrailingZeros64(m) >> 3
		if n == 0 {
			return 0, 0, false
		}
		t <<= 64 - 8*uint(n)
		t = (t*10 + t>>8) & 0x00ff00ff00ff00ff
		t = (t*100 + t>>16) & 0x0000ffff0000ffff
		t = (t*10000 + t>>32) & 0xffffffff
		v, k = int64(t), k+n
		if n < 8 {
			// Fewer than eight digits, so b[k] is the byte that
			// ended them: the checks below, without the ones that
			// cannot fail here.
			if c := b[k]; c == '.' || c|0x20 == 'e' || (n > 1 && b[start] == '0') {
				return 0, 0, false
			}
			if start == 1 {
				v = -v
			}
			return v, i + k, true
		}
	}
	// One comparison per digit: a byte below '0' wraps around to above 9.
	for k < len(b) {
		c := b[k] - '0'
		if c > 9 {
			break
		}
		v = v*10 + int64(c)
		k++
	}
	n := k - start
	if n == 0 || n > 18 || (n > 1 && b[start] == '0') {
		return 0, 0, false
	}
	if k < len(b) {
		if c := b[k]; c == '.' || c|0x20 == 'e' {
			return 0, 0, false
		}
	}
	if start == 1 {
		v = -v
	}
	return v, i + k, true
}

// fastString reads a string without escapes or control characters at i and
// returns its bytes, which alias d.
func fastString(d []byte, i int) ([]byte, int, bool) {
	if i >= len(d) || d[i] != '"' {
		return nil, 0, false
	}
	start := i + 1
	for i = start; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			return d[start:i], i + 1, true
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}
