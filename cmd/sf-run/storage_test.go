package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestStorageExamples: examples/bboltkv, pebblekv (v1 and v2) and badgerkv, each a
// storage library built through compat_overlay, keep every acknowledged
// write under crashes, torn writes and crash_on_io with their durable
// settings, and their planted unsafe setting is found; in each seedfall.kv.json
// the history of three concurrent clients is linearizable, and not without
// sync. bbolt builds in a few
// seconds; pebble and badger take up to a minute each on a loaded machine,
// so they run only without -short.
func TestStorageExamples(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	for _, tc := range []struct {
		example string
		long    bool
		seeds   string
	}{
		{"bboltkv", false, "1-3"},
		{"pebblekv", true, "1-2"},
		{"badgerkv", true, "1-2"},
	} {
		t.Run(tc.example, func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("builds a large storage library for wasm; runs without -short")
			}
			dir := t.TempDir()
			for _, w := range []string{"seedfall.json", "seedfall.nosync.json", "seedfall.kv.json"} {
				clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", tc.example, w), filepath.Join(dir, w))
			}
			r := sfRun(t, dir, "-c", "seedfall.json", "-seeds", tc.seeds)
			r.WantExit(t, 0)
			r = sfRun(t, dir, "-c", "seedfall.nosync.json", "-seeds", "1-6")
			r.WantExit(t, 1)
			if want := "acknowledged write lost"; !strings.Contains(r.Stdout, want) {
				t.Errorf("the report lacks %q\n%s", want, r)
			}
			// The kv world: three clients of raftkv's workload, their history
			// checked for linearizability; the sync setting off must fail it.
			r = sfRun(t, dir, "-c", "seedfall.kv.json", "-seeds", "1-2")
			r.WantExit(t, 0)
			r = sfRun(t, dir, "-c", "seedfall.kv.json", "-seeds", "1-4", "-set", `nodes[0].args=["-nosync"]`)
			r.WantExit(t, 1)
			if want := "is not linearizable (model kv)"; !strings.Contains(r.Stdout, want) {
				t.Errorf("the kv world without sync: the report lacks %q\n%s", want, r)
			}
			if tc.example == "bboltkv" {
				// Without net_overlay the client's dials all fail: every
				// operation ends unknown, and a history with nothing
				// completed is no pass.
				r = sfRun(t, dir, "-c", "seedfall.kv.json", "-seed", "1", "-set", "net_overlay=false")
				r.WantExit(t, 1)
				for _, want := range []string{"GAVE UP seed 1", "nothing to check: none of the 300 operations of the history completed", "does the workload reach the system it tests?"} {
					if !strings.Contains(r.Stdout, want) {
						t.Errorf("the kv world without its network: the report lacks %q\n%s", want, r)
					}
				}
			}
			switch tc.example {
			case "pebblekv":
				pebbleV2(t, dir)
			case "bboltkv":
				bboltCreate(t, dir)
			case "badgerkv":
				badgerSizes(t, dir)
			}
			if tc.example == "badgerkv" {
				badgerFlush(t, dir)
				badgerMemtableLog(t, dir)
			} else {
				strictDirs(t, dir, tc.example)
			}
		})
	}
}

// pebbleV2: the same server on pebble v2, built through its own shim,
// keeps every acknowledged write with pebble.Sync and loses some with
// pebble.NoSync.
func pebbleV2(t *testing.T, dir string) {
	for _, w := range []string{"seedfall.v2.json", "seedfall.v2nosync.json"} {
		clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "pebblekv", w), filepath.Join(dir, w))
	}
	r := sfRun(t, dir, "-c", "seedfall.v2.json", "-seeds", "1-2")
	r.WantExit(t, 0)
	r = runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-build"), "-c", "seedfall.v2.json")
	r.WantExit(t, 0)
	if want := "github.com/cockroachdb/pebble/v2@v2.1.7: pebble v2"; !strings.Contains(r.Stdout, want) {
		t.Errorf("sf-build does not say it used pebble v2's shim (%q)\n%s", want, r)
	}
	r = sfRun(t, dir, "-c", "seedfall.v2nosync.json", "-seeds", "1-6")
	r.WantExit(t, 1)
	if want := "acknowledged write lost"; !strings.Contains(r.Stdout, want) {
		t.Errorf("pebble v2 with NoSync: the report lacks %q\n%s", want, r)
	}
}

// strictDirs: the campaign's directory findings. Under strict_dirs a
// crash drops a directory entry that was never fsynced: bbolt never fsyncs
// the directory it creates its file in, and pebble v1's Open creates its
// directory without fsyncing the one above, so seed 5's one crash takes
// every acknowledged write. Synced (bbolt's server with -syncdir, pebble
// v2, whose Open syncs the parents it creates) the same seed passes.
func strictDirs(t *testing.T, dir, example string) {
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", example, "seedfall.strict_dirs.json"), filepath.Join(dir, "seedfall.strict_dirs.json"))
	r := sfRun(t, dir, "-c", "seedfall.strict_dirs.json", "-seed", "5")
	r.WantExit(t, 1)
	if want := "acknowledged write lost"; !strings.Contains(r.Stdout, want) {
		t.Errorf("%s under strict_dirs: the report lacks %q\n%s", example, want, r)
	}
	if example == "bboltkv" {
		r = sfRun(t, dir, "-c", "seedfall.strict_dirs.json", "-seed", "5", "-set", `nodes[0].args=["-syncdir"]`)
	} else {
		r = sfRun(t, dir, "-c", "seedfall.v2.json", "-seed", "5", "-set", "faults.strict_dirs=true")
	}
	r.WantExit(t, 0)
}

