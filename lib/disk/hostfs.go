package disk

import (
	"fmt"
	"os"
)

// CopyIn copies the host directory hostDir onto the root of the disk before
// the program starts (a node's "disk" setting): see CopyFrom. This is the
// one place where the package reads the host; it runs before a simulation,
// never during one. It fails, naming hostDir, if hostDir is not a directory
// or cannot be read.
func (fs *FS) CopyIn(hostDir string) error {
	st, err := os.Stat(hostDir)
	if err != nil {
		return fmt.Errorf("copy in %s: %w", hostDir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("copy in %s: not a directory", hostDir)
	}
	if err := fs.CopyFrom(os.DirFS(hostDir)); err != nil {
		return fmt.Errorf("copy in %s: %w", hostDir, err)
	}
	return nil
}
