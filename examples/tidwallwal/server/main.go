// Command server is the system under test of the tidwallwal example: an
// append-only log on github.com/tidwall/wal with its default NoSync: false
// ("Fsync after every write", the library's durable setting). It speaks the
// walcheck protocol, so walcheck's client checks it:
//
//	APPEND <i> <n>  ->  OK once log.Write(last+1, record) (write + fsync) returned
//	SCAN            ->  every entry from FirstIndex to LastIndex, read with log.Read
//
// wal.Open reads the last segment through; when it cannot (it returns
// ErrCorrupt for an entry whose length runs past the end of the file) the
// server reports it as the property "the log opens after a crash" and exits,
// since the library offers no way to open the rest of the log.
//
// Usage:
//
//	server [-addr :7000] [-dir data/wal] [-segment-bytes 1048576]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/sf-dst/sf/examples/walcheck/record"
	"github.com/sf-dst/sf/sim"
	"github.com/tidwall/wal"
)

func main() {
	addr := flag.String("addr", ":7000", "address to listen on")
	dir := flag.String("dir", "data/wal", "the log's directory")
	segment := flag.Int("segment-bytes", 1<<20, "target size of one segment file; small, so that runs rotate segments")
	flag.Parse()
	log, err := wal.Open(*dir, &wal.Options{NoSync: false, SegmentSize: *segment})
	sim.Always(err == nil, "the log opens after a crash", map[string]string{"error": fmt.Sprint(err)})
	if err != nil {
		die("open", err)
	}
	s := &server{log: log}
	lines, err := s.scan()
	sim.Event("opened", map[string]any{"records": len(lines), "error": fmt.Sprint(err)})
	sim.Sometimes(len(lines) > 0, "the log reopened with records in it")
	ln, err := sim.Listen(*addr)
	if err != nil {
		die("listen", err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			die("accept", err)
		}
		go s.serve(c)
	}
}

type server struct {
	mu  sync.Mutex
	log *wal.Log
}

// scan reads every entry of the log and describes it; it stops at the first
// error and returns it with the entries read before it.
func (s *server) scan() ([]string, error) {
	first, err := s.log.FirstIndex()
	if err != nil {
		return nil, err
	}
	last, err := s.log.LastIndex()
	if err != nil || first == 0 {
		return nil, err
	}
	var lines []string
	for i := first; i <= last; i++ {
		data, err := s.log.Read(i)
		if err != nil {
			return lines, fmt.Errorf("read entry %d: %w", i, err)
		}
		lines = append(lines, record.Describe(data))
	}
	return lines, nil
}

func (s *server) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if _, err := io.WriteString(c, s.handle(strings.TrimSuffix(line, "\n"))); err != nil {
			return
		}
	}
}

func (s *server) handle(line string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	verb, rest, _ := strings.Cut(line, " ")
	switch verb {
	case "APPEND":
		is, ns, _ := strings.Cut(rest, " ")
		i, err1 := strconv.Atoi(is)
		n, err2 := strconv.Atoi(ns)
		if err1 != nil || err2 != nil {
			return "ERR usage: APPEND <i> <n>\n"
		}
		last, err := s.log.LastIndex()
		if err != nil {
			die("last index", err)
		}
		if err := s.log.Write(last+1, record.Make(i, n)); err != nil {
			// The write or its fsync failed: what is on disk is unknown, so
			// restart from it rather than go on.
			die("append", err)
		}
		return "OK\n"
	case "SCAN":
		lines, err := s.scan()
		if err != nil {
			sim.Event("scan error", map[string]any{"records": len(lines), "error": err.Error()})
		}
		return fmt.Sprintf("RECORDS %d\n", len(lines)) + strings.Join(append(lines, ""), "\n")
	}
	return "ERR unknown request\n"
}

func die(op string, err error) {
	fmt.Fprintf(os.Stderr, "server: %s: %v\n", op, err)
	os.Exit(1)
}
