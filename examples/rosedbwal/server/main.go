// Command server is the system under test of the rosedbwal example: an
// append-only log on github.com/rosedblabs/wal, opened with Sync: true, the
// library's documented setting for "durability of a single write operation"
// (its Options: "Sync being true means write followed by fsync"). It speaks
// the walcheck protocol, so walcheck's client checks it:
//
//	APPEND <i> <n>  ->  OK once wal.Write (write + fsync) returned
//	SCAN            ->  every record a fresh wal.NewReader reads, in order
//
// At start it opens the log and reads it through once, as rosedb does when
// it rebuilds its index. The reader stops at the first error other than
// io.EOF; what the server does then is -on-error:
//
//   - "stop" serves the records read before the error and appends after
//     them, as a program that treats a damaged tail as the end of the log
//     does. The library has no call to cut a damaged tail off, so the next
//     append lands after the damaged bytes, where no reader reaches it.
//   - "exit" refuses to start, as rosedb does (its Open returns the error).
//   - "repair" cuts the log at the end of the last record read (truncates
//     that segment file, removes any later one, fsyncs both) and opens it
//     again: the workaround a user can write outside the library, which lets
//     the workload look past the damaged-tail problem for others.
//
// Usage:
//
// With -reread N, a read of the log that stops on an error is done again, up
// to N times, until one gets to the end or two in a row stop at the same
// record, and the one that got furthest counts: a checksum error from a read
// that flipped a bit (read_corrupt) is not the log's, and reading again gets
// past it, while a damaged record stops every read. Without it (the
// default) a read is done once.
//
// Usage:
//
//	server [-addr :7000] [-dir data/wal] [-segment-bytes 1048576] [-on-error stop|exit|repair] [-reread N]
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/rosedblabs/wal"
	"github.com/sf-dst/sf/examples/walcheck/record"
	"github.com/sf-dst/sf/sim"
)

func main() {
	addr := flag.String("addr", ":7000", "address to listen on")
	dir := flag.String("dir", "data/wal", "the log's directory")
	segment := flag.Int64("segment-bytes", 1<<20, "size of one segment file; small, so that runs rotate segments")
	onError := flag.String("on-error", "stop", "what a read error at start does: stop (serve what was read), exit, or repair (cut the log there)")
	reread := flag.Int("reread", 0, "read the log again up to this many times after an error, until two reads agree")
	flag.Parse()
	if *onError != "stop" && *onError != "exit" && *onError != "repair" {
		die("flags", fmt.Errorf("-on-error %q: want stop, exit or repair", *onError))
	}
	opts := wal.Options{DirPath: *dir, SegmentSize: *segment, SegmentFileExt: ".SEG", Sync: true}
	log, err := wal.Open(opts)
	if err != nil {
		die("open", err)
	}
	s := &server{log: log, reread: *reread}
	lines, end, err := s.replay()
	sim.Event("opened", map[string]any{"records": len(lines), "error": fmt.Sprint(err)})
	sim.Sometimes(len(lines) > 0, "the log reopened with records in it")
	switch {
	case err != nil && *onError == "exit":
		die("read the log", err)
	case err != nil && *onError == "repair":
		if err := log.Close(); err != nil {
			die("close", err)
		}
		if err := cut(opts, end); err != nil {
			die("repair", err)
		}
		if s.log, err = wal.Open(opts); err != nil {
			die("open after repair", err)
		}
		lines, _, err = s.replay()
		sim.Event("repaired", map[string]any{"records": len(lines), "error": fmt.Sprint(err)})
	}
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
	mu     sync.Mutex
	log    *wal.WAL
	reread int
}

// replay reads the whole log (readOnce), and after an error reads it again,
// up to s.reread times, until a read gets to the end or two reads in a row
// stop at the same record. It keeps the read that got furthest: a flipped
// bit on read only ever stops a read early.
func (s *server) replay() ([]string, wal.ChunkPosition, error) {
	lines, end, err := s.readOnce()
	for i := 0; i < s.reread && err != nil; i++ {
		again, againEnd, againErr := s.readOnce()
		agree := againErr != nil && len(again) == len(lines)
		if againErr == nil || len(again) > len(lines) {
			lines, end, err = again, againEnd, againErr
		}
		if agree {
			break
		}
	}
	return lines, end, err
}

// readOnce reads the whole log with a new reader and describes each record.
// It stops at the first error other than io.EOF and returns it with the
// records read before it and where the reader stood: the end of the last
// good record.
func (s *server) readOnce() ([]string, wal.ChunkPosition, error) {
	var lines []string
	r := s.log.NewReader()
	for {
		data, _, err := r.Next()
		if errors.Is(err, io.EOF) {
			return lines, wal.ChunkPosition{}, nil
		}
		if err != nil {
			return lines, *r.CurrentChunkPosition(), err
		}
		lines = append(lines, record.Describe(data))
	}
}

func (s *server) scan() ([]string, error) {
	lines, _, err := s.replay()
	return lines, err
}

// cut truncates the segment file of end at end's offset, removes every
// later segment file, and makes both durable.
func cut(opts wal.Options, end wal.ChunkPosition) error {
	entries, err := os.ReadDir(opts.DirPath)
	if err != nil {
		return err
	}
	for _, e := range entries {
		var id uint32
		if _, err := fmt.Sscanf(e.Name(), "%d"+opts.SegmentFileExt, &id); err != nil || id <= end.SegmentId {
			continue
		}
		if err := os.Remove(filepath.Join(opts.DirPath, e.Name())); err != nil {
			return err
		}
	}
	name := wal.SegmentFileName(opts.DirPath, opts.SegmentFileExt, end.SegmentId)
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(int64(end.BlockNumber)*32*wal.KB + end.ChunkOffset); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	d, err := os.Open(opts.DirPath)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
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
		if _, err := s.log.Write(record.Make(i, n)); err != nil {
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
