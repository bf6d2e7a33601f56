package disk

import "strconv"

// Errno is a WASI errno number. It implements error; Error returns the
// symbolic name, such as "ENOENT".
type Errno uint16

// The errno values the file system returns, numbered as in WASI preview 1.
const (
	EACCES       Errno = 2
	EBADF        Errno = 8
	EEXIST       Errno = 20
	EFBIG        Errno = 22
	EINVAL       Errno = 28
	EIO          Errno = 29
	EISDIR       Errno = 31
	ELOOP        Errno = 32
	ENAMETOOLONG Errno = 37
	ENOENT       Errno = 44
	ENOSPC       Errno = 51
	ENOTDIR      Errno = 54
	ENOTEMPTY    Errno = 55
	EPERM        Errno = 63
	EXDEV        Errno = 75
	ENOTCAPABLE  Errno = 76
)

var errnoNames = map[Errno]string{
	EACCES:       "EACCES",
	EBADF:        "EBADF",
	EEXIST:       "EEXIST",
	EFBIG:        "EFBIG",
	EINVAL:       "EINVAL",
	EIO:          "EIO",
	EISDIR:       "EISDIR",
	ELOOP:        "ELOOP",
	ENAMETOOLONG: "ENAMETOOLONG",
	ENOENT:       "ENOENT",
	ENOSPC:       "ENOSPC",
	ENOTDIR:      "ENOTDIR",
	ENOTEMPTY:    "ENOTEMPTY",
	EPERM:        "EPERM",
	EXDEV:        "EXDEV",
	ENOTCAPABLE:  "ENOTCAPABLE",
}

// Error returns the symbolic name of e, or "errno N" for a number this
// package does not name.
func (e Errno) Error() string {
	if s, ok := errnoNames[e]; ok {
		return s
	}
	return "errno " + strconv.Itoa(int(e))
}
