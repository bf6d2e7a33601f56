// Command server is the system under test of the kvlog example: a key-value
// store that appends every write to a log file and rebuilds its map from that
// log when it starts.
//
// Usage:
//
//	server [-addr :7000] [-dir data] [-ack-before-fsync]
//
// It speaks a line protocol over TCP, one goroutine per connection:
//
//	PUT <key> <value>   ->  OK
//	GET <key>           ->  VALUE <value>  or  NONE
//	anything else       ->  ERR <reason>
//
// A key is one word; a value is the rest of the line and may hold spaces.
//
// A record of the log is a 12-byte header (key length, value length, CRC-32
// of the lengths, key and value; each a big-endian uint32) followed by the key
// and the value. On start the server replays records up to the first one that
// is torn or fails its checksum, and cuts the file there.
//
// By default a PUT is acknowledged only after its record is fsynced. With
// -ack-before-fsync (the planted bug) it is acknowledged at once and fsynced
// by a background ticker, so a crash can lose a write that was acknowledged.
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
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sf-dst/sf/sim"
)

const (
	logName       = "kv.log"
	headerBytes   = 12
	keyBytesMax   = 1 << 10
	valueBytesMax = 1 << 16
	lineBytesMax  = len("PUT ") + keyBytesMax + 1 + valueBytesMax
	// syncInterval is how often -ack-before-fsync mode fsyncs the log.
	syncInterval = 200 * time.Millisecond
)

// errTorn marks a record that was cut short or corrupted, as a crash leaves
// the end of a log that was not fsynced.
var errTorn = errors.New("torn or corrupt record")

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	addr := fs.String("addr", ":7000", "address to listen on")
	dir := fs.String("dir", "data", "directory of the log; created if missing")
	ackBeforeFsync := fs.Bool("ack-before-fsync", false, "planted bug: acknowledge a PUT before its record is fsynced")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	path := filepath.Join(*dir, logName)
	s, err := open(path, *ackBeforeFsync)
	if err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	fmt.Printf("server: recovered %d keys from %s\n", len(s.kv), path)
	if s.droppedBytes > 0 {
		fmt.Printf("server: cut %d bytes of torn log tail\n", s.droppedBytes)
	}
	sim.Event("recovered", map[string]int64{"keys": int64(len(s.kv)), "dropped_bytes": s.droppedBytes})

	ln, err := sim.Listen(*addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	fmt.Printf("server: listening on %s\n", ln.Addr())
	if *ackBeforeFsync {
		go s.syncEvery(syncInterval)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintf(os.Stderr, "server: accept: %v\n", err)
			return 1
		}
		go s.serve(c)
	}
}

// store is the map and the log it is rebuilt from. mu serialises appends and
// guards kv.
type store struct {
	mu             sync.Mutex
	f              *os.File
	kv             map[string]string
	ackBeforeFsync bool
	droppedBytes   int64 // length of the torn tail cut at open
}

