// Command server is the system under test of the bboltkv example: a
// key-value server on go.etcd.io/bbolt, one bucket, one update transaction
// per write. It speaks the kvlog example's line protocol, so kvlog's client
// checks it:
//
//	PUT <key> <value>   ->  OK      (after the transaction committed)
//	GET <key>           ->  VALUE <value>  or  NONE
//	anything else       ->  ERR <reason>
//
// Usage:
//
//	server [-addr :7000] [-db data/kv.db] [-nosync] [-syncdir]
//
// By default bbolt fsyncs every commit, its documented durable setting. With
// -nosync (the planted misuse) the database is opened with NoSync: true,
// which bbolt documents as unsafe: a commit returns before its pages are
// durable, so a crash can lose a write that was acknowledged, or leave a
// meta page that points at pages that never reached the disk.
//
// bbolt never fsyncs the directory it creates its file in, so under strict
// POSIX (the world's strict_dirs) a crash can take the whole file, every
// acknowledged write with it. -syncdir fsyncs the database's directory and
// the one above it once Open has returned, before the first write.
//
// bbolt needs mmap and flock, which wasip1 lacks, so the world builds it with
// compat_overlay.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sf-dst/sf/sim"
	bolt "go.etcd.io/bbolt"
)

var bucket = []byte("kv")

func main() {
	addr := flag.String("addr", ":7000", "address to listen on")
	path := flag.String("db", "data/kv.db", "the bbolt database file")
	noSync := flag.Bool("nosync", false, "open the database with NoSync (unsafe: acknowledged writes can be lost)")
	syncDir := flag.Bool("syncdir", false, "fsync the database's directory and its parent after Open")
	flag.Parse()
	if err := os.MkdirAll(filepath.Dir(*path), 0o755); err != nil {
		die("mkdir", err)
	}
	db, err := bolt.Open(*path, 0o600, &bolt.Options{Timeout: time.Second, NoSync: *noSync})
	if err != nil {
		die("open", err)
	}
	if *syncDir {
		for _, d := range []string{filepath.Dir(*path), filepath.Dir(filepath.Dir(*path))} {
			if err := fsyncDir(d); err != nil {
				die("sync dir", err)
			}
		}
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	}); err != nil {
		die("create bucket", err)
	}
	keys := 0
	if err := db.View(func(tx *bolt.Tx) error {
		keys = tx.Bucket(bucket).Stats().KeyN
		return nil
	}); err != nil {
		die("count keys", err)
	}
	sim.Event("opened", map[string]int{"keys": keys})
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

// fsyncDir makes the entries of directory dir durable.
func fsyncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// die exits with an error, which the supervisor restarts; a database that
// cannot be opened after a crash is what the client then finds as a run that
// never answers.
func die(op string, err error) {
	fmt.Fprintf(os.Stderr, "server: %s: %v\n", op, err)
	os.Exit(1)
}

func serve(db *bolt.DB, c net.Conn) {
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

func handle(db *bolt.DB, line string) string {
	verb, rest, _ := strings.Cut(line, " ")
	switch verb {
	case "PUT":
		key, value, ok := strings.Cut(rest, " ")
		if !ok || key == "" {
			return "ERR usage: PUT <key> <value>"
		}
		err := db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucket).Put([]byte(key), []byte(value))
		})
		if err != nil {
			// A failed commit may have left bbolt unable to go on; exit so
			// the supervisor restarts the server from what is on disk.
			die("put", err)
		}
		return "OK"
	case "GET":
		if rest == "" {
			return "ERR usage: GET <key>"
		}
		var value []byte
		err := db.View(func(tx *bolt.Tx) error {
			if v := tx.Bucket(bucket).Get([]byte(rest)); v != nil {
				value = append([]byte(nil), v...)
			}
			return nil
		})
		switch {
		case err != nil:
			return "ERR " + err.Error()
		case value == nil:
			return "NONE"
		}
		return "VALUE " + string(value)
	}
	return "ERR unknown request"
}
