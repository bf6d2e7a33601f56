package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/rng"
)

// fsyncLoopN is how many write+fsync iterations one timed run of the
// fsyncloop guest makes; each is two disk operations.
const fsyncLoopN = 20000

// fsyncLoopRuns is how many times each side is timed; the fastest counts,
// since noise only ever adds time.
const fsyncLoopRuns = 3

// BenchmarkDiskFsyncLoop measures disk operations per second for a guest
// that appends 128 bytes and fsyncs, fsyncLoopN times, under the engine,
// and the same program built for the host on a tmpfs file (/dev/shm, or
// the temporary directory where there is none). Each side is timed with
// -n 0 too and that start-up cost is subtracted, so the figures are the
// loop's alone. ratio is how many times slower the engine is.
func BenchmarkDiskFsyncLoop(b *testing.B) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go toolchain")
	}
	dir := b.TempDir()
	wasm := filepath.Join(dir, "fsyncloop.wasm")
	native := filepath.Join(dir, "fsyncloop")
	for _, c := range []struct {
		out string
		env []string
	}{
		{wasm, []string{"GOOS=wasip1", "GOARCH=wasm"}},
		{native, nil},
	} {
		cmd := exec.Command(goCmd, "build", "-trimpath", "-o", c.out, "./testdata/guests/fsyncloop")
		cmd.Env = append(os.Environ(), c.env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", c.out, err, out)
		}
	}
	wasm = runnable(b, wasm, nil)
	e, err := New(filepath.Join(dir, "cache"))
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	sim := func(n int) time.Duration {
		spec := &Spec{
			Nodes:      []NodeSpec{{Name: "fsyncloop", Wasm: wasm, Args: []string{"-n", strconv.Itoa(n)}, Workload: true}},
			DurationNs: int64(time.Minute), LatencyNs: [2]int64{1e6, 1e6}, WatchdogNs: int64(time.Minute),
		}
		start := time.Now()
		res, err := e.Run(spec, 1, Options{})
		took := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != StatusPass {
			b.Fatalf("fsyncloop -n %d under the engine: %s %s", n, res.Status, res.Message)
		}
		return took
	}
	shm := "/dev/shm"
	if st, err := os.Stat(shm); err != nil || !st.IsDir() {
		shm = os.TempDir()
	}
	tmpfs, err := os.MkdirTemp(shm, "sf-diskbench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(tmpfs)
	host := func(n int) time.Duration {
		cmd := exec.Command(native, "-n", strconv.Itoa(n), "-file", filepath.Join(tmpfs, "fsyncloop.dat"))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		if err != nil {
			b.Fatalf("fsyncloop -n %d natively: %v\n%s", n, err, out)
		}
		return took
	}
	fastest := func(f func(int) time.Duration, n int) time.Duration {
		best := f(n)
		for i := 1; i < fsyncLoopRuns; i++ {
			best = min(best, f(n))
		}
		return best
	}
	sim(0) // compile outside the timing
	b.ResetTimer()
	var simOps, hostOps float64
	for i := 0; i < b.N; i++ {
		simLoop := fastest(sim, fsyncLoopN) - fastest(sim, 0)
		hostLoop := fastest(host, fsyncLoopN) - fastest(host, 0)
		simOps = 2 * fsyncLoopN / max(simLoop.Seconds(), 1e-9)
		hostOps = 2 * fsyncLoopN / max(hostLoop.Seconds(), 1e-9)
	}
	b.ReportMetric(simOps, "sim-ops/s")
	b.ReportMetric(hostOps, "native-ops/s")
	b.ReportMetric(hostOps/simOps, "ratio")
	b.Logf("fsyncloop on %s: %d iterations of write+fsync", tmpfs, fsyncLoopN)
}

// crashBenchFiles and crashBenchWrites shape the file system whose crash
// BenchmarkCrashWith measures: a few hundred pending writes across several
// files, some directory operations pending too.
const (
	crashBenchFiles   = 8
	crashBenchWrites  = 40 // pending writes per file
	crashBenchCrashes = 200
)

