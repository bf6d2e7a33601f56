package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
	"github.com/sf-dst/sf/lib/engine/core"
)

// mmcheckSrc is a node that uses mmap, msync and flock through both
// package syscall and golang.org/x/sys/unix, which only build for wasip1
// with compat_overlay. Its first incarnation checks what it can see at once
// and leaves stores behind, synced and not; the world crashes it, and the
// second incarnation checks what the crash kept.
const mmcheckSrc = `package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/sf-dst/sf/sim"
	"golang.org/x/sys/unix"
)

const page = 4096

func check(ok bool, format string, args ...any) {
	sim.Assert(ok, fmt.Sprintf(format, args...))
}

func must(err error, what string) {
	check(err == nil, "%s: %v", what, err)
}

func main() {
	if _, err := os.Stat("data/first-done"); err == nil {
		second()
		return
	}
	must(os.MkdirAll("data", 0o755), "mkdir")
	f, err := os.OpenFile("data/pages", os.O_RDWR|os.O_CREATE, 0o644)
	must(err, "open")
	must(f.Truncate(3*page), "truncate")
	must(f.Sync(), "sync")
	fd := int(f.Fd())

	must(unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB), "flock")
	g, err := os.Open("data/pages")
	must(err, "open again")
	err = syscall.Flock(int(g.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	check(errors.Is(err, syscall.EWOULDBLOCK), "a second lock on a locked file: %v, want EWOULDBLOCK", err)

	ro, err := unix.Mmap(fd, 0, 3*page, unix.PROT_READ, unix.MAP_SHARED)
	must(err, "mmap read-only")
	_, err = f.WriteAt([]byte("written"), 100)
	must(err, "write")
	check(string(ro[100:107]) == "written", "a read-only mapping does not see a write: %q", ro[100:107])

	rw, err := syscall.Mmap(fd, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	must(err, "mmap read-write")
	copy(rw[page:], "synced")
	must(unix.Msync(rw[page:2*page], unix.MS_SYNC), "msync")
	copy(rw[2*page:], "unsynced")
	buf := make([]byte, 8)
	_, err = f.ReadAt(buf, 2*page)
	must(err, "read")
	check(string(buf) == "unsynced", "a read does not see a store through a mapping: %q", buf)
	check(string(ro[2*page:2*page+8]) == "unsynced", "a mapping does not see a store through another: %q", ro[2*page:2*page+8])
	// A store after the last write-back: the page is dirty at the crash.
	copy(rw[2*page+100:], "late")
	must(os.WriteFile("data/first-done", nil, 0o644), "mark")
	fmt.Println("mmcheck: first incarnation checked, waiting for the crash")
	time.Sleep(time.Hour)
}

func second() {
	data, err := os.ReadFile("data/pages")
	must(err, "read after the crash")
	check(len(data) == 3*page, "size %d after the crash", len(data))
	check(string(data[100:107]) == "written", "msync(MS_SYNC) did not make the earlier write durable: %q", data[100:107])
	check(string(data[page:page+6]) == "synced", "a store synced with msync was lost: %q", data[page:page+6])
	check(bytes.Equal(data[2*page:2*page+8], make([]byte, 8)) && bytes.Equal(data[2*page+100:2*page+104], make([]byte, 4)),
		"an unsynced store survived the crash: %q, %q", data[2*page:2*page+8], data[2*page+100:2*page+104])
	f, err := os.OpenFile("data/pages", os.O_RDWR, 0)
	must(err, "open after the crash")
	must(unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB), "the lock did not go with the crash")
	fmt.Println("mmcheck: after the crash, synced stores kept, unsynced lost, lock free")
}
`

// mmstressSrc stores through a shared writable mapping that reaches two and
// a bit pages past the end of its file (stores there never reach the file),
// writes to the file under the mapping, and msyncs, in an order drawn from
// the program's own random stream, checking after every msync that the file
// holds what the mapping holds. Crashes and mmap_early_writeback cut in, so
// the crash path finds dirty pages too.
const mmstressSrc = `package main

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"syscall"
	"time"

	"github.com/sf-dst/sf/sim"
)

const page, pages = 4096, 48

func must(err error, what string) {
	sim.Assert(err == nil, fmt.Sprintf("%s: %v", what, err))
}

func main() {
	must(os.MkdirAll("data", 0o755), "mkdir")
	f, err := os.OpenFile("data/big", os.O_RDWR|os.O_CREATE, 0o644)
	must(err, "open")
	const size = (pages-2)*page - 1000
	must(f.Truncate(size), "truncate")
	m, err := syscall.Mmap(int(f.Fd()), 0, pages*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	must(err, "mmap")
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	buf := make([]byte, size)
	for i := 0; ; i++ {
		switch r.IntN(5) {
		case 0, 1, 2:
			at := r.IntN(len(m))
			for j := at; j < min(len(m), at+1+r.IntN(3*page)); j++ {
				m[j] = byte(r.Uint32())
			}
		case 3:
			b := bytes.Repeat([]byte{byte(i)}, 1+r.IntN(2*page))
			_, err := f.WriteAt(b, r.Int64N(size-int64(len(b))))
			must(err, "write")
		case 4:
			must(syscall.Msync(m, syscall.MS_SYNC), "msync")
			n, _ := f.ReadAt(buf, 0)
			sim.Assert(n == size && bytes.Equal(buf, m[:size]), "after msync the file differs from the mapping")
			fmt.Printf("msync %d: crc %08x\\n", i, crc32.ChecksumIEEE(buf))
		}
		time.Sleep(time.Millisecond)
	}
}
`

