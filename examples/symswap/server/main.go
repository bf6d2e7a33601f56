// Command server is the system under test of the symswap example. It
// publishes numbered generations of a document the way many deploy tools,
// package managers and config stores do: it writes the new generation to
// its own file, points a fresh symlink at it, and renames the symlink over
// `current`, so that readers always see one whole generation.
//
// Usage:
//
//	server [-addr :7000] [-dir data] [-fsync-dir]
//
// It speaks a line protocol over TCP:
//
//	PUBLISH   ->  PUBLISHED <n>                the next generation is current
//	CURRENT   ->  CURRENT <n>                  current names gen-<n>, which is whole
//	              MISSING <target>             current names a file that does not exist
//	              CORRUPT <target>: <reason>   current names a file with other content
//	              NONE                         there is no current
//
// Publishing generation n:
//
//  1. write gen-n and fsync it, so its content is on disk;
//  2. create the symlink current.tmp -> gen-n;
//  3. rename current.tmp over current;
//  4. with -fsync-dir, fsync the directory;
//  5. remove gen-(n-1) and answer PUBLISHED n.
//
// Without -fsync-dir (the planted bug) the directory is never fsynced, so
// the entries of steps 1, 2, 3 and 5 are in the page cache only. A file
// system that writes directory entries back in order (ext4's journal) keeps
// a prefix of them at a crash, which is always a whole generation. One that
// writes them back in any order (btrfs, ext2) can keep the rename without
// the create of gen-n, or the removal of gen-(n-1) without the rename:
// current then points at nothing.
//
// The first start publishes generation 0 and fsyncs every directory it
// made, in both modes, so current exists from then on.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/sf-dst/sf/sim"
)

const (
	currentName = "current"
	tmpName     = "current.tmp"
	genPrefix   = "gen-"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	flags := flag.NewFlagSet("server", flag.ContinueOnError)
	addr := flags.String("addr", ":7000", "address to listen on")
	dir := flags.String("dir", "data", "directory of the generations; created if missing")
	fsyncDir := flags.Bool("fsync-dir", false, "fsync the directory before acknowledging a generation (the fix)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	s := &store{dir: *dir, fsyncDir: *fsyncDir}
	if err := s.open(); err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	ln, err := sim.Listen(*addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	fmt.Printf("server: listening on %s\n", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintf(os.Stderr, "server: accept: %v\n", err)
			return 1
		}
		go s.serve(c)
	}
}

// store publishes generations in dir. mu serialises publications.
type store struct {
	mu       sync.Mutex
	dir      string
	fsyncDir bool
	gen      int // the generation current names
}

// open finds the current generation, or publishes generation 0 durably when
// there is none.
func (s *store) open() error {
	st := s.current()
	fmt.Printf("server: found %s\n", st)
	sim.Event("found", map[string]any{"state": st.String()})
	switch {
	case st.kind == stateOK:
		s.gen = st.gen
		return nil
	case st.kind != stateNone:
		// Leave it as found: the workload asks and reports it.
		s.gen = st.gen
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	if err := s.publish(0); err != nil {
		return err
	}
	// The first generation is made durable in both modes, including the
	// entry of the directory itself.
	if err := syncDir(s.dir); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(filepath.Clean(s.dir))); err != nil {
		return err
	}
	s.gen = 0
	fmt.Println("server: published generation 0")
	return nil
}

func genName(n int) string { return genPrefix + strconv.Itoa(n) }

func content(n int) string { return fmt.Sprintf("generation %d\n", n) }

// publish makes generation n current, fsyncing the directory first when
// fsyncDir is set.
func (s *store) publish(n int) error {
	p := func(name string) string { return filepath.Join(s.dir, name) }
	f, err := os.OpenFile(p(genName(n)), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, content(n)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	// A crash between the symlink and the rename leaves current.tmp behind.
	if err := os.Remove(p(tmpName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Symlink(genName(n), p(tmpName)); err != nil {
		return err
	}
	if err := os.Rename(p(tmpName), p(currentName)); err != nil {
		return err
	}
	if s.fsyncDir {
		if err := syncDir(s.dir); err != nil {
			return err
		}
	}
	if n > 0 {
		if err := os.Remove(p(genName(n - 1))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

type stateKind int

const (
	stateOK      stateKind = iota // current names a whole generation
	stateNone                     // there is no current
	stateMissing                  // current names a file that does not exist
	stateCorrupt                  // current names a file that is not a whole generation
)

// state is what current holds.
type state struct {
	kind   stateKind
	gen    int
	target string
	reason string
}

// String is the reply to CURRENT, without the newline.
func (st state) String() string {
	switch st.kind {
	case stateOK:
		return "CURRENT " + strconv.Itoa(st.gen)
	case stateNone:
		return "NONE"
	case stateMissing:
		return "MISSING " + st.target
	}
	return "CORRUPT " + st.target + ": " + st.reason
}

// current reads the symlink current and the file it names.
func (s *store) current() state {
	target, err := os.Readlink(filepath.Join(s.dir, currentName))
	if errors.Is(err, fs.ErrNotExist) {
		return state{kind: stateNone}
	}
	if err != nil {
		return state{kind: stateCorrupt, target: currentName, reason: err.Error()}
	}
	n, err := strconv.Atoi(strings.TrimPrefix(target, genPrefix))
	if err != nil || !strings.HasPrefix(target, genPrefix) {
		return state{kind: stateCorrupt, target: target, reason: "not a generation"}
	}
	data, err := os.ReadFile(filepath.Join(s.dir, target))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return state{kind: stateMissing, gen: n, target: target}
	case err != nil:
		return state{kind: stateCorrupt, gen: n, target: target, reason: err.Error()}
	case string(data) != content(n):
		return state{kind: stateCorrupt, gen: n, target: target, reason: fmt.Sprintf("holds %q", data)}
	}
	return state{kind: stateOK, gen: n, target: target}
}

func (s *store) serve(c net.Conn) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if _, err := io.WriteString(c, s.handle(sc.Text())+"\n"); err != nil {
			return
		}
	}
}

// handle answers one request line.
func (s *store) handle(line string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch line {
	case "PUBLISH":
		n := s.gen + 1
		if err := s.publish(n); err != nil {
			// The directory is in an unknown state: stop, and let the
			// restart read what is on disk.
			fmt.Fprintf(os.Stderr, "server: publish %d: %v\n", n, err)
			os.Exit(1)
		}
		s.gen = n
		return "PUBLISHED " + strconv.Itoa(n)
	case "CURRENT":
		return s.current().String()
	}
	return fmt.Sprintf("ERR unknown command %q", line)
}
