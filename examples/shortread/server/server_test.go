package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net"
	"testing"
	"testing/iotest"
	"time"
)

// frame is blob as a request frame.
func frame(blob []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(blob))), blob...)
}

// TestOverLoopback: over a real TCP connection on one machine both servers
// store every blob intact. Each frame has arrived whole by the time the
// server reads it, so one Read fills the buffer and the planted bug hides.
func TestOverLoopback(t *testing.T) {
	for _, readFull := range []bool{false, true} {
		t.Run(fmt.Sprintf("readfull=%v", readFull), func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go (&store{readFull: readFull}).serveAll(ln)
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			replies := bufio.NewReader(c)
			for i := 1; i <= 20; i++ {
				blob := bytes.Repeat([]byte{byte(i)}, 100*i)
				if _, err := c.Write(frame(blob)); err != nil {
					t.Fatal(err)
				}
				got, err := replies.ReadString('\n')
				if err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf("STORED %d %d %08x\n", i, len(blob), crc32.ChecksumIEEE(blob)); got != want {
					t.Errorf("blob %d: %q, want %q", i, got, want)
				}
			}
		})
	}
}

// TestShortReads: when Read returns part of what was asked, as a reader may,
// the planted bug takes a blob with a zeroed tail, and io.ReadFull does not.
func TestShortReads(t *testing.T) {
	blob := bytes.Repeat([]byte("blob"), 50)
	for _, tc := range []struct {
		readFull bool
		intact   bool
	}{{false, false}, {true, true}} {
		got, err := (&store{readFull: tc.readFull}).readFrame(iotest.HalfReader(bytes.NewReader(frame(blob))))
		if err != nil {
			t.Fatalf("readfull=%v: %v", tc.readFull, err)
		}
		if bytes.Equal(got, blob) != tc.intact {
			t.Errorf("readfull=%v: the blob read back intact is %v, want %v", tc.readFull, bytes.Equal(got, blob), tc.intact)
		}
	}
}
