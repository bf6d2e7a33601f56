// Command shortio writes a file of 1000 bytes, reads it back with one Read,
// as a program that trusts one Read to fill its buffer does, and then with
// io.ReadFull, and prints what each got. os.File's Write writes until every
// byte is written, so the file is whole even when a write is cut short.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

func main() {
	want := bytes.Repeat([]byte("0123456789"), 100)
	if err := os.WriteFile("blob", want, 0o644); err != nil {
		fmt.Println("write:", err)
		os.Exit(1)
	}
	f, err := os.Open("blob")
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	buf := make([]byte, len(want))
	n, err := f.Read(buf)
	fmt.Printf("one read: %d of %d bytes, err %v\n", n, len(want), err)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		fmt.Println("seek:", err)
		os.Exit(1)
	}
	n, err = io.ReadFull(f, buf)
	fmt.Printf("read full: %d of %d bytes, intact %v, err %v\n", n, len(want), bytes.Equal(buf, want), err)
}