// mmbigSrc makes a 3 GiB sparse file, writes and reads past its first 2 GiB,
// and asks for a mapping of 2 GiB of it, which a wasm32 program cannot hold.
const mmbigSrc = `package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/sf-dst/sf/sim"
)

func main() {
	f, err := os.OpenFile("big", os.O_RDWR|os.O_CREATE, 0o644)
	sim.Assert(err == nil, fmt.Sprint("open: ", err))
	sim.Assert(f.Truncate(3<<30) == nil, "a truncate to 3 GiB failed")
	_, err = f.WriteAt([]byte("far"), 5<<29)
	sim.Assert(err == nil, fmt.Sprint("write at 2.5 GiB: ", err))
	b := make([]byte, 3)
	_, err = f.ReadAt(b, 5<<29)
	sim.Assert(err == nil && string(b) == "far", fmt.Sprintf("read at 2.5 GiB: %q, %v", b, err))
	_, err = syscall.Mmap(int(f.Fd()), 0, 2<<30, syscall.PROT_READ, syscall.MAP_SHARED)
	sim.Assert(errors.Is(err, syscall.ENOMEM), fmt.Sprint("a 2 GiB mapping: ", err))
	fmt.Println("mmbig:", err)
}
`

// compatModule writes a module outside the workspace with the mmcheck node
// and a world that builds it with compat_overlay, and returns its folder.
func compatModule(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mm")
	sum, err := os.ReadFile(filepath.Join(tools.Root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	var sysSum []string
	for _, line := range strings.Split(string(sum), "\n") {
		if strings.HasPrefix(line, "golang.org/x/sys v0.50.0") {
			sysSum = append(sysSum, line)
		}
	}
	clitest.WriteFile(t, filepath.Join(dir, "go.mod"), []byte(fmt.Sprintf(
		"module example.com/mm\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/sf-dst/sf/sim v0.0.0\n\tgolang.org/x/sys v0.50.0\n)\n\nreplace github.com/sf-dst/sf/sim => %s\n",
		filepath.Join(tools.Root, "sim"))))
	clitest.WriteFile(t, filepath.Join(dir, "go.sum"), []byte(strings.Join(sysSum, "\n")+"\n"))
	clitest.WriteFile(t, filepath.Join(dir, "mmcheck", "main.go"), []byte(mmcheckSrc))
	clitest.WriteFile(t, filepath.Join(dir, "mmstress", "main.go"), []byte(mmstressSrc))
	clitest.WriteFile(t, filepath.Join(dir, "mmbig", "main.go"), []byte(mmbigSrc))
	clitest.WriteFile(t, filepath.Join(dir, "crash.faults.json"), []byte(`{"seed": 1, "faults": [{"at": "500ms", "kind": "crash", "node": "mm", "until": "600ms"}]}`))
	world := func(name string, compat bool, faults map[string]any) {
		clitest.WriteJSON(t, filepath.Join(dir, name), map[string]any{
			"compat_overlay": compat,
			"nodes":          []map[string]any{{"name": "mm", "pkg": "./mmcheck"}},
			"workload":       map[string]any{"name": "client", "pkg": filepath.Join(tools.Root, "lib", "engine", "testdata", "guests", "sleeper")},
			"duration":       "2s",
			"faults":         faults,
		})
	}
	world("seedfall.json", true, map[string]any{"crash_per_sec": 0.01})
	world("nocompat.json", false, map[string]any{"crash_per_sec": 0.01})
	// Crashes soon after the first incarnation is done, at seeded times.
	crashes := func(wb float64) map[string]any {
		return map[string]any{"crash_per_sec": 2, "restart_after": []string{"10ms", "100ms"}, "mmap_early_writeback": wb}
	}
	world("early.json", true, crashes(1))
	world("noearly.json", true, crashes(0))
	clitest.WriteJSON(t, filepath.Join(dir, "stress.json"), map[string]any{
		"compat_overlay": true,
		"nodes":          []map[string]any{{"name": "mm", "pkg": "./mmstress"}},
		"workload":       map[string]any{"name": "client", "pkg": filepath.Join(tools.Root, "lib", "engine", "testdata", "guests", "sleeper")},
		"duration":       "3s",
		"faults":         map[string]any{"crash_per_sec": 2, "restart_after": []string{"10ms", "100ms"}, "mmap_early_writeback": 0.5},
	})
	clitest.WriteJSON(t, filepath.Join(dir, "big.json"), map[string]any{
		"compat_overlay": true,
		"workload":       map[string]any{"name": "big", "pkg": "./mmbig"},
		"duration":       "1s",
	})
	return dir
}

// TestMmapTooLarge: a file may grow far past what a program's memory holds,
// as a sparse file, but a mapping longer than that memory is ENOMEM, and
// the trace names the file, the size asked and the limit.
func TestMmapTooLarge(t *testing.T) {
	tools.Need(t)
	dir := compatModule(t)
	r := sfRun(t, dir, "-c", "big.json", "-seed", "1")
	r.WantExit(t, 0)
	for _, want := range []string{
		"mmap refused in big#1: big, 2147483648 bytes from offset 0, more than the 1073741824 bytes of memory a wasm32 program has",
		"big#1: mmbig: mmap of 2147483648 bytes: more than the 1073741824 bytes of memory a wasm32 program has under sf: Out of memory",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the trace lacks %q\n%s", want, r)
		}
	}
}

// TestCompatOverlay: the fast end-to-end test of compat_overlay. A module
// outside the workspace that calls mmap and flock through syscall and
// golang.org/x/sys/unix does not build for wasip1 on its own; with
// compat_overlay it builds (sf-build names the shims), a mapping stays
// coherent with the file, msync(MS_SYNC) makes stores durable, a crash
// loses the unsynced ones and releases the lock, and the module cache is
// not written.
func TestCompatOverlay(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := compatModule(t)
	r := runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-build"), "-c", "nocompat.json", "-q")
	r.WantExit(t, 2)
	if !strings.Contains(r.Stderr, "undefined: syscall.Mmap") && !strings.Contains(r.Stderr, "undefined: unix.Mmap") {
		t.Errorf("without compat_overlay the build should fail on Mmap\n%s", r)
	}
	// ... and say what builds it (issue 29).
	if hint := regexp.MustCompile(`\nwasip1 has no mmap or flock, and compat_overlay shims what this build lacks \(((syscall|unix)\.\w+, ){0,2}(syscall|unix)\.\w+(, \.\.\.)?\): set "compat_overlay": true in the world file \(docs/compat.md\)\n$`); !hint.MatchString(r.Stderr) {
		t.Errorf("the build error does not end suggesting compat_overlay\n%s", r)
	}

	r = runBin(t, clitest.Cmd{Dir: dir}, tools.Path("sf-build"), "-c", "seedfall.json")
	r.WantExit(t, 0)
	for _, want := range []string{
		"compat  mmcheck: syscall: generic",
		"compat  mmcheck: golang.org/x/sys@v0.50.0: generic",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("sf-build does not say %q\n%s", want, r)
		}
	}
	type manifest struct {
		Modules []struct {
			Node, SHA256 string
			Compat       []string
		}
	}
	var man manifest
	if err := json.Unmarshal([]byte(r.Stdout), &man); err != nil {
		t.Fatalf("no manifest: %v\n%s", err, r)
	}
	if len(man.Modules) != 2 || len(man.Modules[0].Compat) != 2 {
		t.Fatalf("want the mm module's two shims in the manifest\n%s", r)
	}
	// A copy of the world in another folder builds the same bytes, so
	// that wazero's cache has its machine code already: go build records
	// the shimmed copy's folder in the module's build information.
	other := runBin(t, clitest.Cmd{Dir: compatModule(t)}, tools.Path("sf-build"), "-c", "seedfall.json")
	other.WantExit(t, 0)
	var man2 manifest
	if err := json.Unmarshal([]byte(other.Stdout), &man2); err != nil || len(man2.Modules) != 2 {
		t.Fatalf("no manifest of two modules from the copy: %v\n%s", err, other)
	}
	if got, want := man2.Modules[0].SHA256, man.Modules[0].SHA256; got != want {
		t.Errorf("the copy of the world in another folder built the mm module as %s, the first folder as %s", got, want)
	}
	copies, _ := filepath.Glob(filepath.Join(dir, ".seedfall", "build", "compat", "golang.org", "x", "sys@v0.50.0-sf*", "unix", "seedfall_wasip1.go"))
	if len(copies) != 1 {
		t.Errorf("want one copy of golang.org/x/sys with its shim in the build store, found %q", copies)
	}

	r = sfRun(t, dir, "-c", "seedfall.json", "-seed", "1", "-faults", "crash.faults.json")
	r.WantExit(t, 0)
	for _, want := range []string{
		"mmcheck: first incarnation checked",
		"fault crash mm#1",
		"mmcheck: after the crash, synced stores kept, unsynced lost, lock free",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the trace lacks %q\n%s", want, r)
		}
	}
}

