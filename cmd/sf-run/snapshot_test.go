package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
	"github.com/sf-dst/sf/lib/snapfile"
)

// realTime is the part of a replay's first line that is real time.
var realTime = regexp.MustCompile(`, [0-9.]+[µm]?s real\)`)

// snapshotAndContinue snapshots seed of world in dir at stopAt, continues
// the snapshot with -from, and checks that the continued run prints the
// uninterrupted replay's report and trace, real time aside, and that its
// seed record carries the uninterrupted run's determinism hash. It returns
// the snapshot's path.
func snapshotAndContinue(t *testing.T, dir, world, seed, stopAt string) string {
	t.Helper()
	snap := filepath.Join(t.TempDir(), "w.snap")
	r := sfRun(t, dir, "-c", world, "-seed", seed, "-stop-at", stopAt, "-snapshot", snap)
	r.WantExitClean(t, 0)
	if want := "seed " + seed + ": snapshot at step "; !strings.HasPrefix(r.Stdout, want) || !strings.Contains(r.Stdout, "continue it: sf-run -c "+world+" -from "+snap) {
		t.Fatalf("the report lacks %q or the line that continues it\n%s", want, r)
	}
	st, err := os.Stat(snap)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s seed %s at %s: %s", world, seed, stopAt, strings.SplitN(r.Stdout, "\n", 2)[0])
	t.Logf("snapshot file: %d bytes", st.Size())

	whole := sfRun(t, dir, "-c", world, "-seed", seed)
	from := sfRun(t, dir, "-c", world, "-from", snap)
	if from.Code != whole.Code {
		t.Fatalf("-from exited %d, the replay %d\n%s\n%s", from.Code, whole.Code, from, whole)
	}
	if a, b := realTime.ReplaceAllString(whole.Stdout, ""), realTime.ReplaceAllString(from.Stdout, ""); a != b {
		t.Errorf("-from printed another report or trace than the replay:\n%s\n%s", from, whole)
	}
	hash := func(r clitest.Result) string {
		for _, rec := range clitest.Records(t, r) {
			if rec["kind"] == "seed" {
				return fmt.Sprintf("%v seed %v", rec["determinism_hash"], rec["seed"])
			}
		}
		t.Fatalf("no seed record\n%s", r)
		return ""
	}
	a, b := hash(sfRun(t, dir, "-c", world, "-seed", seed, "-json")), hash(sfRun(t, dir, "-c", world, "-from", snap, "-json"))
	if a != b || !strings.HasSuffix(a, " seed "+seed) {
		t.Errorf("-from's seed record: determinism hash and seed %s, the replay's %s", b, a)
	}
	return snap
}

// TestSnapshotKVLog: kvlog's two nodes forked at 1s of a passing and of a
// failing seed, written to a file and continued from it, end as the seed's
// replay does; a snapshot is
// refused, with exit status 2 and a message naming why, when it is cut
// short, damaged, of another world, of another module build or of another
// sf version, and so are flags that do not go with it.
func TestSnapshotKVLog(t *testing.T) {
	tools.Need(t)
	dir := kvlogDir(t)
	const world = "seedfall.fixed.json"
	snap := snapshotAndContinue(t, dir, world, "3", "1s")
	// A failing seed of the world with the planted bug fails the same way
	// from its snapshot: same report, artifacts and exit status.
	failing := snapshotAndContinue(t, dir, "seedfall.json", "2", "1s")
	snapshotFaults(t, dir, failing)
	whole, from := sfRun(t, dir, "-c", world, "-seed", "3", "-inspect"), sfRun(t, dir, "-c", world, "-from", snap, "-inspect")
	from.WantExitClean(t, 0)
	if a, b := realTime.ReplaceAllString(whole.Stdout, ""), realTime.ReplaceAllString(from.Stdout, ""); a != b || !strings.Contains(b, "disks at the end of the run:") {
		t.Errorf("-from -inspect printed another trace or disk listing than -seed -inspect:\n%s\n%s", from, whole)
	}
	b, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	h, rest, err := snapfile.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := snapfile.Payload(h, rest)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rewrite := func(name string, change func(*snapfile.Header)) string {
		c := *h
		c.Modules = append([]snapfile.Module(nil), h.Modules...)
		change(&c)
		data, err := snapfile.Encode(c, payload)
		if err != nil {
			t.Fatal(err)
		}
		return write(name, data)
	}
	for _, c := range []struct {
		name  string
		file  string
		world string
		want  string
	}{
		{"cut short", write("cut.snap", b[:len(b)/2]), world, "corrupt: its compressed state"},
		{"cut in its header", write("head.snap", b[:20]), world, "corrupt: its header is cut short or damaged"},
		{"damaged", write("damaged.snap", flip(b, len(b)/3)), world, "corrupt"},
		{"not a snapshot", write("other.snap", []byte("{}\n")), world, "it does not start as an sf snapshot does"},
		{"missing", filepath.Join(tmp, "none.snap"), world, "no such file"},
		{"another world", snap, "seedfall.json", "it is a snapshot of another world: it was taken of seedfall.fixed.json"},
		{"another module build", rewrite("module.snap", func(c *snapfile.Header) { c.Modules[0].SHA256 = strings.Repeat("0", 64) }),
			world, "node server runs another module build: sha256 000000000000 in the snapshot"},
		{"another sf", rewrite("version.snap", func(c *snapfile.Header) { c.Version = "0.0.1" }), world,
			"it was written by sf 0.0.1, this is sf "},
	} {
		r := sfRun(t, dir, "-c", c.world, "-from", c.file)
		r.WantExitClean(t, 2)
		if !strings.HasPrefix(r.Stderr, "sf-run: -from ") || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("%s: stderr lacks %q\n%s", c.name, c.want, r)
		}
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-seed", "3", "-stop-at", "1h", "-snapshot", filepath.Join(tmp, "late.snap")}, "-stop-at 1h0m0s: seed 3 ended at t="},
		{[]string{"-seed", "3", "-snapshot", filepath.Join(tmp, "x.snap")}, "-snapshot FILE and -stop-at DURATION go together"},
		{[]string{"-seeds", "1-3", "-stop-at", "1s", "-snapshot", filepath.Join(tmp, "x.snap")}, "-snapshot needs -seed N"},
		{[]string{"-seed", "3", "-stop-at", "0s", "-snapshot", filepath.Join(tmp, "x.snap")}, "must be more than 0"},
		{[]string{"-from", snap, "-seed", "3"}, "-from does not take -seed"},
		{[]string{"-from", snap, "-check"}, "-from does not take -check"},
	} {
		r := sfRun(t, dir, append([]string{"-c", world}, c.args...)...)
		r.WantExitClean(t, 2)
		if !strings.Contains(r.Stderr, c.want) {
			t.Errorf("stderr lacks %q\n%s", c.want, r)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "late.snap")); !os.IsNotExist(err) {
		t.Errorf("a run that ended before -stop-at left a snapshot file: %v", err)
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0xff
	return c
}

