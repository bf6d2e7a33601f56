// Command repro shows the three rosedblabs/wal v1.3.8 findings of the
// rosedbwal example without sf: it writes a log with Sync on, cuts the
// active segment file where a crash during a write can leave it (what
// os.Truncate does here, the simulated disk did in the pinned schedules),
// reopens the log and reads it through. Run it natively:
//
//	go run ./rosedbwal/repro lost    # an acknowledged write after a torn one is unreadable
//	go run ./rosedbwal/repro glued   # a record that was never written is read back
//	go run ./rosedbwal/repro panic   # reopening panics in (*segment).readInternal
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rosedblabs/wal"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: repro lost|glued|panic")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "rosedbwal-repro")
	check(err)
	defer os.RemoveAll(dir)
	seg := wal.SegmentFileName(dir, ".SEG", 1)
	switch os.Args[1] {
	case "lost":
		// The second write is torn by a crash: 50 of its 107 bytes reach the
		// file. After the restart a third write is acknowledged, and a reader
		// stops at the torn one and never reaches it.
		w := open(dir)
		write(w, "a", 100)
		write(w, "b", 100)
		cut(w, seg, 107+50)
		w = open(dir)
		write(w, "c", 100)
		check(w.Close())
		readAll(open(dir))
	case "glued":
		// A 40000-byte record is a First chunk that fills block 0 and a Last
		// chunk in block 1; the crash keeps block 0 only. The reader calls
		// the log complete (io.EOF), and after one more write it glues the
		// First chunk to the new record's Full chunk.
		w := open(dir)
		write(w, "x", 40000)
		cut(w, seg, 32*wal.KB)
		w = open(dir)
		fmt.Println("after the crash:")
		readAll(w)
		write(w, "y", 100)
		check(w.Close())
		fmt.Println("after one more write:")
		readAll(open(dir))
	case "panic":
		// The crash keeps 2 of the last chunk's 7 header bytes. The reader
		// takes the other 5 from its pooled block buffer, here bytes of the
		// first record, and slices past the buffer's 32 KiB.
		w := open(dir)
		write(w, "ac", 45000)
		write(w, "z", 100)
		st, err := os.Stat(seg)
		check(err)
		cut(w, seg, st.Size()-105)
		readAll(open(dir))
	default:
		fmt.Fprintf(os.Stderr, "repro: unknown case %q: want lost, glued or panic\n", os.Args[1])
		os.Exit(2)
	}
}

// open opens the log as the rosedbwal server does: Sync on, so that every
// Write is followed by an fsync.
func open(dir string) *wal.WAL {
	w, err := wal.Open(wal.Options{DirPath: dir, SegmentSize: wal.GB, SegmentFileExt: ".SEG", Sync: true})
	check(err)
	return w
}

// write appends a record of n bytes, pattern repeated.
func write(w *wal.WAL, pattern string, n int) {
	_, err := w.Write(bytes.Repeat([]byte(pattern), n/len(pattern)))
	check(err)
}

// cut closes the log and truncates its segment file to size bytes: the file
// as a crash in the middle of the last write leaves it.
func cut(w *wal.WAL, seg string, size int64) {
	check(w.Close())
	check(os.Truncate(seg, size))
}

func readAll(w *wal.WAL) {
	r := w.NewReader()
	for {
		data, _, err := r.Next()
		if errors.Is(err, io.EOF) {
			fmt.Println("  io.EOF: the reader is done")
			return
		}
		if err != nil {
			fmt.Println("  error:", err)
			return
		}
		fmt.Printf("  a record of %d bytes: %q...\n", len(data), data[:min(len(data), 12)])
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "repro:", err)
		os.Exit(1)
	}
}