// TestMmapWriteWatch: the dirty pages of a mapping come out the same
// whether the host's kernel watches the guest's memory for writes or the
// host compares every page (SF_WRITE_WATCH=off): the same trace, the same
// early writebacks at the crashes, the same determinism hash; and every
// msync leaves the file as the mapping holds it.
func TestMmapWriteWatch(t *testing.T) {
	tools.Need(t)
	dir := compatModule(t)
	watched := sfRun(t, dir, "-c", "stress.json", "-seed", "1")
	watched.WantExit(t, 0)
	compared := runBin(t, clitest.Cmd{Dir: dir, Env: []string{core.WriteWatchEnv + "=off"}}, tools.Path("sf-run"), "-c", "stress.json", "-seed", "1")
	compared.WantExit(t, 0)
	for _, want := range []string{"fault mmap_early_writeback on mm#", "fault crash mm#", "mm#1: msync "} {
		if !strings.Contains(watched.Stdout, want) {
			t.Errorf("the trace lacks %q\n%s", want, watched)
		}
	}
	// The first line says how long the run took in real time.
	trim := func(s string) string { _, rest, _ := strings.Cut(s, "\n"); return rest }
	if trim(watched.Stdout) != trim(compared.Stdout) {
		t.Errorf("the run differs with %s=off\nwatched:\n%s\ncompared:\n%s", core.WriteWatchEnv, watched.Stdout, compared.Stdout)
	}
}

