// Command server is one node of the natsjs example's cluster: an embedded
// NATS server (github.com/nats-io/nats-server/v2) with JetStream, clustered
// with its peers over TCP routes, its file store in a directory of the
// node's disk and every write synced before a publish is acknowledged.
//
// Usage:
//
//	server -routes n1,n2,n3 [-name n1] [-port 4222] [-cluster-port 6222] [-store data/js]
//
// It is a package of its own, apart from examples/natsjs/server, so that the
// single-node worlds keep their binary and their determinism corpus.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

func main() {
	name := flag.String("name", os.Getenv("SEEDFALL_NODE"), "server name, unique in the cluster (default: the node's name)")
	port := flag.Int("port", 4222, "client port")
	clusterPort := flag.Int("cluster-port", 6222, "route port")
	routes := flag.String("routes", "", "comma-separated names of every node of the cluster, this one included")
	store := flag.String("store", "data/js", "JetStream store directory")
	flag.Parse()
	if *name == "" || *routes == "" {
		fmt.Fprintln(os.Stderr, "server: -name and -routes are required")
		os.Exit(2)
	}
	var urls []string
	for _, peer := range strings.Split(*routes, ",") {
		urls = append(urls, fmt.Sprintf("nats-route://%s:%d", peer, *clusterPort))
	}
	opts := &server.Options{
		ServerName: *name,
		Host:       "0.0.0.0",
		Port:       *port,
		JetStream:  true,
		StoreDir:   *store,
		// Every write of the file store is synced before the publish is
		// acknowledged, on each replica: what NATS's documentation names
		// for no loss of an acknowledged message, whatever crashes.
		SyncAlways: true,
		NoSigs:     true,
		Cluster: server.ClusterOpts{
			Name: "sf",
			Host: "0.0.0.0",
			Port: *clusterPort,
		},
		Routes: server.RoutesFromStr(strings.Join(urls, ",")),
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
