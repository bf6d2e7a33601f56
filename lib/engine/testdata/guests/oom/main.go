// Command oom allocates memory in 64 MiB chunks, touching every page, until
// the runtime runs out of memory.
package main

import (
	"fmt"
	"os"
)

const chunkBytes = 64 << 20

var kept [][]byte

func main() {
	for i := 1; ; i++ {
		b := make([]byte, chunkBytes)
		for j := 0; j < len(b); j += 4096 {
			b[j] = byte(i)
		}
		kept = append(kept, b)
		fmt.Fprintf(os.Stderr, "oom: holding %d MiB\n", i*64)
	}
}
