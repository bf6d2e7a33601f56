//go:build !wasip1

package main

import "time"

var origin = time.Now()

// monotonic is the time since the program started, outside wasip1.
func monotonic() int64 { return int64(time.Since(origin)) }
