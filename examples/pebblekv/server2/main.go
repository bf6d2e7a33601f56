// Command server2 is the pebblekv example's server on pebble v2: a
// key-value server on github.com/cockroachdb/pebble/v2, one Set per write. It
// speaks the kvlog example's line protocol, so kvlog's client checks it:
//
//	PUT <key> <value>   ->  OK      (after the Set returned)
//	GET <key>           ->  VALUE <value>  or  NONE
//	anything else       ->  ERR <reason>
//
// Usage:
//
//	server2 [-addr :7000] [-dir data] [-nosync]
//
// By default every Set is made with pebble.Sync, pebble's documented way to
// make a write durable before it returns: the write-ahead log is fsynced.
// With -nosync (the planted misuse) writes use pebble.NoSync, which pebble
// documents as surviving a process crash but not a machine crash: the log
// record sits in the page cache, and a crash of the node loses it after the
// server acknowledged it.
//
// pebble needs flock, and has no constants or file system code for wasm, so
// the world builds it with compat_overlay.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/cockroachdb/pebble/v2"

	"github.com/sf-dst/sf/sim"
)

func main() {
	addr := flag.String("addr", ":7000", "address to listen on")
	dir := flag.String("dir", "data", "the pebble directory")
	noSync := flag.Bool("nosync", false, "write with pebble.NoSync (unsafe: acknowledged writes can be lost)")
	flag.Parse()
	db, err := pebble.Open(*dir, &pebble.Options{})
	if err != nil {
		die("open", err)
	}
	wo := pebble.Sync
	if *noSync {
		wo = pebble.NoSync
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
		go serve(db, wo, c)
	}
}

// die exits with an error, which the supervisor restarts.
func die(op string, err error) {
	fmt.Fprintf(os.Stderr, "server: %s: %v\n", op, err)
	os.Exit(1)
}

func serve(db *pebble.DB, wo *pebble.WriteOptions, c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if _, err := fmt.Fprintln(c, handle(db, wo, strings.TrimSuffix(line, "\n"))); err != nil {
			return
		}
	}
}

func handle(db *pebble.DB, wo *pebble.WriteOptions, line string) string {
	verb, rest, _ := strings.Cut(line, " ")
	switch verb {
	case "PUT":
		key, value, ok := strings.Cut(rest, " ")
		if !ok || key == "" {
			return "ERR usage: PUT <key> <value>"
		}
		if err := db.Set([]byte(key), []byte(value), wo); err != nil {
			// pebble stops accepting writes after a failed log write; exit
			// so the supervisor restarts the server from what is on disk.
			die("put", err)
		}
		return "OK"
	case "GET":
		if rest == "" {
			return "ERR usage: GET <key>"
		}
		value, closer, err := db.Get([]byte(rest))
		switch {
		case err == pebble.ErrNotFound:
			return "NONE"
		case err != nil:
			return "ERR " + err.Error()
		}
		defer closer.Close()
		return "VALUE " + string(value)
	}
	return "ERR unknown request"
}
