// Command server is the system under test of the badgerkv example: a
// key-value server on github.com/dgraph-io/badger/v4, one update
// transaction per write. It speaks the kvlog example's line protocol, so
// kvlog's client checks it:
//
//	PUT <key> <value>   ->  OK      (after the transaction committed)
//	GET <key>           ->  VALUE <value>  or  NONE
//	anything else       ->  ERR <reason>
//
// Usage:
//
//	server [-addr :7000] [-dir data] [-nosync] [-vlog-size N] [-memtable-size N]
//
// By default the database is opened with SyncWrites: true, badger's
// documented setting for writes that must survive a machine crash: a commit
// returns after its write-ahead log (a memory-mapped file) is msynced. With
// -nosync (the planted misuse, and badger's default) a commit returns as
// soon as the log entry is stored in the mapping, and a crash of the node
// can lose a write the server acknowledged.
//
// badger maps its files through ristretto's z package, whose wasip1 version
// has no mmap, so the world builds it with compat_overlay. The sizes are
// small by default (-vlog-size and -memtable-size, 1 MiB each), since a
// node's memory is at most 1 GiB and badger maps each value log file and
// each memtable's write-ahead log at twice its size.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/sf-dst/sf/sim"
)

func main() {
	addr := flag.String("addr", ":7000", "address to listen on")
	dir := flag.String("dir", "data", "the badger directory")
	noSync := flag.Bool("nosync", false, "open with SyncWrites false (unsafe: acknowledged writes can be lost)")
	vlogSize := flag.Int64("vlog-size", 1<<20, "badger's ValueLogFileSize, in bytes")
	memtableSize := flag.Int64("memtable-size", 1<<20, "badger's MemTableSize, in bytes")
	flag.Parse()
	opts := badger.DefaultOptions(*dir).
		WithSyncWrites(!*noSync).
		WithValueLogFileSize(*vlogSize).
		WithMemTableSize(*memtableSize).
		WithValueThreshold(1 << 10).
		WithBlockCacheSize(1 << 20).
		WithIndexCacheSize(1 << 20).
		WithNumCompactors(2).
		WithLoggingLevel(badger.WARNING)
	db, err := badger.Open(opts)
	if err != nil {
		die("open", err)
	}
	sim.Event("opened", nil)
	ln, err := sim.Listen(*addr)
	if err != nil {
		die("listen", err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			die("accept", err)
		}
		go serve(db, c)
	}
}

// die exits with an error, which the supervisor restarts.
func die(op string, err error) {
	fmt.Fprintf(os.Stderr, "server: %s: %v\n", op, err)
	os.Exit(1)
}

func serve(db *badger.DB, c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if _, err := fmt.Fprintln(c, handle(db, strings.TrimSuffix(line, "\n"))); err != nil {
			return
		}
	}
}

func handle(db *badger.DB, line string) string {
	verb, rest, _ := strings.Cut(line, " ")
	switch verb {
	case "PUT":
		key, value, ok := strings.Cut(rest, " ")
		if !ok || key == "" {
			return "ERR usage: PUT <key> <value>"
		}
		err := db.Update(func(txn *badger.Txn) error {
			return txn.Set([]byte(key), []byte(value))
		})
		if err != nil {
			// A failed log write leaves badger unable to go on; exit so
			// the supervisor restarts the server from what is on disk.
			die("put", err)
		}
		return "OK"
	case "GET":
		if rest == "" {
			return "ERR usage: GET <key>"
		}
		var value []byte
		err := db.View(func(txn *badger.Txn) error {
			item, err := txn.Get([]byte(rest))
			if err != nil {
				return err
			}
			value, err = item.ValueCopy(nil)
			return err
		})
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
			return "NONE"
		case err != nil:
			return "ERR " + err.Error()
		}
		return "VALUE " + string(value)
	}
	return "ERR unknown request"
}
