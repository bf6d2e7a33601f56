package disk

import (
	"errors"
	"testing"
)

func TestErrnoError(t *testing.T) {
	tests := []struct {
		e    Errno
		want string
	}{
		{ENOENT, "ENOENT"},
		{ENOTCAPABLE, "ENOTCAPABLE"},
		{EFBIG, "EFBIG"},
		{Errno(44), "ENOENT"},
		{Errno(9999), "errno 9999"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Errno(%d).Error() = %q, want %q", uint16(tt.e), got, tt.want)
		}
	}
	var err error = ENOENT
	if !errors.Is(err, ENOENT) {
		t.Error("errors.Is(ENOENT, ENOENT) is false")
	}
}

func TestErrnoNumbersAreWASI(t *testing.T) {
	// Numbers from the WASI preview 1 errno enum.
	want := map[Errno]uint16{
		EACCES: 2, EBADF: 8, EEXIST: 20, EFBIG: 22, EINVAL: 28, EIO: 29, EISDIR: 31, ELOOP: 32,
		ENAMETOOLONG: 37, ENOENT: 44, ENOSPC: 51, ENOTDIR: 54, ENOTEMPTY: 55, EPERM: 63, EXDEV: 75, ENOTCAPABLE: 76,
	}
	for e, n := range want {
		if uint16(e) != n {
			t.Errorf("%s = %d, want %d", e, uint16(e), n)
		}
	}
	if TypeDir != 3 || TypeRegular != 4 || TypeSymlink != 7 {
		t.Error("file types are not WASI filetype numbers")
	}
	if OCreate != 1 || ODirectory != 2 || OExcl != 4 || OTrunc != 8 {
		t.Error("open flags are not WASI oflags bits")
	}
}
