// Command httpserver is a guest for the net_overlay tests: an ordinary Go
// service that knows nothing of sf. It serves, with plain net.Listen and
// net/http:
//
//   - on :8080, a small key-value store over HTTP: GET /kv/KEY answers the
//     value or 404, PUT or POST /kv/KEY stores the request body, and GET
//     /whoami answers the client's address and the server's own, as net/http
//     saw them;
//   - on :7000, an echo service: each connection gets back everything it sent,
//     after the client closes its sending side;
//   - on :7001, a silent service that accepts and never answers, for deadline
//     tests.
//
// It runs until it is stopped.
package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("httpserver: ")

	echo, err := net.Listen("tcp", ":7000")
	if err != nil {
		log.Fatal(err)
	}
	go serve(echo, func(c net.Conn) {
		data, err := io.ReadAll(c) // up to the client's CloseWrite
		if err == nil {
			c.Write(data)
		}
	})
	silent, err := net.Listen("tcp", ":7001")
	if err != nil {
		log.Fatal(err)
	}
	go serve(silent, func(c net.Conn) { io.Copy(io.Discard, c) })

	var mu sync.Mutex
	kv := map[string]string{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /kv/{key}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		v, ok := kv[r.PathValue("key")]
		mu.Unlock()
		if !ok {
			http.Error(w, "no such key", http.StatusNotFound)
			return
		}
		io.WriteString(w, v)
	})
	put := func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		kv[r.PathValue("key")] = string(body)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}
	mux.HandleFunc("PUT /kv/{key}", put)
	mux.HandleFunc("POST /kv/{key}", put)
	mux.HandleFunc("GET /whoami", func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		fmt.Fprintf(w, "remote %s local %s", r.RemoteAddr, local)
	})
	ln, err := net.Listen("tcp", ":8080")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "httpserver: listening on %s\n", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}

func serve(ln net.Listener, handle func(net.Conn)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go func() {
			defer c.Close()
			handle(c)
		}()
	}
}
