// Command nanosleep polls forever with the shortest sleep there is, as a
// program that waits for a flag with time.Sleep(time.Nanosecond) does.
package main

import "time"

func main() {
	for {
		time.Sleep(time.Nanosecond)
	}
}
