package main

import (
	"bufio"
	"fmt"
	"net"
	"testing"
	"time"
)

// totalServer answers every GET with VALUE <total> and returns its address.
func totalServer(t *testing.T, total int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				for sc := bufio.NewScanner(c); sc.Scan(); {
					fmt.Fprintf(c, "VALUE %d\n", total)
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name            string
		primary, backup int
		want            string // the panic, or "" to pass
	}{
		{"converged", 50, 50, ""},
		{"applied twice", 51, 51, `sim.AlwaysLessThanOrEqualTo: no add is applied twice {"left":51,"right":50}`},
		{"lost", 49, 49, `sim.AlwaysGreaterThanOrEqualTo: no acknowledged add is lost {"left":49,"right":50}`},
		{"diverged", 50, 49, "sim.Eventually: primary and backup report the same count: not true within 100ms"},
		{"backup down", 50, -1, "sim.Eventually: primary and backup report the same count: not true within 100ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			backup := "127.0.0.1:1" // nothing listens there
			if tc.backup >= 0 {
				backup = totalServer(t, tc.backup)
			}
			defer func() {
				if got := recover(); tc.want == "" && got != nil || tc.want != "" && got != tc.want {
					t.Errorf("check panicked with %v, want %q", got, tc.want)
				}
			}()
			if got := check(totalServer(t, tc.primary), backup, 50, 100*time.Millisecond); got != 50 {
				t.Errorf("check returned %d, want 50", got)
			}
		})
	}
}

func TestCountUnavailable(t *testing.T) {
	if got := count("127.0.0.1:1"); got != -1 {
		t.Errorf("count of a closed port = %d, want -1", got)
	}
}
