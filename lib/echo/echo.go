// Package echo shortens the input that an error message repeats back: a
// key, a value or a line the user gave, which may be megabytes long. A
// message shows its start and says how long it was, so that it still
// points at the mistake without printing the input again.
package echo

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// BytesMax is how much of an input a message repeats: 120 bytes, a
// terminal line's worth.
const BytesMax = 120

// Cut returns s when it is at most BytesMax bytes long, and otherwise its
// first BytesMax bytes (cut at a character's start) followed by
// "... (N bytes)".
func Cut(s string) string {
	if len(s) <= BytesMax {
		return s
	}
	n := BytesMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:n], len(s))
}

// Quote is strconv.Quote of s, cut as Cut does: the quoted start, then
// "... (N bytes)" outside the quotes.
func Quote(s string) string {
	if len(s) <= BytesMax {
		return strconv.Quote(s)
	}
	n := BytesMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:n]), len(s))
}
