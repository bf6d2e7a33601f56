// Package compressed reads input that may be compressed with zstd or gzip,
// telling them apart by their first bytes rather than by a file name, so a
// file on stdin or with the wrong extension reads as well as one named
// h.jsonl.zst. Every reader of histories, record streams and fault schedules
// goes through Open.
//
// Open does not bound the decompressed size: a caller that limits its input
// limits what it reads from the returned reader, so the limit applies to the
// decompressed bytes and a small file that expands without end (a
// decompression bomb) stops at the limit like any other large input.
package compressed

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Format is the compression of an input.
type Format string

// The formats that Open recognises.
const (
	None Format = ""     // not compressed
	Zstd Format = "zstd" // a zstd stream: one or more frames
	Gzip Format = "gzip" // a gzip stream: one or more members
)

// The magic bytes that start each format.
var (
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	gzipMagic = []byte{0x1f, 0x8b}
)

// WindowBytesMax bounds the window a zstd frame may ask for: 128 MiB. The
// decoder allocates the window before it decodes a byte, so without a bound
// a 20-byte frame header could ask for gigabytes. zstd's own levels use at
// most 8 MiB, and its --long mode 128 MiB.
const WindowBytesMax = 128 << 20

// Detect tells the format from the first bytes of an input; four bytes
// suffice.
func Detect(prefix []byte) Format {
	switch {
	case bytes.HasPrefix(prefix, zstdMagic):
		return Zstd
	case bytes.HasPrefix(prefix, gzipMagic):
		return Gzip
	}
	return None
}

// Open returns a reader of r's content, decompressed if r starts with the
// magic bytes of zstd or gzip and as it is otherwise. An error is one of
// reading r's first bytes or of a malformed gzip header; errors in the
// compressed data come from the returned reader's Read, prefixed with the
// format ("zstd: ...", "gzip: ..."). The returned reader needs no Close: it
// releases the decoder when it reaches the end or an error.
func Open(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	prefix, err := br.Peek(len(zstdMagic))
	if err != nil && err != io.EOF {
		return nil, err
	}
	switch Detect(prefix) {
	case Zstd:
		d, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(WindowBytesMax))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		return &reader{r: d, format: Zstd, close: d.Close}, nil
	case Gzip:
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return &reader{r: z, format: Gzip, close: func() { z.Close() }}, nil
	}
	return br, nil
}

// reader names its format in errors and closes its decoder once done.
type reader struct {
	r      io.Reader
	format Format
	close  func()
	err    error
}

func (z *reader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n, err := z.r.Read(p)
	if err != nil {
		if err != io.EOF && !strings.HasPrefix(err.Error(), string(z.format)+":") {
			err = fmt.Errorf("%s: %w", z.format, err)
		}
		z.err = err
		z.close()
	}
	return n, err
}

// EncodeZstd compresses data into one zstd frame at the default level.
func EncodeZstd(data []byte) []byte {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic("compressed: zstd encoder: " + err.Error()) // only invalid options fail
	}
	defer e.Close()
	return e.EncodeAll(data, make([]byte, 0, len(data)/4+64))
}
