//go:build linux

package engine

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/disk"
	"github.com/sf-dst/sf/lib/rng"
)

// The workload of BenchmarkDiskMemory: diskMemBytes written in records of
// diskMemRecord bytes, each followed by an fsync, into segment files of
// diskMemSegment bytes, as a write-ahead log with one commit per record.
// SF_DISKMEM_BYTES overrides diskMemBytes, to measure other sizes.
const (
	diskMemBytes   = 1 << 30
	diskMemRecord  = 4000 // not a page multiple: most records straddle a page
	diskMemSegment = 64 << 20
)

// diskMemChildEnv tells a re-executed test binary to run one workload and
// print its figures instead of measuring.
const diskMemChildEnv = "SF_DISKMEM_CHILD"

// BenchmarkDiskMemory measures what a node's disk costs in host memory per
// byte it holds. Each workload runs in a child process of its own (this
// test binary, re-executed), so that the peak resident set is the disk's
// and not what earlier benchmarks left behind:
//
//   - append_fsync: diskMemBytes appended and fsynced record by record;
//   - overwrite_mix: the same bytes written, but one record in four
//     overwrites a random earlier place of its segment instead of
//     appending, so the disk holds 3/4 of what was written.
//
// held is the disk's usage at the end (disk.FS.Usage). live-x is the heap in
// use after a garbage collection over held; peak-x is the growth of the
// peak resident set (VmHWM) over held, which includes the garbage the Go
// collector lets accumulate between collections.
func BenchmarkDiskMemory(b *testing.B) {
	if w := os.Getenv(diskMemChildEnv); w != "" {
		diskMemChild(b, w)
		return
	}
	total := int64(diskMemBytes)
	if s := os.Getenv("SF_DISKMEM_BYTES"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			b.Fatalf("SF_DISKMEM_BYTES=%q: want a positive number of bytes", s)
		}
		total = n
	}
	for _, w := range []string{"append_fsync", "overwrite_mix"} {
		b.Run(w, func(b *testing.B) {
			cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkDiskMemory$", "-test.benchtime=1x")
			cmd.Env = append(os.Environ(), diskMemChildEnv+"="+w+":"+strconv.FormatInt(total, 10))
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("%s child: %v\n%s", w, err, out)
			}
			m := parseDiskMem(b, out)
			held := m["held"]
			if held <= 0 {
				b.Fatalf("%s child: nothing held\n%s", w, out)
			}
			b.ReportMetric(float64(held)/(1<<20), "held-MiB")
			b.ReportMetric(float64(m["written"])/(1<<20), "written-MiB")
			b.ReportMetric(float64(m["live"])/float64(held), "live-x")
			b.ReportMetric(float64(m["peak"])/float64(held), "peak-x")
			b.ReportMetric(float64(m["ns"])/float64(m["ops"]), "ns/disk-op")
		})
	}
}

// parseDiskMem reads the "diskmem k=v ..." line a child prints.
func parseDiskMem(b *testing.B, out []byte) map[string]int64 {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "diskmem" {
			continue
		}
		m := map[string]int64{}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatalf("child line %q: %v", sc.Text(), err)
			}
			m[k] = n
		}
		return m
	}
	b.Fatalf("child printed no diskmem line:\n%s", out)
	return nil
}

// diskMemChild runs one workload, spec "name:bytes", and prints its figures.
func diskMemChild(b *testing.B, spec string) {
	name, size, _ := strings.Cut(spec, ":")
	total, err := strconv.ParseInt(size, 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	overwrite := name == "overwrite_mix"
	fs := disk.New(nil)
	r := rng.New(1, "diskmem")
	rec := make([]byte, diskMemRecord)
	r.Fill(rec)
	runtime.GC()
	heap0, rss0 := heapInuse(), procStatus(b, "VmHWM")
	start := time.Now()
	var written, ops int64
	var ino disk.Ino
	var segSize int64
	for seg := 0; written < total; seg++ {
		ino, err = fs.Open(fs.Root(), fmt.Sprintf("seg-%05d", seg), disk.OCreate, true)
		if err != nil {
			b.Fatal(err)
		}
		segSize = 0
		for segSize+diskMemRecord <= diskMemSegment && written < total {
			// A fresh record each time, as a guest's buffer would be.
			rec[0], rec[len(rec)-1] = byte(ops), byte(ops>>8)
			off := segSize
			if overwrite && (ops/2)%4 == 3 && segSize > diskMemRecord {
				off = int64(r.Intn(int(segSize - diskMemRecord)))
			}
			if _, err := fs.WriteAt(ino, rec, off); err != nil {
				b.Fatal(err)
			}
			if err := fs.Sync(ino); err != nil {
				b.Fatal(err)
			}
			if off == segSize {
				segSize += diskMemRecord
			}
			written += diskMemRecord
			ops += 2
		}
	}
	took := time.Since(start)
	peak := procStatus(b, "VmHWM") - rss0
	runtime.GC()
	live := heapInuse() - heap0
	runtime.KeepAlive(fs)
	fmt.Printf("diskmem held=%d written=%d live=%d peak=%d ns=%d ops=%d\n", fs.Usage(), written, live, peak, took.Nanoseconds(), ops)
}

func heapInuse() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

// procStatus returns a size field of /proc/self/status, such as VmHWM, in
// bytes.
func procStatus(b *testing.B, field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("/proc/self/status %s: %v", field, err)
			}
			return kb << 10
		}
	}
	b.Fatalf("/proc/self/status has no %s", field)
	return 0
}
