package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"testing"
)

// fakePrimary answers "ADD <id> <n>" with OK and the total, after refusing
// the first refuse adds with "ERR backup unavailable". It records every id it
// applies; with dedup it applies each id once.
type fakePrimary struct {
	refuse int
	dedup  bool

	mu    sync.Mutex
	total int
	ids   []string
}

func (f *fakePrimary) start(t *testing.T) string {
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
					fmt.Fprint(c, f.handle(sc.Text()))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func (f *fakePrimary) handle(line string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var id string
	var n int
	if _, err := fmt.Sscanf(line, "ADD %s %d", &id, &n); err != nil {
		return "ERR bad request\n"
	}
	if f.refuse > 0 {
		f.refuse--
		return "ERR backup unavailable\n"
	}
	if !f.dedup || !slices.Contains(f.ids, id) {
		f.ids = append(f.ids, id)
		f.total += n
	}
	return fmt.Sprintf("OK %d\n", f.total)
}

func TestWorkloadRetriesUntilOK(t *testing.T) {
	f := &fakePrimary{refuse: 3}
	if err := workload(f.start(t), "c", 4, 0, false); err != nil {
		t.Fatal(err)
	}
	if want := []string{"c-1", "c-2", "c-3", "c-4"}; !slices.Equal(f.ids, want) {
		t.Errorf("primary applied %q, want %q", f.ids, want)
	}
}

func TestWorkloadWritesProgress(t *testing.T) {
	t.Chdir(t.TempDir())
	f := &fakePrimary{}
	if err := workload(f.start(t), "c", 2, 0, true); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(progressName)
	if want := "add 0 c-1\nack 0\nadd 1 c-2\nack 1\n"; string(got) != want {
		t.Errorf("progress is %q, want %q", got, want)
	}
}

// TestWorkloadResumes starts the client on the progress files that a crash
// can leave behind.
func TestWorkloadResumes(t *testing.T) {
	const (
		done2    = "add 0 c-1\nack 0\nadd 1 c-2\nack 1\n"
		inFlight = "add 0 c-1\nack 0\nadd 1 c-2\n"
		rest     = "add 2 c-3\nack 2\nadd 3 c-4\nack 3\n"
	)
	tests := []struct {
		name, progress string
		sent           []string // ids the resumed client sends
		after          string   // the progress file after the run
	}{
		{"fresh", "", []string{"c-1", "c-2", "c-3", "c-4"}, done2 + rest},
		{"after an ack", done2, []string{"c-3", "c-4"}, done2 + rest},
		{"add in flight", inFlight, []string{"c-2", "c-3", "c-4"}, inFlight + "add 1 c-2\nack 1\n" + rest},
		{"torn line", "add 0 c-1\nack 0\nadd 1 c-", []string{"c-2", "c-3", "c-4"}, done2 + rest},
		{"all done", done2 + rest, nil, done2 + rest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := os.WriteFile(progressName, []byte(tc.progress), 0o644); err != nil {
				t.Fatal(err)
			}
			f := &fakePrimary{}
			if err := workload(f.start(t), "c", 4, 0, true); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.ids, tc.sent) {
				t.Errorf("client sent %q, want %q", f.ids, tc.sent)
			}
			if got, _ := os.ReadFile(progressName); string(got) != tc.after {
				t.Errorf("progress after the run is %q, want %q", got, tc.after)
			}
		})
	}
}

// TestResendNeedsDedup replays what a crash in the middle of an add does:
// the primary applied c-2, the client never saw the OK, and the restarted
// client sends c-2 again. Only a primary that deduplicates ends at 4.
func TestResendNeedsDedup(t *testing.T) {
	for _, tc := range []struct {
		dedup bool
		total int
	}{{false, 5}, {true, 4}} {
		t.Run(fmt.Sprintf("dedup=%v", tc.dedup), func(t *testing.T) {
			t.Chdir(t.TempDir())
			f := &fakePrimary{dedup: tc.dedup}
			f.handle("ADD c-1 1")
			f.handle("ADD c-2 1") // the add the crash interrupted reached the primary
			if err := os.WriteFile(progressName, []byte("add 0 c-1\nack 0\nadd 1 c-2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := workload(f.start(t), "c", 4, 0, true); err != nil {
				t.Fatal(err)
			}
			if f.total != tc.total {
				t.Errorf("primary total is %d after 4 adds, want %d", f.total, tc.total)
			}
		})
	}
}

func TestBadProgress(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile(progressName, []byte("add 0 c-1\nbogus\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := workload("127.0.0.1:1", "c", 4, 0, true)
	if want := `progress: bad line "bogus\n"`; err == nil || err.Error() != want {
		t.Errorf("workload: %v, want %q", err, want)
	}
}
