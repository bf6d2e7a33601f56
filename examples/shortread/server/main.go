// Command server is the system under test of the shortread example: a blob
// store that takes blobs over TCP in length-prefixed frames.
//
// Usage:
//
//	server [-addr :7000] [-readfull]
//
// A request is a frame: a 4-byte big-endian length and that many bytes of
// blob. The server stores the blob under the next number and answers one
// line:
//
//	STORED <number> <length> <crc32 in hex>
//
// or ERR <reason> for a frame it cannot take; then it closes the connection.
//
// By default the server reads the length and then the blob with one Read
// each (the planted bug): it takes for granted that a Read fills its buffer.
// A Read may return fewer bytes than the buffer holds, at least one, when
// fewer have arrived or the kernel just returns early; POSIX allows it and
// io.Reader says so. With -readfull (the fix) the server reads each part
// with io.ReadFull, which reads until the buffer is full.
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"os"
	"sync"

	"github.com/sf-dst/sf/sim"
)

// blobBytesMax bounds a blob, so that a garbled length cannot make the
// server allocate gigabytes.
const blobBytesMax = 1 << 20

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	addr := fs.String("addr", ":7000", "address to listen on")
	readFull := fs.Bool("readfull", false, "the fix: read each part of a frame with io.ReadFull")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ln, err := sim.Listen(*addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	fmt.Printf("server: listening on %s\n", ln.Addr())
	err = (&store{readFull: *readFull}).serveAll(ln)
	fmt.Fprintf(os.Stderr, "server: accept: %v\n", err)
	return 1
}

// serveAll serves every connection ln accepts until Accept fails.
func (s *store) serveAll(ln net.Listener) error {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return err
		}
		go s.serve(conn)
	}
}

// store holds the blobs. mu guards blobs.
type store struct {
	readFull bool
	mu       sync.Mutex
	blobs    [][]byte
}

func (s *store) serve(conn net.Conn) {
	defer conn.Close()
	w := bufio.NewWriter(conn)
	for {
		blob, err := s.readFrame(conn)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			fmt.Fprintf(w, "ERR %v\n", err)
			w.Flush()
			return
		}
		n := s.put(blob)
		fmt.Fprintf(w, "STORED %d %d %08x\n", n, len(blob), crc32.ChecksumIEEE(blob))
		if w.Flush() != nil {
			return
		}
	}
}

func (s *store) put(blob []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blobs = append(s.blobs, blob)
	return len(s.blobs)
}

// readFrame reads one frame from r and returns its blob.
func (s *store) readFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if err := s.fill(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > blobBytesMax {
		return nil, fmt.Errorf("frame of %d bytes, more than %d", n, blobBytesMax)
	}
	blob := make([]byte, n)
	if err := s.fill(r, blob); err != nil {
		return nil, err
	}
	return blob, nil
}

// fill reads len(buf) bytes from r into buf.
func (s *store) fill(r io.Reader, buf []byte) error {
	if s.readFull {
		_, err := io.ReadFull(r, buf)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("the connection ended inside a frame")
		}
		return err
	}
	// The planted bug: one Read, and what it did not fill is taken as read.
	// On a quiet network the whole frame has arrived by the time the server
	// reads it, so one Read does fill the buffer, and every test passes.
	_, err := r.Read(buf)
	return err
}
