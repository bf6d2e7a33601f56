package history

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sf-dst/sf/lib/compressed"
)

// Limits on a history's input. Read, ReadFile, ReadAll and ReadFileBytes enforce them while
// they read, so neither a huge file nor an endless stream (/dev/zero, yes)
// can exhaust memory: reading stops at the first byte past a limit. Input
// compressed with zstd or gzip is decompressed as it is read (see package
// compressed), and the limits apply to the decompressed bytes, so a small
// file that expands without end stops at InputBytesMax too. Parse takes data
// already in memory and does not check them.
const (
	// InputBytesMax bounds a whole history: 1 GiB. Reading holds the input
	// in memory (operations alias it), and the checkers need several times
	// its size again; a history of a billion bytes is some ten million
	// operations, more than any checker here finishes on in a useful time.
	InputBytesMax = 1 << 30
	// LineBytesMax bounds one line, its newline not counted: 64 MiB. An
	// event is one line of JSON, or one map in a Jepsen history.edn; the
	// largest real ones are list-append reads of long lists, a few
	// megabytes. The bound is what makes input without newlines fail fast
	// rather than at InputBytesMax.
	LineBytesMax = 64 << 20
)

// ErrTooLarge is the error of a history over its size limit, and
// ErrLineTooLong of one of its lines over the line limit. Errors wrap them in
// an *Error that names the file (and the line).
var (
	ErrTooLarge    = errors.New("history is larger than the limit")
	ErrLineTooLong = errors.New("line is longer than the limit")
)

// ReadAll reads the bytes of a history from r, decompressing them if they are
// zstd or gzip, up to opts.InputBytesMax in all
// and opts.LineBytesMax per line. Reaching a limit is an *Error that wraps
// ErrTooLarge or ErrLineTooLong and names opts.File, the line, and the limit;
// a failed read is an *Error that wraps the reader's error.
func ReadAll(r io.Reader, opts ReadOptions) ([]byte, error) {
	return readAll(r, opts, 0)
}

// readAll is ReadAll with a hint of the input's size, used as the first
// block's size when it is within the limit; an uncompressed file then reads
// into one block and is returned as it is.
//
// The input is read into blocks that are never copied while they fill (at
// first the hint, then blocks of growing size, at most chunkBytesMax), and
// only joined once the end is reached. So an input over the limit, such as a
// gzip or zstd bomb, is refused having held at most the limit in memory,
// counted as its decompressed bytes arrive, and an input within it is held
// at most twice, while it is joined. (One buffer grown by append held up to
// three times the limit before a bomb was refused: the old buffer, the new
// one, and what the collector had not freed yet.)
func readAll(r io.Reader, opts ReadOptions, sizeHint int64) ([]byte, error) {
	total, lineMax := opts.limits()
	r, err := compressed.Open(r)
	if err != nil {
		return nil, &Error{File: opts.File, Msg: "reading history: " + err.Error(), Err: err}
	}
	next := int64(chunkBytesMin)
	if sizeHint > 0 {
		next = sizeHint + 1 // one more byte, to see the end without a second block
	}
	var blocks [][]byte
	var read int64
	// lines counts the newlines read; run is how many bytes the last line
	// has so far, its newline not yet read.
	var lines int
	var run int64
	for {
		size := min(next, total+1-read)
		block := make([]byte, size)
		n, err := io.ReadFull(r, block)
		block = block[:n]
		if n > 0 {
			if bad, line := lineCheck(block, lineMax, &lines, &run); bad {
				return nil, lineTooLong(opts.File, line, lineMax)
			}
			blocks = append(blocks, block)
			read += int64(n)
		}
		switch {
		case read > total:
			return nil, &Error{File: opts.File, Err: ErrTooLarge,
				Msg: fmt.Sprintf("%v of %s", ErrTooLarge, byteSize(total))}
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return join(blocks, read), nil
		case err != nil:
			return nil, &Error{File: opts.File, Msg: "reading history: " + err.Error(), Err: err}
		}
		next = min(max(2*int64(n), chunkBytesMin), chunkBytesMax)
	}
}

// The blocks readAll reads into: from 64 KiB, doubling up to 64 MiB, so a
// large input takes a few dozen blocks and a small one one.
const (
	chunkBytesMin = 64 << 10
	chunkBytesMax = 64 << 20
)

// lineCheck follows the lines through block, which comes after what lines
// and run describe, and updates them; it reports whether a line is longer
// than lineMax, and which (from 1).
func lineCheck(block []byte, lineMax int64, lines *int, run *int64) (bool, int) {
	first := bytes.IndexByte(block, '\n')
	if first < 0 {
		*run += int64(len(block))
		return *run > lineMax, *lines + 1
	}
	if *run+int64(first) > lineMax {
		return true, *lines + 1
	}
	last := bytes.LastIndexByte(block, '\n')
	if int64(last-first) > lineMax {
		// A line between the first and the last newline may be too long:
		// look at each. (Only when the block is longer than a line may be.)
		for i, line := first+1, *lines+1; i <= last; line++ {
			j := bytes.IndexByte(block[i:], '\n')
			if int64(j) > lineMax {
				return true, line + 1
			}
			i += j + 1
		}
	}
	*lines += bytes.Count(block, []byte{'\n'})
	*run = int64(len(block) - last - 1)
	return *run > lineMax, *lines + 1
}

// join returns the blocks as one slice of n bytes: the block itself when
// there is one.
func join(blocks [][]byte, n int64) []byte {
	switch len(blocks) {
	case 0:
		return []byte{}
	case 1:
		return blocks[0]
	}
	out := make([]byte, 0, n)
	for i, b := range blocks {
		out = append(out, b...)
		blocks[i] = nil // the collector may free it while the rest is copied
	}
	return out
}

// ReadFileBytes is ReadAll on the file at path. An error opening it is the
// *fs.PathError of os.Open.
func ReadFileBytes(path string, opts ReadOptions) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var hint int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		hint = fi.Size()
	}
	return readAll(f, opts, hint)
}

// lineTooLong is the error of a history whose line is over lineMax bytes,
// whether it was read or mapped.
func lineTooLong(file string, line int, lineMax int64) *Error {
	return &Error{File: file, Line: line, Err: ErrLineTooLong,
		Msg: fmt.Sprintf("%v of %s (a history holds one event per line)", ErrLineTooLong, byteSize(lineMax))}
}

// limits returns the options' limits with their defaults.
func (o ReadOptions) limits() (total, line int64) {
	total, line = o.InputBytesMax, o.LineBytesMax
	if total <= 0 {
		total = InputBytesMax
	}
	if line <= 0 {
		line = LineBytesMax
	}
	return total, line
}

// byteSize writes n in the largest binary unit that divides it.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
