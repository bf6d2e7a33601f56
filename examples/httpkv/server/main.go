// Command server is the key-value service of the httpkv example: an ordinary
// net/http program that knows nothing of sf. One binary runs as two nodes, a
// primary that takes writes and a backup that keeps a copy of them.
//
// Usage:
//
//	server -role primary [-addr :8080] [-peer backup:8080] [-sync]
//	server -role backup  [-addr :8080]
//
// Both roles serve
//
//	GET /kv/{key}        200 with the value, or 404
//
// The primary also serves
//
//	PUT /kv/{key}        the body is the value; 200 once the write is acknowledged
//
// and forwards every write to its peer as
//
//	POST /replicate?key={key}   the body is the value; 200 once applied
//
// which only the backup serves. Each role answers the other's requests with
// 421 Misdirected Request.
//
// The planted bug: by default the primary applies a write, answers 200 at
// once and leaves the write on a queue, which one goroutine replicates to the
// backup in order, retrying each write until the backup has it. An
// acknowledged write can therefore be missing from the backup for as long as
// the backup cannot be reached, and a client that fails over to the backup in
// that time reads a key it was told was written as missing. With -sync (the
// fix) the primary replicates each write before it answers, and answers 503
// Service Unavailable instead of 200 when the backup does not acknowledge it
// in time; the client retries.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

const (
	// replicateTimeout bounds one replication request. It is below the
	// client's 300ms, so that a synchronous primary answers 503 before the
	// client gives up on it.
	replicateTimeout = 200 * time.Millisecond
	// An asynchronous primary waits retryMin after its first failed
	// replication of a write, doubling up to retryMax.
	retryMin = 20 * time.Millisecond
	retryMax = time.Second
)

func main() {
	log.SetFlags(0)
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	role := fs.String("role", "", "primary or backup")
	addr := fs.String("addr", ":8080", "address to listen on")
	peer := fs.String("peer", "backup:8080", "the primary's backup, as host:port")
	syncRepl := fs.Bool("sync", false, "the fix: acknowledge a write only once the backup has it")
	fs.Parse(os.Args[1:])
	s, err := newServer(*role, *peer, *syncRepl)
	if err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		os.Exit(2)
	}
	log.SetPrefix(*role + ": ")
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if s.role == "primary" {
		mode := "asynchronous"
		if s.sync {
			mode = "synchronous"
		}
		log.Printf("listening on %s, %s replication to %s", ln.Addr(), mode, s.peer)
	} else {
		log.Printf("listening on %s", ln.Addr())
	}
	log.Fatal(http.Serve(ln, s.handler()))
}

// server is one node of either role. mu guards kv; queue is the primary's
// replication queue.
type server struct {
	role string
	peer string // host:port of the backup; only the primary uses it
	sync bool
	http *http.Client

	mu sync.Mutex
	kv map[string]string

	// writeMu serialises the primary's writes, so that they reach the backup
	// in the order they were applied.
	writeMu sync.Mutex
	queue   *queue
}

func newServer(role, peer string, syncRepl bool) (*server, error) {
	s := &server{
		role: role,
		peer: peer,
		sync: syncRepl,
		http: &http.Client{Timeout: replicateTimeout},
		kv:   map[string]string{},
	}
	switch role {
	case "primary":
		if peer == "" {
			return nil, errors.New("-peer: the primary needs the backup's address")
		}
		if !syncRepl {
			s.queue = newQueue()
			go s.replicateQueued()
		}
	case "backup":
	default:
		return nil, fmt.Errorf("-role: want primary or backup, got %q", role)
	}
	return s, nil
}

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /kv/{key}", s.get)
	mux.HandleFunc("PUT /kv/{key}", s.put)
	mux.HandleFunc("POST /replicate", s.replicate)
	return mux
}

func (s *server) get(w http.ResponseWriter, r *http.Request) {
	v, ok := s.lookup(r.PathValue("key"))
	if !ok {
		http.Error(w, "no such key", http.StatusNotFound)
		return
	}
	io.WriteString(w, v)
}

func (s *server) lookup(k string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.kv[k]
	return v, ok
}

func (s *server) apply(k, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kv[k] = v
}

// put takes a client's write on the primary.
func (s *server) put(w http.ResponseWriter, r *http.Request) {
	if s.role != "primary" {
		http.Error(w, "writes go to the primary", http.StatusMisdirectedRequest)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	k, v := r.PathValue("key"), string(body)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.apply(k, v)
	if !s.sync {
		// The planted bug: the write is acknowledged before the backup has
		// it.
		s.queue.push(write{k, v})
		return
	}
	if err := s.send(write{k, v}); err != nil {
		log.Printf("not acknowledging %s: %v", k, err)
		http.Error(w, "backup unavailable: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
}

// replicate applies a write the primary forwarded, on the backup.
func (s *server) replicate(w http.ResponseWriter, r *http.Request) {
	if s.role != "backup" {
		http.Error(w, "replication goes to the backup", http.StatusMisdirectedRequest)
		return
	}
	k := r.URL.Query().Get("key")
	if k == "" {
		http.Error(w, "missing key", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.apply(k, string(body))
}

// write is one write to replicate.
type write struct{ key, value string }

// send replicates one write to the backup and waits for its 200.
func (s *server) send(wr write) error {
	u := "http://" + s.peer + "/replicate?key=" + url.QueryEscape(wr.key)
	resp, err := s.http.Post(u, "text/plain", strings.NewReader(wr.value))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("backup answered %s", resp.Status)
	}
	return nil
}

// replicateQueued runs for the life of an asynchronous primary: it sends the
// queued writes to the backup in order, retrying each one with a backoff
// until the backup acknowledges it.
func (s *server) replicateQueued() {
	for {
		wr := s.queue.peek()
		backoff := retryMin
		for {
			err := s.send(wr)
			if err == nil {
				break
			}
			log.Printf("replicating %s: %v; %d writes queued, retrying in %s", wr.key, err, s.queue.len(), backoff)
			time.Sleep(backoff)
			backoff = min(2*backoff, retryMax)
		}
		s.queue.pop()
	}
}

// queue is an unbounded FIFO of writes with a blocking peek.
type queue struct {
	mu     sync.Mutex
	writes []write
	ready  chan struct{} // holds a token while writes is not empty
}

func newQueue() *queue { return &queue{ready: make(chan struct{}, 1)} }

func (q *queue) push(wr write) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.writes = append(q.writes, wr)
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// peek waits for a write and returns the oldest, leaving it queued.
func (q *queue) peek() write {
	for {
		q.mu.Lock()
		if len(q.writes) > 0 {
			wr := q.writes[0]
			q.mu.Unlock()
			return wr
		}
		q.mu.Unlock()
		<-q.ready
	}
}

// pop removes the oldest write.
func (q *queue) pop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.writes = q.writes[1:]
}

func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.writes)
}
