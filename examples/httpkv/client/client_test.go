package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeKV is a primary or a backup. A primary copies every write it
// acknowledges to its backup first, except the keys in lose, which stand
// for writes an asynchronous primary acknowledged and never replicated.
type fakeKV struct {
	mu          sync.Mutex
	kv          map[string]string
	backup      *fakeKV
	lose        map[string]bool
	unavailable int  // answer this many PUTs with 503 first
	downAfter   int  // go down once this many PUTs are acknowledged; 0 never
	down        bool // close every connection without an answer
	puts        int  // acknowledged PUTs
	forget      string
}

func (f *fakeKV) start(t *testing.T) string {
	t.Helper()
	if f.kv == nil {
		f.kv = map[string]string{}
	}
	s := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(s.Close)
	return strings.TrimPrefix(s.URL, "http://")
}

func (f *fakeKV) setDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

func (f *fakeKV) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			c.Close()
		}
		return
	}
	k := strings.TrimPrefix(r.URL.Path, "/kv/")
	switch r.Method {
	case http.MethodGet:
		v, ok := f.kv[k]
		if !ok || k == f.forget {
			http.Error(w, "no such key", http.StatusNotFound)
			return
		}
		io.WriteString(w, v)
	case http.MethodPut:
		if f.unavailable > 0 {
			f.unavailable--
			http.Error(w, "backup unavailable", http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		f.kv[k] = string(b)
		if f.backup != nil && !f.lose[k] {
			f.backup.mu.Lock()
			f.backup.kv[k] = string(b)
			f.backup.mu.Unlock()
		}
		f.puts++
		if f.puts == f.downAfter {
			f.down = true
		}
	}
}

// pair starts a backup and a primary that replicates to it.
func pair(t *testing.T, primary *fakeKV) (*client, *fakeKV) {
	t.Helper()
	backup := &fakeKV{}
	backupAddr := backup.start(t)
	primary.backup = backup
	return newClient(primary.start(t), backupAddr), backup
}

// runClient runs the workload and returns the message of a failed
// sim.Assert, or "".
func runClient(t *testing.T, c *client, n int) (failed string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			failed = fmt.Sprint(r)
		}
	}()
	if err := c.run(n); err != nil {
		t.Fatalf("run: %v", err)
	}
	return ""
}

func TestWorkload(t *testing.T) {
	tests := []struct {
		name       string
		primary    *fakeKV
		writes     int
		acked      int
		failedOver bool
		failed     string
	}{
		{
			name:    "no faults",
			primary: &fakeKV{},
			writes:  20, acked: 20,
		},
		{
			name:    "503s are retried",
			primary: &fakeKV{unavailable: 4},
			writes:  5, acked: 5,
		},
		{
			name:    "the primary loses a write",
			primary: &fakeKV{forget: "k3"},
			writes:  5, acked: 5,
			failed: `sim.Assert: acknowledged write lost: k3=v3, primary answers "404 Not Found"`,
		},
		{
			name:    "failover, the backup has every write",
			primary: &fakeKV{downAfter: 5},
			writes:  10, acked: 5, failedOver: true,
		},
		{
			name:    "failover, the last acknowledged write is not on the backup",
			primary: &fakeKV{downAfter: 5, lose: map[string]bool{"k5": true}},
			writes:  10, acked: 5, failedOver: true,
			failed: `sim.Assert: acknowledged write lost after failover: k5=v5, backup answers "404 Not Found"`,
		},
		{
			name:    "failover during the read-back",
			primary: &fakeKV{downAfter: 10, lose: map[string]bool{"k10": true}},
			writes:  10, acked: 10, failedOver: true,
			failed: `sim.Assert: acknowledged write lost after failover: k10=v10, backup answers "404 Not Found"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := pair(t, tc.primary)
			if got := runClient(t, c, tc.writes); got != tc.failed {
				t.Errorf("the check failed with %q, want %q", got, tc.failed)
			}
			if len(c.acked) != tc.acked || c.failedOver != tc.failedOver {
				t.Errorf("%d writes acknowledged, failed over %v; want %d, %v", len(c.acked), c.failedOver, tc.acked, tc.failedOver)
			}
		})
	}
}

// TestPrimaryStarting: errors before the primary first answers mean it is
// still starting, not that it died.
func TestPrimaryStarting(t *testing.T) {
	primary := &fakeKV{down: true}
	c, _ := pair(t, primary)
	time.AfterFunc(4*failoverAfter*retryPause, func() { primary.setDown(false) })
	if got := runClient(t, c, 3); got != "" {
		t.Fatal(got)
	}
	if len(c.acked) != 3 || c.failedOver {
		t.Errorf("%d writes acknowledged, failed over %v; want 3, false", len(c.acked), c.failedOver)
	}
}

// TestFailoverWaitsForBackup: after the failover the backup is unreachable
// for a while (the client is cut off from both); the reads wait for it.
func TestFailoverWaitsForBackup(t *testing.T) {
	primary := &fakeKV{downAfter: 3}
	c, backup := pair(t, primary)
	backup.setDown(true)
	time.AfterFunc(300*time.Millisecond, func() { backup.setDown(false) })
	if got := runClient(t, c, 5); got != "" {
		t.Fatal(got)
	}
	if len(c.acked) != 3 || !c.failedOver {
		t.Errorf("%d writes acknowledged, failed over %v; want 3, true", len(c.acked), c.failedOver)
	}
}