// open replays the log at path, cuts any torn tail, and leaves the file
// positioned for appends.
func open(path string, ackBeforeFsync bool) (*store, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	s := &store{f: f, kv: map[string]string{}, ackBeforeFsync: ackBeforeFsync}
	good, err := s.replay(bufio.NewReader(f))
	if err == nil {
		err = s.cutAt(good)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	return s, nil
}

// replay applies records from r until the end of the log or the first torn
// record, and returns the length of the good prefix.
func (s *store) replay(r io.Reader) (int64, error) {
	var good int64
	for {
		key, value, n, err := readRecord(r)
		if err == io.EOF || err == errTorn {
			return good, nil
		}
		if err != nil {
			return good, err
		}
		s.kv[key] = value
		good += n
	}
}

// cutAt truncates the log to its good prefix, durably, so that the next
// record lands right after the last good one and a later replay reaches it.
func (s *store) cutAt(good int64) error {
	end, err := s.f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if end > good {
		if err := s.f.Truncate(good); err != nil {
			return err
		}
		if err := s.f.Sync(); err != nil {
			return err
		}
		s.droppedBytes = end - good
	}
	_, err = s.f.Seek(good, io.SeekStart)
	return err
}

func (s *store) put(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Write(encodeRecord(key, value)); err != nil {
		die("append", err)
	}
	if !s.ackBeforeFsync {
		if err := s.f.Sync(); err != nil {
			die("fsync", err)
		}
	}
	s.kv[key] = value
}

func (s *store) get(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.kv[key]
	return v, ok
}

func (s *store) syncEvery(d time.Duration) {
	t := time.NewTicker(d)
	defer t.Stop()
	for range t.C {
		if err := s.f.Sync(); err != nil {
			die("fsync", err)
		}
	}
}

// die ends the process after a failed write or fsync. The end of the log is
// then unknown, and a record appended after a torn one would never be
// replayed; recovery at the next start cuts the tail instead.
func die(op string, err error) {
	fmt.Fprintf(os.Stderr, "server: %s %s: %v\n", op, logName, err)
	os.Exit(1)
}

func (s *store) serve(c net.Conn) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, 4096), lineBytesMax+1)
	for sc.Scan() {
		if _, err := io.WriteString(c, s.handle(sc.Text())); err != nil {
			return
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		fmt.Fprintf(c, "ERR line longer than %d bytes\n", lineBytesMax)
	}
}

// handle answers one request line; the reply ends with a newline.
func (s *store) handle(line string) string {
	cmd, rest, _ := strings.Cut(line, " ")
	switch cmd {
	case "PUT":
		key, value, ok := strings.Cut(rest, " ")
		if !ok || key == "" {
			return "ERR usage: PUT <key> <value>\n"
		}
		if len(key) > keyBytesMax || len(value) > valueBytesMax {
			return fmt.Sprintf("ERR key longer than %d bytes or value longer than %d bytes\n", keyBytesMax, valueBytesMax)
		}
		s.put(key, value)
		return "OK\n"
	case "GET":
		if rest == "" || strings.Contains(rest, " ") {
			return "ERR usage: GET <key>\n"
		}
		if v, ok := s.get(rest); ok {
			return "VALUE " + v + "\n"
		}
		return "NONE\n"
	default:
		return fmt.Sprintf("ERR unknown command %q\n", cmd)
	}
}

func encodeRecord(key, value string) []byte {
	b := make([]byte, headerBytes+len(key)+len(value))
	binary.BigEndian.PutUint32(b[0:], uint32(len(key)))
	binary.BigEndian.PutUint32(b[4:], uint32(len(value)))
	copy(b[headerBytes:], key)
	copy(b[headerBytes+len(key):], value)
	binary.BigEndian.PutUint32(b[8:], checksum(b[:8], b[headerBytes:]))
	return b
}

// readRecord reads one record and returns its size in bytes. It returns
// io.EOF at a clean end of the log and errTorn for a record that is cut
// short, fails its checksum, or has impossible lengths (such as the zeros a
// file system may leave after a crash).
func readRecord(r io.Reader) (key, value string, n int64, err error) {
	var h [headerBytes]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			err = errTorn
		}
		return "", "", 0, err
	}
	keyLen, valueLen := binary.BigEndian.Uint32(h[0:]), binary.BigEndian.Uint32(h[4:])
	if keyLen == 0 || keyLen > keyBytesMax || valueLen > valueBytesMax {
		return "", "", 0, errTorn
	}
	body := make([]byte, keyLen+valueLen)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = errTorn
		}
		return "", "", 0, err
	}
	if checksum(h[:8], body) != binary.BigEndian.Uint32(h[8:]) {
		return "", "", 0, errTorn
	}
	return string(body[:keyLen]), string(body[keyLen:]), int64(headerBytes + len(body)), nil
}

func checksum(lengths, body []byte) uint32 {
	return crc32.Update(crc32.ChecksumIEEE(lengths), crc32.IEEETable, body)
}
