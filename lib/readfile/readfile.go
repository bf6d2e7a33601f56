// Package readfile reads the host files that a world names (prebuilt
// modules, seeded disks and files) within a limit, and only when they are
// regular files: a device such as /dev/zero never ends, and opening a named
// pipe waits for a writer that may never come.
package readfile

import (
	"fmt"
	"io"
	"os"
)

// Regular returns the content of the regular file at path, refusing
// anything else (a directory, a device, a named pipe, a socket) and a file
// of more than limit bytes. The size is checked before reading, so a large
// sparse file costs nothing, and again while reading, so a file that grows
// meanwhile is still cut off at the limit.
func Regular(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// What was opened may not be what was looked at: look again.
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, limit)
	}
	return data, nil
}

// Refusal says why Regular would refuse the file that fi describes, as the
// end of a sentence that starts with its name ("is not a regular file (it
// is a named pipe)"), or "" if it would read it: for a caller that checks a
// file long before it is read, and names it in its own way.
func Refusal(fi os.FileInfo, limit int64) string {
	if !fi.Mode().IsRegular() {
		return fmt.Sprintf("is not a regular file (it is %s)", kind(fi.Mode()))
	}
	if fi.Size() > limit {
		return "is larger than the limit of " + Size(limit)
	}
	return ""
}

func regular(path string, fi os.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is not a regular file (it is %s)", path, kind(fi.Mode()))
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a plain file"
}

func tooLarge(path string, limit int64) error { return &TooLargeError{Path: path, Limit: limit} }

// TooLargeError is the error of a file over the limit it was read with.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than the limit of %s", e.Path, Size(e.Limit))
}

// Size writes a limit in the largest binary unit that divides it.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
