// Package atomicfile writes files so that a reader, or a run that was killed
// halfway, never sees half of one: the data goes to a temporary file in the
// same directory, which is synced and then renamed over the target.
//
// Some targets are there to be written to, not replaced: a path under /dev
// or /proc (-md /dev/stdout, which may lead to a terminal, a pipe or a file
// the shell redirected to) and anything that is not a regular file (a named
// pipe). Those get the data appended in place. A symbolic link is followed,
// so the link stays and the file it names is replaced.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// errIsDir is the error of a target that is a directory.
var errIsDir = errors.New("is a directory: name a file to write")

// WriteFile writes data to path atomically, creating the directory if
// needed. A new file gets perm; a file that existed keeps its permissions.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	if inPlace(path) {
		return appendInPlace(path, data)
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	} else if target, lerr := os.Readlink(path); lerr == nil {
		// A link to a file that does not exist yet: create the file.
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	} else if err == nil && fi.IsDir() {
		// The rename would fail with "file exists", naming the temporary
		// file rather than the mistake.
		return &os.PathError{Op: "write", Path: path, Err: errIsDir}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

// StaleAge is how old a temporary file of WriteFile must be for
// RemoveStale to take it for the leftover of a writer that was killed: an
// hour. A live writer renames its file within seconds of creating it (the
// largest artifact is a 64 MiB trace), so a sweep running at the same time
// in the same folder never loses a file it is writing.
const StaleAge = time.Hour

// RemoveStale removes from dir the temporary files that WriteFile leaves
// when its process is killed between creating and renaming one
// (.NAME.tmp-NNN), once they are older than age, and returns how many it
// removed. A folder that does not exist holds none.
func RemoveStale(dir string, age time.Duration, now time.Time) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".") || !strings.Contains(name, ".tmp-") || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil || now.Sub(fi.ModTime()) < age {
			continue
		}
		if os.Remove(filepath.Join(dir, name)) == nil {
			removed++
		}
	}
	return removed, nil
}

// inPlace says whether path is to be written to rather than replaced.
func inPlace(path string) bool {
	if abs, err := filepath.Abs(path); err == nil {
		for _, d := range []string{"/dev/", "/proc/"} {
			if strings.HasPrefix(abs, d) {
				return true
			}
		}
	}
	fi, err := os.Stat(path)
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}

// appendInPlace writes data to what path leads to. Standard output and
// standard error are written through the process's own descriptor, so that the data lands at its offset, between what the program
// wrote before and after, even when it leads to a file; anything else is
// opened for appending.
func appendInPlace(path string, data []byte) error {
	if f := stdStream(path); f != nil {
		_, err := f.Write(data)
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// stdStream is os.Stdout or os.Stderr when path names it, else nil.
// (Another descriptor of the process, such as the /dev/fd/63 of a shell's
// process substitution, is a pipe, which opening for appending serves.)
func stdStream(path string) *os.File {
	p := filepath.Clean(path)
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(p, dir); ok {
			p = "/dev/fd/" + n
		}
	}
	switch p {
	case "/dev/stdout", "/dev/fd/1":
		return os.Stdout
	case "/dev/stderr", "/dev/fd/2":
		return os.Stderr
	}
	return nil
}
