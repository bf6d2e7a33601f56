package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sf-dst/sf/lib/build"
)

// The tests of this package run a handful of guests under many engines.
// Each guest is built once per test binary, and every engine compiles into
// one compilation cache, so that a guest is compiled once rather than once
// per test: under -race wazero's compiler is itself instrumented, and the
// compiles were most of the package's time (issue 29).

// testDir holds the built guests and the compilation cache, for the whole
// test binary.
var testDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sf-engine-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testCache is the compilation cache the tests share: $SF_CACHE_DIR when it
// is set (make test shares it across packages), a folder of the test binary
// otherwise.
func testCache() string {
	if d := os.Getenv(build.CacheDirEnv); d != "" {
		return d
	}
	return filepath.Join(testDir, "compiled")
}

// sharedBuild is one guest build of the test binary.
type sharedBuild struct {
	once sync.Once
	dir  string // where it builds, its own folder
	wasm string
	err  error
}

var (
	sharedBuildsMu sync.Mutex
	sharedBuilds   = map[string]*sharedBuild{}
)

// buildShared builds the package at pkg (a path relative to this folder)
// for wasip1 with the given go build flags, once per test binary, and
// returns the module's path. Tests must not write to it. It skips the test
// when there is no go command.
func buildShared(t testing.TB, pkg string, flags ...string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on PATH to build the guest")
	}
	key := pkg + "\x00" + strings.Join(flags, "\x00")
	sharedBuildsMu.Lock()
	b := sharedBuilds[key]
	if b == nil {
		b = &sharedBuild{dir: filepath.Join(testDir, "guests", fmt.Sprint(len(sharedBuilds)))}
		sharedBuilds[key] = b
	}
	sharedBuildsMu.Unlock()
	b.once.Do(func() {
		if b.err = os.MkdirAll(b.dir, 0o755); b.err != nil {
			return
		}
		out := filepath.Join(b.dir, filepath.Base(pkg)+".wasm")
		args := append(append([]string{"build"}, flags...), "-o", out, pkg)
		cmd := exec.Command(goCmd, args...)
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		if o, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build of %s: %v\n%s", pkg, err, o)
			return
		}
		b.wasm = out
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.wasm
}

// Exported for the tests of package engine_test, which share the guests
// and the cache too.
var (
	BuildSharedForTest = buildShared
	SharedCacheForTest = testCache
)
