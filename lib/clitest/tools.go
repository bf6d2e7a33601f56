package clitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Tools are the sf commands a test binary builds once, in its TestMain, to
// run them as a user would.
type Tools struct {
	Root string // the repository root
	Dir  string // a temporary folder of the test binary, removed at its end
	// Bin is where the commands are built: the repository's bin, as make
	// build does, so that go build finds them up to date and links
	// nothing when make built them or another test binary did.
	Bin string
	// Skip says why the tests that need the commands cannot run, or is
	// empty. NeedBash, set before Main, makes a missing bash a reason.
	Skip     string
	NeedBash bool
}

// Main is the body of a TestMain in cmd/<command>: it finds the repository
// root two folders up, builds cmds ("sf-run", ...) into Bin with one go
// build, runs the tests and removes Dir, and returns the exit status.
// Without a Go toolchain (or bash) the tests still run, and those that call
// Need skip.
func (tl *Tools) Main(m *testing.M, cmds ...string) int {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "go.mod"))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot find the repository root: %v\n", err)
		return 1
	}
	tl.Root = root
	goCmd, err := exec.LookPath("go")
	if err != nil {
		tl.Skip = "no Go toolchain on PATH: the tests build the tools, and the tools build the guests, with `go`"
		return m.Run()
	}
	if _, err := exec.LookPath("bash"); err != nil && tl.NeedBash {
		tl.Skip = "no bash on PATH: the tests run pipelines and replay lines as a user types them"
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "sf-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	tl.Dir, tl.Bin = dir, filepath.Join(root, "bin")
	// The tests make hundreds of world folders, most of them running the
	// same few guests: one compilation cache for the whole test binary
	// compiles each module once instead of once per folder, which was
	// most of the tools' CPU time in the tests (issue 29).
	if os.Getenv("SF_CACHE_DIR") == "" {
		os.Setenv("SF_CACHE_DIR", filepath.Join(dir, "compiled"))
	}
	if len(cmds) > 0 {
		// One go build of all of them: it builds what they share once.
		args := []string{"build", "-o", tl.Bin + string(filepath.Separator)}
		for _, c := range cmds {
			args = append(args, "./cmd/"+c)
		}
		cmd := exec.Command(goCmd, args...)
		cmd.Dir = root
		// go build moves a command it links into Bin by a rename when its
		// work folder is on the same file system, and copies it over the
		// old one otherwise: a test binary of another package, running
		// the command meanwhile, could then start half a file. A work
		// folder inside Bin keeps it to the rename.
		work := filepath.Join(tl.Bin, ".go-work")
		if err := os.MkdirAll(work, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		cmd.Env = append(os.Environ(), "GOTMPDIR="+work)
		if b, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build of %v: %v\n%s", cmds, err, b)
			return 1
		}
	}
	return m.Run()
}

// Need skips the test when the commands could not be built.
func (tl *Tools) Need(t testing.TB) {
	t.Helper()
	if tl.Skip != "" {
		t.Skip(tl.Skip)
	}
}

// Path is where the built command name is.
func (tl *Tools) Path(name string) string { return filepath.Join(tl.Bin, name) }

// OnPath is the environment entry that puts the built commands first on
// PATH, for Cmd.Env.
func (tl *Tools) OnPath() string {
	return "PATH=" + tl.Bin + string(os.PathListSeparator) + os.Getenv("PATH")
}

// examplesMu guards the shared copies of Example.
var examplesMu sync.Mutex

// Example returns a folder of the test binary, the same for every test that
// asks for the example name, holding copies (CopyWorld) of its worlds, so
// that the example is built and compiled once per test binary. Tests that
// share it must not run in parallel, or must not read each other's
// artifacts.
func (tl *Tools) Example(t testing.TB, name string, worlds ...string) string {
	t.Helper()
	tl.Need(t)
	examplesMu.Lock()
	defer examplesMu.Unlock()
	dir := filepath.Join(tl.Dir, "examples", name)
	for _, w := range worlds {
		if _, err := os.Stat(filepath.Join(dir, w)); err != nil {
			CopyWorld(t, filepath.Join(tl.Root, "examples", name, w), filepath.Join(dir, w))
		}
	}
	return dir
}

// FreshExample copies worlds of examples/name into a new temporary folder of
// the test and returns it.
func (tl *Tools) FreshExample(t testing.TB, name string, worlds ...string) string {
	t.Helper()
	tl.Need(t)
	dir := t.TempDir()
	for _, w := range worlds {
		CopyWorld(t, filepath.Join(tl.Root, "examples", name, w), filepath.Join(dir, w))
	}
	return dir
}

// shared are the folders of Shared, by name.
var shared = map[string]*sharedDir{}

type sharedDir struct {
	once  sync.Once
	ready bool
	err   error
}

// Shared returns the folder Dir/name, the same for every test of the binary
// that asks for it, after setup filled it, once: with world files, or with
// builds the tests then share. A setup that failed (an error, or a test
// stopped inside it) fails every test that asks for the folder.
func (tl *Tools) Shared(t testing.TB, name string, setup func(dir string) error) string {
	t.Helper()
	tl.Need(t)
	examplesMu.Lock()
	s := shared[name]
	if s == nil {
		s = &sharedDir{}
		shared[name] = s
	}
	examplesMu.Unlock()
	dir := filepath.Join(tl.Dir, name)
	s.once.Do(func() {
		if s.err = os.MkdirAll(dir, 0o755); s.err == nil {
			s.err = setup(dir)
		}
		s.ready = s.err == nil
	})
	switch {
	case s.err != nil:
		t.Fatalf("setting up %s: %v", dir, s.err)
	case !s.ready:
		t.Fatalf("setting up %s failed in another test", dir)
	}
	return dir
}

// SeedfallLinks makes each dir/.seedfall/<sub> a link to links[sub], so that
// a test's own folder shares builds or compiled modules that one run made,
// while its seed artifacts stay its own.
func SeedfallLinks(t testing.TB, dir string, links map[string]string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".seedfall"), 0o755); err != nil {
		t.Fatal(err)
	}
	for sub, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, ".seedfall", sub)); err != nil {
			t.Fatal(err)
		}
	}
}
