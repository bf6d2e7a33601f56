// Command escape tries to read files outside its simulated disk and prints
// what happened to each attempt: "escape: <attempt>: error: ..." or
// "escape: <attempt>: read N bytes: <content>". It exits 1 if any attempt read
// anything.
//
// Usage:
//
//	escape [host-path ...]
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	leaked := false
	try := func(what string, read func() ([]byte, error)) {
		b, err := read()
		if err != nil {
			fmt.Printf("escape: %s: error: %v\n", what, err)
			return
		}
		leaked = true
		fmt.Printf("escape: %s: read %d bytes: %q\n", what, len(b), b)
	}
	try("ReadFile /etc/passwd", func() ([]byte, error) { return os.ReadFile("/etc/passwd") })
	try("ReadFile ../../../../etc/passwd", func() ([]byte, error) { return os.ReadFile("../../../../etc/passwd") })
	for _, p := range os.Args[1:] {
		try("Open "+p, func() ([]byte, error) {
			f, err := os.Open(p)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return io.ReadAll(f)
		})
	}
	// A symlink on the simulated disk that points at a host path must
	// resolve inside the simulated disk too.
	if err := os.Symlink("/etc/passwd", "passwd-link"); err != nil {
		fmt.Printf("escape: Symlink: error: %v\n", err)
	}
	try("ReadFile passwd-link", func() ([]byte, error) { return os.ReadFile("passwd-link") })
	if len(os.Args) > 1 {
		if err := os.Symlink(os.Args[1], "host-link"); err != nil {
			fmt.Printf("escape: Symlink: error: %v\n", err)
		}
		try("ReadFile host-link", func() ([]byte, error) { return os.ReadFile("host-link") })
	}
	if leaked {
		fmt.Println("escape: read a file outside the simulated disk")
		os.Exit(1)
	}
	fmt.Println("escape: every attempt failed")
}
