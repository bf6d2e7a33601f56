package history

import (
	"bytes"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/sf-dst/sf/lib/compressed"
)

// mapBytesMin is the smallest file MapFileBytes maps rather than reads: below
// it a read costs less than setting up a mapping.
const mapBytesMin = 1 << 20

// MapFileBytes is ReadFileBytes for a process that checks one history and
// exits. A large, uncompressed regular file is mapped into memory read-only
// instead of being copied into the heap: reading a 500 MB history costs
// about half a second of the kernel's time in page faults and copying, and
// its bytes then count twice in memory (page cache and heap), where a
// mapping shares the page cache's pages. Anything else (a small or
// compressed file, a pipe, a platform without mmap) is read as
// ReadFileBytes reads it. The limits and their errors are ReadFileBytes's.
//
// The mapping is never removed once returned (it is when MapFileBytes
// fails): the operations that Parse makes alias it, so it must outlive
// them, and the process is expected to end with them. If
// the file is truncated while mapped, touching the part that is gone is a
// memory fault; run the code that touches the bytes under
// debug.SetPanicOnFault and report such a panic with FaultError.
func MapFileBytes(path string, opts ReadOptions) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return readAll(f, opts, 0)
	}
	size := fi.Size()
	total, lineMax := opts.limits()
	var prefix [4]byte
	n, _ := f.ReadAt(prefix[:], 0)
	if size < mapBytesMin || size > total || int64(int(size)) != size || compressed.Detect(prefix[:n]) != compressed.None {
		return readAll(f, opts, size)
	}
	data, ok := mapReadOnly(f, int(size))
	if !ok {
		return readAll(f, opts, size)
	}
	if err := checkMappedLines(data, opts.File, lineMax); err != nil {
		unmap(data)
		return nil, err
	}
	return data, nil
}

// checkMappedLines applies the line limit to a mapped file, with the error
// readAll gives: a file mapped is a file read. It is the first pass over
// the mapping, so a file truncated since it was mapped faults here, before
// the caller has the bytes to hand to FaultError: the fault is turned into
// FaultError's error here.
func checkMappedLines(data []byte, file string, lineMax int64) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			if err = FaultError(p, file, data); err == nil {
				panic(p)
			}
		}
	}()
	for rest, start := data, 0; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			i = len(rest)
		}
		if int64(i) > lineMax {
			return lineTooLong(file, 1+bytes.Count(data[:start], []byte{'\n'}), lineMax)
		}
		if i == len(rest) {
			break
		}
		rest, start = rest[i+1:], start+i+1
	}
	return nil
}

// FaultError turns the value a panic recovered after a memory fault inside
// data, a history MapFileBytes mapped, into an error that names the file. It
// returns nil for any other value, so that other panics stay what they are.
func FaultError(recovered any, file string, data []byte) error {
	e, ok := recovered.(interface {
		error
		Addr() uintptr
	})
	if !ok || len(data) == 0 {
		return nil
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	if a := e.Addr(); a < start || a-start >= uintptr(len(data)) {
		return nil
	}
	return &Error{File: file, Msg: "the file changed while it was being checked: part of it is gone (it was truncated or replaced in place)"}
}
