// Command client is the workload of the shortread example. It stores blobs
// of random lengths and contents, one frame at a time on one connection,
// and checks that the server stored each blob as it was sent: the length
// and the CRC-32 the server reports must be the blob's own.
//
// Usage:
//
//	client [-addr server:7000] [-blobs 100]
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"time"

	"github.com/sf-dst/sf/sim"
)

// Blob lengths are drawn from [blobBytesMin, blobBytesMax]: a frame stays
// within one chunk of the simulated network (16 KiB), so on a quiet network
// it arrives whole.
const (
	blobBytesMin = 16
	blobBytesMax = 4096
)

func main() {
	addr := flag.String("addr", "server:7000", "address of the blob store")
	blobs := flag.Int("blobs", 100, "number of blobs to store")
	flag.Parse()
	n := sim.Budget(*blobs)
	conn, err := sim.Dial(*addr)
	for tries := 0; err != nil && tries < 50; tries++ {
		time.Sleep(10 * time.Millisecond) // the server may not listen yet
		conn, err = sim.Dial(*addr)
	}
	if err != nil {
		sim.Fail(fmt.Sprintf("dial %s: %v", *addr, err))
	}
	defer conn.Close()
	replies := bufio.NewReader(conn)
	for i := 1; i <= n; i++ {
		blob := make([]byte, blobBytesMin+int(sim.Random()%(blobBytesMax-blobBytesMin+1)))
		for j := range blob {
			blob[j] = byte(sim.Random())
		}
		frame := binary.BigEndian.AppendUint32(nil, uint32(len(blob)))
		if _, err := conn.Write(append(frame, blob...)); err != nil {
			sim.Fail(fmt.Sprintf("blob %d: write: %v", i, err))
		}
		line, err := replies.ReadString('\n')
		if err != nil {
			sim.Fail(fmt.Sprintf("blob %d: no reply: %v", i, err))
		}
		want := fmt.Sprintf("STORED %d %d %08x\n", i, len(blob), crc32.ChecksumIEEE(blob))
		sim.Assert(line == want, fmt.Sprintf("blob %d of %d bytes: the server answered %q, want %q", i, len(blob), line, want))
		time.Sleep(time.Millisecond)
	}
	fmt.Fprintf(os.Stdout, "client: %d blobs stored intact\n", n)
}
