// Package atomicfile writes files so that a reader, or a run that was killed
// halfway, never sees half of one: the data goes to a temporary file in the
// same directory, which is synced and then renamed over the target.
//
// A target that is not a regular file (a device such as /dev/stdout, a named
// pipe) is written in place, since renaming over it would replace the device
// with a file; a symbolic link is followed, so that the link stays and the
// file it names is replaced.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically, creating the directory if
// needed. perm applies to a file that did not exist.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return writeInPlace(path, data)
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
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

// writeInPlace writes data to something that is there to be written to,
// not replaced: a device or a pipe.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