// crashBenchFS builds a node's disk as a crash finds it: eight 16 KiB
// segment files, durable, then per file 40 pending writes that alternate
// appends and overwrites of durable bytes, a pending truncate in one file,
// and pending creates and a rename in the strict directory.
func crashBenchFS(b *testing.B) (fs *disk.FS, pendingWrites int) {
	fs = disk.New(nil)
	fs.StrictDirs = true
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(fs.Mkdir(fs.Root(), "db"))
	must(fs.Sync(fs.Root()))
	dirIno, err := fs.Lookup(fs.Root(), "db", true)
	must(err)
	r := rng.New(1, "diskbench")
	seg := make([]byte, 16<<10)
	r.Fill(seg)
	files := make([]disk.Ino, crashBenchFiles)
	for i := range files {
		files[i], err = fs.Open(fs.Root(), fmt.Sprintf("db/seg-%d", i), disk.OCreate, true)
		must(err)
		_, err = fs.WriteAt(files[i], seg, 0)
		must(err)
		must(fs.Sync(files[i]))
	}
	must(fs.Sync(dirIno))
	rec := make([]byte, 300)
	for w := 0; w < crashBenchWrites; w++ {
		for i, ino := range files {
			r.Fill(rec)
			off := int64(len(seg) + (w/2)*len(rec)) // an append
			if w%2 == 1 {
				off = int64(r.Intn(len(seg) - len(rec))) // an overwrite
			}
			_, err := fs.WriteAt(ino, rec, off)
			must(err)
			pendingWrites++
			if i == 0 && w == crashBenchWrites/2 {
				must(fs.Truncate(ino, int64(len(seg)+len(rec))))
			}
		}
	}
	for i := 0; i < 4; i++ {
		_, err := fs.Open(fs.Root(), fmt.Sprintf("db/tmp-%d", i), disk.OCreate, true)
		must(err)
	}
	must(fs.Rename(fs.Root(), "db/tmp-0", fs.Root(), "db/manifest"))
	return fs, pendingWrites
}

// BenchmarkCrashWith measures what generating one crash state costs under
// reorder_writes with each fs_model (and with torn_writes alone, for
// comparison), on the file system of crashBenchFS. It reports the median
// time of CrashWith alone over crashBenchCrashes crashes, without building
// the file system, and how many pending operations a crash kept on average.
func BenchmarkCrashWith(b *testing.B) {
	for _, tc := range []struct {
		name  string
		rules disk.CrashRules
	}{
		{"torn_writes", disk.CrashRules{Torn: true}},
		{"ext4_ordered", disk.CrashRules{Reorder: true, Model: disk.ModelExt4Ordered}},
		{"ext4_ordered+torn", disk.CrashRules{Reorder: true, Torn: true, Model: disk.ModelExt4Ordered}},
		{"page_independent", disk.CrashRules{Reorder: true, Model: disk.ModelPageIndependent}},
		{"dir_reorder", disk.CrashRules{Reorder: true, Model: disk.ModelDirReorder}},
		{"dir_reorder+corrupt", disk.CrashRules{Reorder: true, Model: disk.ModelDirReorder, CorruptOnCrash: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			crashes := max(b.N, crashBenchCrashes)
			took := make([]time.Duration, crashes)
			var pending, kept int
			for i := range took {
				fs, n := crashBenchFS(b)
				pending = n
				runtime.GC() // the build's garbage is not the crash's cost
				start := time.Now()
				rep := fs.CrashWith(tc.rules, rng.New(uint64(i), "crashdisk"))
				took[i] = time.Since(start)
				kept += rep.Kept
			}
			// The median: a shared machine only ever adds time.
			slices.Sort(took)
			b.ReportMetric(float64(took[crashes/2].Nanoseconds()), "ns/crash")
			b.ReportMetric(float64(pending), "pending-writes")
			b.ReportMetric(float64(kept)/float64(crashes), "kept/crash")
		})
	}
}