// TestMmapEarlyWriteback: at a crash, a dirty page of a shared writable
// mapping is lost, unless mmap_early_writeback decides the kernel had
// written it back already; that decision is a recorded fault that replays,
// and without it the same schedule passes.
func TestMmapEarlyWriteback(t *testing.T) {
	tools.Need(t)
	t.Parallel()
	dir := compatModule(t)
	r := sfRun(t, dir, "-c", "noearly.json", "-seed", "1")
	r.WantExit(t, 0)
	if !strings.Contains(r.Stdout, "fault crash mm#1") {
		t.Fatalf("seed 1 does not crash mm after its first incarnation\n%s", r)
	}

	r = sfRun(t, dir, "-c", "early.json", "-seed", "1")
	r.WantExit(t, 1)
	if want := "an unsynced store survived the crash"; !strings.Contains(r.Stdout, want) {
		t.Errorf("the report lacks %q\n%s", want, r)
	}
	sched := filepath.Join(dir, ".seedfall", "early", "seed-1.faults.json")
	data, err := os.ReadFile(sched)
	if err != nil {
		t.Fatalf("no schedule: %v\n%s", err, r)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	faults, _ := s["faults"].([]any)
	var kept []any
	found := 0
	for _, f := range faults {
		m, _ := f.(map[string]any)
		if m["kind"] == "mmap_early_writeback" {
			found++
			if m["path"] != "data/pages" || m["offset"] != float64(8192) || m["node"] != "mm" {
				t.Errorf("early writeback fault %v, want mm's data/pages at offset 8192", m)
			}
			continue
		}
		kept = append(kept, f)
	}
	if found != 1 {
		t.Fatalf("%d mmap_early_writeback faults in the schedule, want 1 (one dirty page)\n%s", found, data)
	}
	r = sfRun(t, dir, "-c", "early.json", "-seed", "1", "-faults", sched)
	r.WantExit(t, 1)
	s["faults"] = kept
	without := filepath.Join(dir, "without.faults.json")
	clitest.WriteJSON(t, without, s)
	r = sfRun(t, dir, "-c", "early.json", "-seed", "1", "-faults", without)
	r.WantExit(t, 0)
}

// TestMmapSnapshot: a snapshot holds the host's shadow of every shared
// writable mapping, so a run continued from it writes back the same dirty
// pages, and ends with the same trace and determinism hash, as the run
// never stopped.
func TestMmapSnapshot(t *testing.T) {
	tools.Need(t)
	dir := compatModule(t)
	snapshotAndContinue(t, dir, "stress.json", "1", "1500ms")
}
