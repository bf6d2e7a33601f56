package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestEtcdRaft: examples/etcdraft, three go.etcd.io/raft/v3 nodes whose log
// is etcd's own WAL and snapshotter (etcd server v3.7.3's storage/wal and
// etcdserver/api/snap) over a TCP transport of the example's own. Under
// -short it runs one seed of the crash, torn write and partition world.
// Without -short: reads through ReadIndex stay linearizable over three
// seeds; local reads are caught by the kv model; in liveness mode every node
// serves reads again once the faults stop; and the pinned schedule of
// seedfall.bytetear.json, two crashes whose second tears a WAL record
// inside a 512-byte sector, leaves a node that never starts again ("walpb:
// crc mismatch"), while with faults.torn_sector=512, the guarantee etcd's
// torn-write detection assumes, the same schedule passes; and the pins of
// seedfall.strict_dirs.json and seedfall.dir_reorder.json fail, and pass
// with the servers' -syncdir.
func TestEtcdRaft(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	src := filepath.Join(tools.Root, "examples", "etcdraft")
	dir := t.TempDir()
	worlds, err := filepath.Glob(filepath.Join(src, "seedfall*.json"))
	if err != nil || len(worlds) == 0 {
		t.Fatalf("no worlds in %s: %v", src, err)
	}
	for _, w := range worlds {
		clitest.CopyWorld(t, w, filepath.Join(dir, filepath.Base(w)))
	}
	if testing.Short() {
		r := sfRun(t, dir, "-c", "seedfall.json", "-seed", "1")
		r.WantExit(t, 0)
		for _, want := range []string{"server: replayed snapshot at", "client: 3 clients done"} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("the trace lacks %q\n%s", want, r)
			}
		}
		return
	}
	sfRun(t, dir, "-c", "seedfall.json", "-seeds", "1-3").WantExit(t, 0)

	r := sfRun(t, dir, "-c", "seedfall.stale.json", "-seeds", "1-3")
	r.WantExit(t, 1)
	if want := "is not linearizable (model kv)"; !strings.Contains(r.Stdout, want) {
		t.Errorf("the report lacks %q\n%s", want, r)
	}

	sfRun(t, dir, "-c", "seedfall.liveness.json", "-seeds", "1-2").WantExit(t, 0)
	r = sfRun(t, dir, "-c", "seedfall.liveness.json", "-seed", "1")
	r.WantExit(t, 0)
	for _, n := range []string{"n1", "n2", "n3"} {
		if want := "check#1: client: final read of k2 = "; !strings.Contains(r.Stdout, want) || !strings.Contains(r.Stdout, " from "+n+" after ") {
			t.Errorf("the finally check did not read from %s\n%s", n, r)
		}
	}

	// The directories etcd never fsyncs: under strict_dirs one crash drops
	// the WAL's first segment and the node starts again as a new member;
	// under dir_reorder two members do, re-form the cluster from nothing,
	// and acknowledged writes are gone. -syncdir fsyncs them.
	syncdir := []string{}
	for i := range 3 {
		syncdir = append(syncdir, "-set", fmt.Sprintf(`nodes[%d].args=["-peers","n1,n2,n3","-syncdir"]`, i))
	}
	for _, p := range []struct{ world, seed, want string }{
		{"seedfall.strict_dirs", "1", "panic: tocommit(10) is out of range [lastIndex(3)]"},
		{"seedfall.dir_reorder", "10", "is not linearizable (model kv)"},
	} {
		pin := filepath.Join(src, ".seedfall", "pinned", p.world, "seed-"+p.seed+".json")
		r = sfRun(t, dir, "-c", p.world+".json", "-seed", p.seed, "-faults", pin)
		r.WantExit(t, 1)
		if !strings.Contains(r.Stdout, p.want) || !strings.Contains(r.Stdout, "restarted false") {
			t.Errorf("pin %s: the report lacks %q after a restart as a new member\n%s", pin, p.want, r)
		}
		r = sfRun(t, dir, append([]string{"-c", p.world + ".json", "-seed", p.seed, "-faults", pin}, syncdir...)...)
		r.WantExit(t, 0)
	}

	pin := filepath.Join(src, ".seedfall", "pinned", "seedfall.bytetear", "seed-1.json")
	r = sfRun(t, dir, "-c", "seedfall.bytetear.json", "-seed", "1", "-faults", pin)
	r.WantExit(t, 1)
	for _, want := range []string{"liveness: check did not finish", "server: fail-stop: start: read wal snapshot records: walpb: crc mismatch"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("pin %s: the report lacks %q\n%s", pin, want, r)
		}
	}
	r = sfRun(t, dir, "-c", "seedfall.bytetear.json", "-seed", "1", "-faults", pin, "-set", "faults.torn_sector=512")
	r.WantExit(t, 0)
	if strings.Contains(r.Stdout, "crc mismatch") {
		t.Errorf("with torn_sector 512 the WAL still failed its checksum\n%s", r)
	}
}

