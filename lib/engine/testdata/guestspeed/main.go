// Guestspeed times a few kernels of the kind a node runs in one scheduler
// step, and prints one "name ns/op" line each. BenchmarkGuestSpeed builds it
// natively and for wasip1 and runs both, to compare the same Go code as
// native machine code and as wasm under wazero.
//
// It reads the real clock on purpose: it is a benchmark program, never a
// guest of a simulated run.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"
)

// sink keeps results alive so that the compiler cannot drop the work.
var sink int

func main() {
	target := flag.Duration("target", 200*time.Millisecond, "how long each kernel runs at least")
	only := flag.String("kernel", "", "run only this kernel")
	flag.Parse()
	kernels := []struct {
		name string
		run  func(n int)
	}{
		{"pingpong", pingpong},
		{"sprintf", sprintf},
		{"map", mapUpdate},
		{"timer", timer},
		{"clock", clock},
	}
	ran := false
	for _, k := range kernels {
		if *only != "" && k.name != *only {
			continue
		}
		ran = true
		fmt.Printf("%s %.1f\n", k.name, measure(k.run, *target))
	}
	if !ran {
		fmt.Fprintf(os.Stderr, "guestspeed: no kernel named %q\n", *only)
		os.Exit(2)
	}
}

// measure grows n until one run of n operations takes at least target, as
// the testing package does, and returns the time of one operation in ns.
func measure(run func(n int), target time.Duration) float64 {
	n := 1
	for {
		runtime.GC()
		start := time.Now()
		run(n)
		d := time.Since(start)
		if d >= target || n >= 1e9 {
			return float64(d.Nanoseconds()) / float64(n)
		}
		// Aim 20% past the target from the rate so far, growing at most
		// 100 times per round so that one slow first run cannot overshoot.
		next := n * 100
		if d > 0 {
			next = min(next, int(float64(n)*1.2*float64(target)/float64(d)))
		}
		n = max(next, n+1)
	}
}

// pingpong is one round trip between two goroutines over unbuffered
// channels: two parks and two wakes through Go's scheduler.
func pingpong(n int) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	for i := range n {
		ping <- i
		sink += <-pong
	}
	close(ping)
	<-pong
}

// sprintf formats a request line and converts a number both ways, as a
// node's protocol code does.
func sprintf(n int) {
	for i := range n {
		s := fmt.Sprintf("put key-%d %s %d", i&1023, "value", i)
		v, _ := strconv.Atoi(strconv.Itoa(i))
		sink += len(s) + v
	}
}

// mapUpdate reads and writes a map with string keys, deleting now and then
// so that the map keeps both hits and misses.
func mapUpdate(n int) {
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = "key-" + strconv.Itoa(i)
	}
	m := map[string]int{}
	for i := range n {
		k := keys[(i*7)&4095]
		m[k] += i
		if i&15 == 0 {
			delete(m, keys[(i*13)&4095])
		}
	}
	sink += len(m)
}

// timer arms a timer that is already due and waits for its function to
// wake this goroutine: the runtime's timer check and a goroutine wake.
func timer(n int) {
	done := make(chan struct{})
	t := time.AfterFunc(time.Hour, func() { done <- struct{}{} })
	for range n {
		t.Reset(0)
		<-done
	}
	t.Stop()
}

// clock reads the time: a vDSO call natively, a host call (clock_time_get)
// in wasm.
func clock(n int) {
	for range n {
		sink += time.Now().Nanosecond()
	}
}
