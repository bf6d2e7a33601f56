// Command backup is the backup of the liveness example's primary/backup
// counter. It applies the adds the primary forwards, in order, and keeps them
// in a log file that it replays when it starts.
//
// Usage:
//
//	backup [-peer :7001] [-addr :7000] [-dir .]
//
// Both addresses speak the same line protocol; the primary uses -peer and
// the finally check uses -addr:
//
//	ADD <seq> <id> <n>  ->  OK <seq>     apply add number seq, then acknowledge it
//	GET                 ->  VALUE <total>
//	anything else       ->  ERR <reason>
//
// seq is the add's position in the primary's sequence, counted from 1. The
// backup applies an add only if it is the next one; an add it already holds
// is acknowledged again without being applied, so the primary can resend an
// add whose acknowledgement it lost. The backup never sees the client's
// retries: which request ids count as one add is the primary's business.
//
// Every add is appended to the log as "<seq> <id> <n>\n" and fsynced before
// it is acknowledged. A last line that a crash cut short is dropped at start.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/sf-dst/sf/sim"
)

const logName = "adds.log"

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	peer := fs.String("peer", ":7001", "address the primary forwards adds to")
	addr := fs.String("addr", ":7000", "address for reading the total")
	dir := fs.String("dir", ".", "directory of the log")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	b, err := open(filepath.Join(*dir, logName))
	if err != nil {
		fmt.Fprintf(os.Stderr, "backup: %v\n", err)
		return 1
	}
	fmt.Printf("backup: recovered %d adds, total %d\n", b.seq, b.total)
	errs := make(chan error, 2)
	for _, a := range []string{*peer, *addr} {
		ln, err := sim.Listen(a)
		if err != nil {
			fmt.Fprintf(os.Stderr, "backup: %v\n", err)
			return 1
		}
		go func() { errs <- b.serveAll(ln) }()
	}
	fmt.Printf("backup: listening on %s for the primary and %s for reads\n", *peer, *addr)
	fmt.Fprintf(os.Stderr, "backup: accept: %v\n", <-errs)
	return 1
}

// backup is the replicated state and its log. mu guards every field.
type backup struct {
	mu    sync.Mutex
	log   *os.File
	seq   int // adds applied
	total int
}

// open replays the log at path, cuts a torn last line, and leaves the file
// positioned for appends.
func open(path string) (*backup, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	b := &backup{log: f}
	good, err := b.replay(f)
	if err == nil {
		err = f.Truncate(good)
	}
	if err == nil {
		_, err = f.Seek(good, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	return b, nil
}

// replay applies the log's complete lines and returns their length in bytes.
func (b *backup) replay(r io.Reader) (int64, error) {
	var good int64
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			return good, nil // at the end, or a line the crash cut short
		}
		if err != nil {
			return good, err
		}
		seq, _, n, ok := parseAdd(strings.TrimSuffix(line, "\n"))
		if !ok || seq != b.seq+1 {
			return good, fmt.Errorf("bad line %q after add %d", line, b.seq)
		}
		b.seq, b.total = seq, b.total+n
		good += int64(len(line))
	}
}

// parseAdd parses "<seq> <id> <n>".
func parseAdd(s string) (seq int, id string, n int, ok bool) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return 0, "", 0, false
	}
	seq, err1 := strconv.Atoi(f[0])
	n, err2 := strconv.Atoi(f[2])
	return seq, f[1], n, err1 == nil && err2 == nil && seq > 0 && n > 0
}

// add applies add number seq if it is the next one, durably, and returns the
// reply to the primary.
func (b *backup) add(seq int, id string, n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case seq <= b.seq:
		// Already applied: the primary lost our acknowledgement.
	case seq == b.seq+1:
		if _, err := fmt.Fprintf(b.log, "%d %s %d\n", seq, id, n); err != nil {
			die("append", err)
		}
		if err := b.log.Sync(); err != nil {
			die("fsync", err)
		}
		b.seq, b.total = seq, b.total+n
	default:
		return fmt.Sprintf("ERR expected add %d, got %d\n", b.seq+1, seq)
	}
	return fmt.Sprintf("OK %d\n", seq)
}

// die ends the process when the log cannot be written: the end of the log is
// then unknown, and replay at the next start finds it.
func die(op string, err error) {
	fmt.Fprintf(os.Stderr, "backup: %s %s: %v\n", op, logName, err)
	os.Exit(1)
}

// serveAll serves every connection ln accepts until Accept fails.
func (b *backup) serveAll(ln net.Listener) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go b.serve(c)
	}
}

func (b *backup) serve(c net.Conn) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if _, err := io.WriteString(c, b.handle(sc.Text())); err != nil {
			return
		}
	}
}

// handle answers one request line; the reply ends with a newline.
func (b *backup) handle(line string) string {
	if line == "GET" {
		b.mu.Lock()
		defer b.mu.Unlock()
		return fmt.Sprintf("VALUE %d\n", b.total)
	}
	if rest, ok := strings.CutPrefix(line, "ADD "); ok {
		if seq, id, n, ok := parseAdd(rest); ok {
			return b.add(seq, id, n)
		}
		return "ERR usage: ADD <seq> <id> <n>\n"
	}
	return fmt.Sprintf("ERR unknown request %q\n", line)
}
