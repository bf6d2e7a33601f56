// Package atomicfile writes files so that a reader, or a run that was killed
// halfway, never sees half of one: the data goes to a temporary file in the
// same directory, which is synced and then renamed over the target.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically, creating the directory if
// needed. perm applies to a file that did not exist.
func WriteFile(path string, data []byte, perm os.FileMode) error {
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
