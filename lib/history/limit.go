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
// buffer's size when it is within the limit. A compressed input's size is
// smaller than its content's, so the buffer grows from there.
func readAll(r io.Reader, opts ReadOptions, sizeHint int64) ([]byte, error) {
	total, lineMax := opts.limits()
	r, err := compressed.Open(r)
	if err != nil {
		return nil, &Error{File: opts.File, Msg: "reading history: " + err.Error(), Err: err}
	}
	size := int64(64 << 10)
	if sizeHint > 0 {
		size = sizeHint + 1 // one more byte, to see the end without growing
	}
	buf := make([]byte, 0, min(size, total+1))
	// Every line that starts before lineStart is within the limit, and
	// lineStart is where a line starts. Only when the input reaches past
	// lineStart+lineMax does a newline have to be found, and then only
	// the last one in that window, so the check costs little per byte.
	lineStart := int64(0)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		// Never read past the first byte over the limit.
		room := min(int64(cap(buf)), total+1)
		n, err := r.Read(buf[len(buf):room])
		buf = buf[:len(buf)+n]
		tooLong := false
		for int64(len(buf)) > lineStart+lineMax {
			// A newline at lineStart+lineMax ends a line of lineMax bytes.
			i := bytes.LastIndexByte(buf[lineStart:lineStart+lineMax+1], '\n')
			if i < 0 {
				tooLong = true
				break
			}
			lineStart += int64(i) + 1
		}
		switch {
		case tooLong:
			return nil, lineTooLong(opts.File, 1+bytes.Count(buf[:lineStart], []byte{'\n'}), lineMax)
		case int64(len(buf)) > total:
			return nil, &Error{File: opts.File, Err: ErrTooLarge,
				Msg: fmt.Sprintf("%v of %s", ErrTooLarge, byteSize(total))}
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return nil, &Error{File: opts.File, Msg: "reading history: " + err.Error(), Err: err}
		}
	}
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