// badgerMemtableLog: D2. badger writes its memtable log through a shared
// mapping, so each sync writes its last page back whole, records
// acknowledged before included; a crash during that write-back
// (corrupt_on_crash) damages one of them, and badger's replay stops at the
// bad checksum without an error. The pin is seed 4, one crash.
func badgerMemtableLog(t *testing.T, dir string) {
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "badgerkv", "seedfall.corrupt.json"), filepath.Join(dir, "seedfall.corrupt.json"))
	pin := filepath.Join(tools.Root, "examples", "badgerkv", ".seedfall", "pinned", "seedfall.corrupt", "seed-4.json")
	r := sfRun(t, dir, "-c", "seedfall.corrupt.json", "-seed", "4", "-faults", pin)
	r.WantExit(t, 1)
	for _, want := range []string{"faults before the failure (1):", "crash corrupted data/00001.mem at byte 721", "acknowledged write lost: k14=v14"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("badger's memtable log: the report lacks %q\n%s", want, r)
		}
	}
}

// badgerFlush: the campaign's badger finding. A memtable flush creates its
// level 0 table and records it in the MANIFEST without fsyncing the
// directory (compactions do fsync it), so under strict_dirs a crash leaves
// a MANIFEST naming a table file that is gone, and badger never opens
// again. The pin is seed 2, shrunk to three crashes.
func badgerFlush(t *testing.T, dir string) {
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "badgerkv", "seedfall.strict_dirs.json"), filepath.Join(dir, "seedfall.strict_dirs.json"))
	pin := filepath.Join(tools.Root, "examples", "badgerkv", ".seedfall", "pinned", "seedfall.strict_dirs", "seed-2.json")
	r := sfRun(t, dir, "-c", "seedfall.strict_dirs.json", "-seed", "2", "-faults", pin)
	r.WantExit(t, 1)
	for _, want := range []string{"server: open: file does not exist for table 2", "gave up on"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("badger under strict_dirs: the report lacks %q\n%s", want, r)
		}
	}
}

// bboltCreate: the campaign's bbolt finding. A crash during bbolt's first
// write of a new database file leaves a file that no later Open can use:
// with the first meta page cut Open finds no database, with fewer than two
// pages it refuses the file's size, and with the meta pages but not the
// root page the first transaction panics. The pins in examples/bboltkv
// are seed 2 and the panic (seed 1 of the world at crash_on_io 0.3). A disk
// that fills during that write leaves the same kind of file.
func bboltCreate(t *testing.T, dir string) {
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "bboltkv", "seedfall.create.json"), filepath.Join(dir, "seedfall.create.json"))
	for seed, open := range map[string]string{"2": "server: open: invalid database", "11": "server: open: file size too small 100443"} {
		r := sfRun(t, dir, "-c", "seedfall.create.json", "-seed", seed)
		r.WantExit(t, 1)
		for _, want := range []string{"crash server during disk op #1 (data/kv.db)", open, "gave up on k1 after 30s"} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("seed %s: the report lacks %q\n%s", seed, want, r)
			}
		}
	}
	pin := filepath.Join(tools.Root, "examples", "bboltkv", ".seedfall", "pinned", "seedfall.create", "seed-1.json")
	r := sfRun(t, dir, "-c", "seedfall.create.json", "-seed", "1", "-faults", pin)
	r.WantExit(t, 1)
	if want := "panic: assertion failed: Page expected to be: 3, but self identifies as 0"; !strings.Contains(r.Stdout, want) {
		t.Errorf("the pin of seed 1: the report lacks %q\n%s", want, r)
	}

	// The same half-made file with no crash at all: a disk that fills
	// during the creating write. 128 KiB holds two of its four 64 KiB
	// pages, the meta pages, and the restart reads zeros for the freelist.
	r = sfRun(t, dir, "-c", "seedfall.create.json", "-seed", "1", "-set", "faults.crash_on_io=0", "-set", "faults.disk_bytes=131072")
	r.WantExit(t, 1)
	for _, want := range []string{"faults before the failure (0)", "server#1: server: open: write data/kv.db: No space left on device", "server#2 panic: invalid freelist page: 0"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("a full disk at creation: the report lacks %q\n%s", want, r)
		}
	}
}

// badgerSizes: badger with 4 MiB value log files and memtables passes; with
// its default sizes it maps each value log file at 2 GiB, which a wasm32
// program cannot hold, and the failure names the file, the size, the limit
// and the options to change. The file itself, a 2 GiB truncate, is allowed.
func badgerSizes(t *testing.T, dir string) {
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "badgerkv", "seedfall.4mib.json"), filepath.Join(dir, "seedfall.4mib.json"))
	r := sfRun(t, dir, "-c", "seedfall.4mib.json", "-seeds", "1-2")
	r.WantExit(t, 0)
	r = sfRun(t, dir, "-c", "seedfall.json", "-seed", "1", "-set", "supervise=false",
		"-set", `nodes[0].args=["-vlog-size","1073741823","-memtable-size","67108864"]`)
	r.WantExit(t, 1)
	for _, want := range []string{
		"mmap refused in server#1: data/000001.vlog, 2147483646 bytes from offset 0, more than the 1073741824 bytes of memory a wasm32 program has",
		"mmap of 2147483646 bytes: more than the 1073741824 bytes of memory a wasm32 program has under sf",
		"badger maps each value log file at twice WithValueLogFileSize and each memtable's log at twice WithMemTableSize: make them smaller",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("badger's default sizes: the trace lacks %q\n%s", want, r)
		}
	}
	if strings.Contains(r.Stdout, "File too large") {
		t.Errorf("badger's default sizes: the 2 GiB value log file was refused\n%s", r)
	}
}
