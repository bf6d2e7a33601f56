// Command server is the system under test of the natsjs example: a NATS
// server with JetStream (github.com/nats-io/nats-server/v2, embedded), its
// file store in a directory of the node's disk.
//
// Usage:
//
//	server [-port 4222] [-store data/js] [-sync always|default]
//
// With -sync always the file store opens its block files with O_SYNC and
// fsyncs what it writes before a publish is acknowledged. With -sync default
// it keeps NATS's default: acknowledge once the message is in the block
// file's page cache and fsync every sync interval (two minutes), so a crash
// can lose messages that were already acknowledged.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

func main() {
	port := flag.Int("port", 4222, "client port")
	store := flag.String("store", "data/js", "JetStream store directory")
	sync := flag.String("sync", "always", "always: sync every write before the ack; default: NATS's periodic sync")
	flag.Parse()
	opts := &server.Options{
		ServerName: "natsjs",
		Host:       "0.0.0.0",
		Port:       *port,
		JetStream:  true,
		StoreDir:   *store,
		NoSigs:     true,
	}
	switch *sync {
	case "always":
		opts.SyncAlways = true
	case "default":
	default:
		fmt.Fprintf(os.Stderr, "server: -sync %q: want always or default\n", *sync)
		os.Exit(2)
	}
	s, err := server.NewServer(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
	s.ConfigureLogger()
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		fmt.Fprintln(os.Stderr, "server: not ready after 30s")
		os.Exit(1)
	}
	s.WaitForShutdown()
}
