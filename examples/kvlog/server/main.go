// Command server is the system under test of the kvlog example: a key-value
// store that appends every write to a log file and rebuilds its map from that
// log when it starts.
//
// Usage:
//
//	server [-addr :7000] [-dir data] [-ack-before-fsync] [-read-from-disk [-checksum] [-reread]]
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
//
// By default a GET answers from the map in memory. With -read-from-disk the
// server keeps only where each key's latest record starts and how long it
// is, and a GET reads that record back from the log with one ReadAt, as a
// store whose data does not fit in memory does. It then trusts the bytes it
// read. -checksum checks the record's CRC-32 on every such read and answers
// ERR when it fails; -reread also reads a record that fails its checksum
// again, up to rereadMax times, before it gives up, in GET and in recovery.
// -checksum and -reread imply -read-from-disk, and -reread implies
// -checksum. Recovery always checks checksums, since that is how it finds
// the end of the log.
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
	// rereadMax is how many times -reread reads a record again after it
	// failed its checksum. A flipped bit on the way from the disk is gone on
	// the next read; a wrong byte on the disk fails every read.
	rereadMax = 10
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
	var o options
	fs.BoolVar(&o.readFromDisk, "read-from-disk", false, "answer GET by reading the key's record back from the log")
	fs.BoolVar(&o.checksum, "checksum", false, "check the CRC of every record a GET reads (implies -read-from-disk)")
	fs.BoolVar(&o.reread, "reread", false, "read a record that fails its checksum again before giving up (implies -checksum)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o.ackBeforeFsync = *ackBeforeFsync
	o.checksum = o.checksum || o.reread
	o.readFromDisk = o.readFromDisk || o.checksum
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	path := filepath.Join(*dir, logName)
	s, err := open(path, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "server: %v\n", err)
		return 1
	}
	fmt.Printf("server: recovered %d keys from %s\n", s.keys(), path)
	if s.droppedBytes > 0 {
		fmt.Printf("server: cut %d bytes of torn log tail\n", s.droppedBytes)
	}
	sim.Event("recovered", map[string]int64{"keys": int64(s.keys()), "dropped_bytes": s.droppedBytes})

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

// options are the server's modes.
type options struct {
	ackBeforeFsync bool
	readFromDisk   bool
	checksum       bool
	reread         bool
}

// store is the map and the log it is rebuilt from. mu serialises appends and
// guards kv, at and end.
type store struct {
	mu           sync.Mutex
	f            *os.File
	o            options
	kv           map[string]string // values, when GET answers from memory
	at           map[string]where  // records, when GET reads the log
	end          int64             // where the next record goes
	droppedBytes int64             // length of the torn tail cut at open
}

// where is the place of one record in the log.
type where struct{ off, n int64 }

// open replays the log at path, cuts any torn tail, and leaves the file
// positioned for appends.
func open(path string, o options) (*store, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	s := &store{f: f, o: o, kv: map[string]string{}, at: map[string]where{}}
	good, err := s.replay()
	if err == nil {
		err = s.cutAt(good)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	s.end = good
	return s, nil
}

// replay applies records from the start of the log until its end or the
// first torn record, and returns the length of the good prefix. Without
// -reread it reads the log as one stream; with it, it reads each record
// with ReadAt and reads a bad one again before taking it for the end.
func (s *store) replay() (int64, error) {
	var r io.Reader = bufio.NewReader(s.f)
	var good int64
	for {
		var key, value string
		var n int64
		var err error
		if s.o.reread {
			key, value, n, err = s.readAt(good)
		} else {
			key, value, n, err = readRecord(r)
		}
		if err == io.EOF || err == errTorn {
			return good, nil
		}
		if err != nil {
			return good, err
		}
		s.apply(key, value, where{good, n})
		good += n
	}
}

// readAt reads the record at off, and with -reread reads it again while it
// fails its checksum, up to rereadMax times.
func (s *store) readAt(off int64) (key, value string, n int64, err error) {
	for try := 0; ; try++ {
		key, value, n, err = readRecord(io.NewSectionReader(s.f, off, headerBytes+keyBytesMax+valueBytesMax))
		if err != errTorn || !s.o.reread || try == rereadMax {
			if try > 0 && err == nil {
				sim.Event("reread", map[string]int64{"offset": off, "reads": int64(try + 1)})
			}
			return key, value, n, err
		}
	}
}

// keys returns how many keys the store holds.
func (s *store) keys() int { return len(s.kv) + len(s.at) }

func (s *store) apply(key, value string, w where) {
	if s.o.readFromDisk {
		s.at[key] = w
	} else {
		s.kv[key] = value
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
	rec := encodeRecord(key, value)
	if _, err := s.f.Write(rec); err != nil {
		die("append", err)
	}
	if !s.o.ackBeforeFsync {
		if err := s.f.Sync(); err != nil {
			die("fsync", err)
		}
	}
	s.apply(key, value, where{s.end, int64(len(rec))})
	s.end += int64(len(rec))
}

// get returns key's value. With -read-from-disk it reads the record back
// from the log; an error means the read failed or, with -checksum, that the
// record failed its checksum (every time, with -reread).
func (s *store) get(key string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.o.readFromDisk {
		v, ok := s.kv[key]
		return v, ok, nil
	}
	w, ok := s.at[key]
	if !ok {
		return "", false, nil
	}
	if s.o.checksum {
		k, v, n, err := s.readAt(w.off)
		switch {
		case err == errTorn || err == io.EOF:
			return "", false, fmt.Errorf("record of %s at offset %d fails its checksum", key, w.off)
		case err != nil:
			return "", false, fmt.Errorf("read record of %s at offset %d: %v", key, w.off, err)
		case k != key || n != w.n:
			return "", false, fmt.Errorf("record at offset %d holds key %q, not %s", w.off, k, key)
		}
		return v, true, nil
	}
	// Trusting the disk: the lengths are known from the index, so the
	// value is whatever bytes sit where it was written.
	b := make([]byte, w.n)
	if _, err := s.f.ReadAt(b, w.off); err != nil {
		return "", false, fmt.Errorf("read record of %s at offset %d: %v", key, w.off, err)
	}
	return string(b[headerBytes+len(key):]), true, nil
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
		v, ok, err := s.get(rest)
		switch {
		case err != nil:
			return "ERR " + err.Error() + "\n"
		case ok:
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