// TestEtcdRaftDiskFaults: the disk faults of examples/etcdraft (not under
// -short). The pin of seedfall.read_corrupt.json, one flipped bit in one read
// of a member's newest snapshot, makes etcd rename that snapshot aside
// (.broken) and the member, whose WAL has a gap before a snapshot it got from
// the leader, never starts again; with the servers' -restore-broken, which
// puts back a .broken file that reads back whole, seed 3 goes down the same
// path and the member starts again.
// And a crash that flips a bit in the WAL's unsynced tail (corrupt_on_crash)
// makes two members of seed 3 stop on etcd's checksum: a liveness failure
// with etcd's fail-stop, and with -on-corrupt refuse a clear stop that the
// finally check accepts, the cluster's majority being gone.
func TestEtcdRaftDiskFaults(t *testing.T) {
	tools.Need(t)
	if testing.Short() {
		t.Skip("builds etcd's packages for wasm; TestEtcdRaft covers the example under -short")
	}
	t.Parallel()
	src := filepath.Join(tools.Root, "examples", "etcdraft")
	dir := t.TempDir()
	for _, w := range []string{"seedfall.liveness.json", "seedfall.read_corrupt.json"} {
		clitest.CopyWorld(t, filepath.Join(src, w), filepath.Join(dir, w))
	}
	args := func(extra ...string) []string {
		var a []string
		for i := range 3 {
			a = append(a, "-set", fmt.Sprintf(`nodes[%d].args=["-peers","n1,n2,n3"%s]`, i, quoted(extra)))
		}
		return a
	}

	pin := filepath.Join(src, ".seedfall", "pinned", "seedfall.read_corrupt", "seed-3.json")
	r := sfRun(t, dir, "-c", "seedfall.read_corrupt.json", "-seed", "3", "-faults", pin)
	r.WantExit(t, 1)
	for _, want := range []string{"liveness: check did not finish", "renamed to a broken snap file", "wal: slice bounds out of range"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("pin %s: the report lacks %q\n%s", pin, want, r)
		}
	}
	// The flag changes the servers' runs enough that the pinned schedule
	// no longer leads n2 to a snapshot from the leader; seed 3's own faults
	// still do, and show the member set aside, stopped, and restored.
	r = sfRun(t, dir, append([]string{"-c", "seedfall.read_corrupt.json", "-seed", "3"}, args("-restore-broken")...)...)
	r.WantExit(t, 0)
	for _, want := range []string{"renamed to a broken snap file", "wal: slice bounds out of range", "which reads back whole"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("-restore-broken: the trace lacks %q\n%s", want, r)
		}
	}

	corrupt := []string{"-c", "seedfall.liveness.json", "-seed", "3", "-set", "faults.corrupt_on_crash=true", "-set", "faults.crash_on_io=0.005"}
	r = sfRun(t, dir, corrupt...)
	r.WantExit(t, 1)
	for _, want := range []string{"liveness: check did not finish", "crash corrupted data/member/wal/", "walpb: crc mismatch"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("corrupt_on_crash: the report lacks %q\n%s", want, r)
		}
	}
	r = sfRun(t, dir, append(corrupt, args("-on-corrupt", "refuse")...)...)
	r.WantExit(t, 0)
	for _, want := range []string{"server: refusing to serve: ", "stopped on a corrupt wal: ERR corrupt", "a majority of the members stopped on corrupt WALs"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("-on-corrupt refuse: the trace lacks %q\n%s", want, r)
		}
	}
}

// quoted renders extra server arguments as the rest of a JSON array.
func quoted(extra []string) string {
	var b strings.Builder
	for _, e := range extra {
		fmt.Fprintf(&b, ",%q", e)
	}
	return b.String()
}
