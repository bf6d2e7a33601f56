// Command bigframe calls a function with a 32 KiB frame from fresh
// goroutines, whose stacks start at a few KiB, and checks every result.
// Go's wasm backend checks a frame that large with
// SP <= stackguard0 + (framesize - StackSmall) in 32-bit arithmetic, which
// wraps when stackguard0 holds stackPreempt: a preemption request pending
// at the function's entry then lets it take its frame below the end of its
// stack instead of growing the stack. wasmrewrite widens that check (its
// widenLargeCheck); without it, preempt strategy random corrupts memory
// here within a few seeds.
//
// It exits 3 if a result is wrong and 0 otherwise.
package main

import (
	"fmt"
	"os"
	"sync"
)

//go:noinline
func fill(seed int) int {
	var table [4096]uint64
	for i := range table {
		table[i] = uint64(i * seed)
	}
	sum := 0
	for i := 0; i < len(table); i += 97 {
		sum += int(table[i] & 0xff)
	}
	return sum
}

func expect(seed int) int {
	sum := 0
	for i := 0; i < 4096; i += 97 {
		sum += (i * seed) & 0xff
	}
	return sum
}

func main() {
	for round := 0; round < 500; round++ {
		var wg sync.WaitGroup
		wrong := make(chan string, 4)
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func(seed int) {
				defer wg.Done()
				if got, want := fill(seed), expect(seed); got != want {
					wrong <- fmt.Sprintf("fill(%d) = %d, want %d", seed, got, want)
				}
			}(round*4 + g)
		}
		wg.Wait()
		select {
		case msg := <-wrong:
			fmt.Println(msg)
			os.Exit(3)
		default:
		}
	}
	fmt.Println("ok")
}