// TestSnapshotRaftKV: a three-node raftkv world forked at 2.5s of a seed,
// with its elections and replication under way, continues from the file as
// the seed's replay does.
func TestSnapshotRaftKV(t *testing.T) {
	tools.Need(t)
	if testing.Short() {
		t.Skip("builds hashicorp/raft for wasm; runs without -short")
	}
	dir := t.TempDir()
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "raftkv", "seedfall.json"), filepath.Join(dir, "seedfall.json"))
	snapshotAndContinue(t, dir, "seedfall.json", "2", "2.5s")
}

// snapshotFaults continues failing, a snapshot of kvlog's seed 2 at 1s
// (which loses a write when the server crashes), with a schedule for the
// rest: with no faults it passes, with one crash it fails, and the failure's
// replay line is the command that continues the snapshot with the schedule.
func snapshotFaults(t *testing.T, dir, failing string) {
	t.Helper()
	tmp := t.TempDir()
	none, crash := filepath.Join(tmp, "none.json"), filepath.Join(tmp, "crash.json")
	if err := os.WriteFile(none, []byte(`{"faults": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(crash, []byte(`{"faults": [{"at": "2.75s", "kind": "crash", "node": "server", "until": "3.15s"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := sfRun(t, dir, "-c", "seedfall.json", "-from", failing, "-faults", none)
	r.WantExitClean(t, 0)
	if !strings.HasPrefix(r.Stdout, "ok  seed 2 passed") || strings.Contains(r.Stdout, "fault crash") {
		t.Errorf("continued with no faults: want a pass without a crash\n%s", r)
	}
	r = sfRun(t, dir, "-c", "seedfall.json", "-from", failing, "-faults", crash, "-json")
	r.WantExit(t, 1)
	for _, rec := range clitest.Records(t, r) {
		if rec["kind"] != "seed" {
			continue
		}
		if want := "sf-run -c seedfall.json -from " + failing + " -faults " + crash; rec["repro"] != want || rec["faults"] != float64(1) ||
			!strings.Contains(fmt.Sprint(rec["message"]), "acknowledged write lost") {
			t.Errorf("continued with a crash: record %v, want a lost write, 1 fault and repro %q", rec, want)
		}
	}
}

// TestSnapshotInspect: -snapshot FILE -inspect lists, after writing the
// file, each node's disk and the open descriptors of its running instance
// at the snapshot's moment: files with their offsets, listeners and
// connections with their state, a node that is down. The file is the one
// written without -inspect.
func TestSnapshotInspect(t *testing.T) {
	tools.Need(t)
	dir := kvlogDir(t)
	tmp := t.TempDir()
	for _, c := range []struct {
		stopAt string
		want   []string
	}{
		// Seed 3 runs its writes over one connection at 1s...
		{"1s", []string{"disks at the snapshot (step ", "data/kv.log ", "open descriptors at the snapshot (step ",
			"  server#1:\n", "  3  dir / (the disk's root, preopened)\n", "  4  file data/kv.log (read, write) at offset ",
			"  5  socket tcp listening on port 7000, 0 waiting to be accepted\n",
			"  6  socket tcp from client on port 7000, established, ", "  client#1:\n", "  4  socket tcp to server:7000, established, "}},
		// ...and at 3s its server is down (crashed at 2.75s until 3.16s)
		// while the client dials it again.
		{"3s", []string{"  server: down\n", "  client#1:\n", "  4  socket tcp to server:7000, connecting, 0 bytes unread\n"}},
	} {
		plain, inspected := filepath.Join(tmp, "plain-"+c.stopAt+".snap"), filepath.Join(tmp, "inspect-"+c.stopAt+".snap")
		sfRun(t, dir, "-c", "seedfall.fixed.json", "-seed", "3", "-stop-at", c.stopAt, "-snapshot", plain).WantExitClean(t, 0)
		r := sfRun(t, dir, "-c", "seedfall.fixed.json", "-seed", "3", "-stop-at", c.stopAt, "-snapshot", inspected, "-inspect")
		r.WantExitClean(t, 0)
		for _, want := range c.want {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("-stop-at %s -inspect: the listing lacks %q\n%s", c.stopAt, want, r)
			}
		}
		a, b := clitest.ReadFile(t, plain), clitest.ReadFile(t, inspected)
		if a != b {
			t.Errorf("-stop-at %s: the snapshot written with -inspect differs from the one without", c.stopAt)
		}
	}
}
