// Command server is the system under test of the ledger example: an
// append-only ledger of deposits that keeps a running total.
//
// Usage:
//
//	server [-addr :7000] [-dir data]
//
// It speaks a line protocol over TCP, one goroutine per connection:
//
//	ADD <id> <amount>   ->  OK <id>          (after the entry is fsynced)
//	TOTAL <id>          ->  TOTAL <id> <total>
//	anything else       ->  ERR <reason>
//
// The ledger file is a sequence of 20-byte entries: the deposit id and the
// amount (big-endian uint64 each) and a CRC-32 of both. At start the server
// reads the entries up to the first one that is short or fails its
// checksum, which is what a crash in the middle of an append leaves behind,
// and cuts the file there with Truncate. An ADD is appended, fsynced, and
// only then acknowledged. The server does not deduplicate: every ADD it
// reads is a deposit.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/sf-dst/sf/sim"
)

const (
	ledgerName   = "ledger.log"
	entryBytes   = 20
	lineBytesMax = 128
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	addr := fs.String("addr", ":7000", "address to listen on")
	dir := fs.String("dir", "data", "directory of the ledger; created if missing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	l, err := open(filepath.Join(*dir, ledgerName))
	if err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	fmt.Printf("server: recovered %d entries, total %d, cut %d bytes\n", l.entries, l.total, l.cut)
	sim.Event("recovered", map[string]int64{"entries": l.entries, "total": l.total, "cut_bytes": l.cut})
	ln, err := sim.Listen(*addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	for {
		conn, err := ln.Accept()
		if err != nil {
			fmt.Fprintf(os.Stderr, "server: accept: %v\n", err)
			return 1
		}
		go l.serve(conn)
	}
}

// ledger is the open ledger file and the state rebuilt from it.
type ledger struct {
	mu      sync.Mutex
	f       *os.File
	size    int64 // bytes of whole, valid entries
	entries int64
	total   int64
	cut     int64 // bytes cut off at start
}

// open reads the ledger at path, cuts a torn tail, and returns it ready to
// append.
func open(path string) (*ledger, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	l := &ledger{f: f}
	for off := 0; off+entryBytes <= len(data); off += entryBytes {
		e := data[off : off+entryBytes]
		if crc32.ChecksumIEEE(e[:16]) != binary.BigEndian.Uint32(e[16:]) {
			break
		}
		l.total += int64(binary.BigEndian.Uint64(e[8:16]))
		l.entries++
		l.size += entryBytes
	}
	if l.size < int64(len(data)) {
		l.cut = int64(len(data)) - l.size
		if err := f.Truncate(l.size); err != nil {
			return nil, fmt.Errorf("cutting the torn tail of %s: %w", path, err)
		}
	}
	return l, nil
}

// add appends one deposit, fsyncs it and applies it.
func (l *ledger) add(id, amount uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var e [entryBytes]byte
	binary.BigEndian.PutUint64(e[0:], id)
	binary.BigEndian.PutUint64(e[8:], amount)
	binary.BigEndian.PutUint32(e[16:], crc32.ChecksumIEEE(e[:16]))
	if _, err := l.f.WriteAt(e[:], l.size); err != nil {
		return err
	}
	if err := l.f.Sync(); err != nil {
		return err
	}
	l.size += entryBytes
	l.entries++
	l.total += int64(amount)
	return nil
}

func (l *ledger) serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReaderSize(conn, lineBytesMax)
	w := bufio.NewWriter(conn)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		fmt.Fprintln(w, l.handle(strings.Fields(line)))
		if w.Flush() != nil {
			return
		}
	}
}

func (l *ledger) handle(cmd []string) string {
	switch {
	case len(cmd) == 3 && cmd[0] == "ADD":
		id, err1 := strconv.ParseUint(cmd[1], 10, 64)
		amount, err2 := strconv.ParseUint(cmd[2], 10, 64)
		if err1 != nil || err2 != nil {
			return "ERR bad ADD"
		}
		if err := l.add(id, amount); err != nil {
			// The entry may or may not be on disk: stop, and let the
			// restart read the ledger back.
			fmt.Fprintf(os.Stderr, "server: append: %v\n", err)
			os.Exit(1)
		}
		return "OK " + cmd[1]
	case len(cmd) == 2 && cmd[0] == "TOTAL":
		l.mu.Lock()
		defer l.mu.Unlock()
		return fmt.Sprintf("TOTAL %s %d", cmd[1], l.total)
	}
	return "ERR unknown command"
}
