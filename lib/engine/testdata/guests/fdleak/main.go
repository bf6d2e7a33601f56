// Command fdleak opens a file again and again and never closes it.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := os.WriteFile("leak", []byte("x"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fdleak:", err)
		os.Exit(1)
	}
	var open []*os.File // kept, so that no finalizer closes them
	for {
		f, err := os.Open("leak")
		if err != nil {
			fmt.Fprintf(os.Stderr, "fdleak: after %d files: %v\n", len(open), err)
			os.Exit(1)
		}
		open = append(open, f)
	}
}
