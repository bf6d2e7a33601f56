// Command client is the workload of sf-mutate's tests: it waits a second
// and exits 0.
package main

import "time"

func main() { time.Sleep(time.Second) }
