package main

import (
	"strings"
	"testing"
)

// TestCheck: outside the simulator sim.Always panics, which is how these
// tests see a failed check.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		reply   string
		durable bool
		want    string // substring of the panic; "" for none
	}{
		{"CURRENT 5", false, ""},
		{"CURRENT 3", false, ""},
		{"CURRENT 3", true, "" /* sim.Fail, checked below */},
		{"MISSING gen-5", false, "current names gen-5, which does not exist: current points at nothing"},
		{"CORRUPT gen-5: holds \"\"", false, "current names gen-5: holds"},
		{"NONE", false, "there is no current"},
	} {
		c := &client{acked: 4, durable: tc.durable}
		got := func() (msg string) {
			defer func() {
				if r := recover(); r != nil {
					msg = strings.TrimSpace(strings.ReplaceAll(toString(r), "\n", " "))
				}
			}()
			c.check(tc.reply)
			return ""
		}()
		switch {
		case tc.durable:
			if !strings.Contains(got, "generation 4 was acknowledged, but current is generation 3") {
				t.Errorf("-durable, %q: got %q, want the acknowledged generation named", tc.reply, got)
			}
		case tc.want == "" && got != "":
			t.Errorf("%q: check failed with %q", tc.reply, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%q: check failed with %q, want it to say %q", tc.reply, got, tc.want)
		}
	}
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if e, ok := v.(error); ok {
		return e.Error()
	}
	return ""
}
