// Command diskfull fills a small disk and gives its space back the ways a
// program does: by removing a closed file, by renaming a file over another,
// and by closing a file it removed while it was open (whose space comes back
// only then, as on Linux). It prints one line per step and exits 1 on the
// first result that differs from what a disk of 64 KiB that counts only the
// files' bytes gives (sf's disk_bytes). Run it with such a disk.
package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

const kib = 1024

func fail(format string, args ...any) {
	fmt.Printf("diskfull: FAIL "+format+"\n", args...)
	os.Exit(1)
}

// write writes n bytes to a new file at path and reports the error.
func write(path string, n int) error {
	return os.WriteFile(path, make([]byte, n), 0o644)
}

func fits(path string, n int) {
	if err := write(path, n); err != nil {
		fail("write %d KiB to %s: %v", n/kib, path, err)
	}
	fmt.Printf("%s: %d KiB written\n", path, n/kib)
}

func full(path string, n int) {
	err := write(path, n)
	if !errors.Is(err, syscall.ENOSPC) {
		fail("write %d KiB to %s: got %v, want ENOSPC", n/kib, path, err)
	}
	fmt.Printf("%s: %d KiB do not fit\n", path, n/kib)
	os.Remove(path)
}

func main() {
	fits("a", 48*kib)
	full("b", 32*kib)
	if err := os.Remove("a"); err != nil {
		fail("remove a: %v", err)
	}
	fits("b", 32*kib) // a's space came back with its removal

	fits("c", 20*kib)
	if err := os.Rename("c", "b"); err != nil { // b's 32 KiB go
		fail("rename c over b: %v", err)
	}
	fits("d", 40*kib)
	if err := os.Remove("d"); err != nil {
		fail("remove d: %v", err)
	}

	f, err := os.Create("e")
	if err != nil {
		fail("create e: %v", err)
	}
	if _, err := f.Write(make([]byte, 40*kib)); err != nil {
		fail("write e: %v", err)
	}
	if err := os.Remove("e"); err != nil {
		fail("remove e: %v", err)
	}
	full("g", 20*kib) // e, open, still holds its 40 KiB
	if err := f.Close(); err != nil {
		fail("close e: %v", err)
	}
	fits("g", 20*kib)
	fmt.Println("diskfull: ok")
}
