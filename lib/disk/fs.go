package disk

import (
	"fmt"
	"slices"
	"sort"
)

// Ino is an inode number. Numbers come from a counter that starts at the
// root, RootIno, and are never reused within one FS.
type Ino uint64

// RootIno is the inode number of the root directory.
const RootIno Ino = 1

// FileType is the type of an inode, numbered as a WASI filetype.
type FileType uint8

// The file types an FS holds.
const (
	TypeDir     FileType = 3
	TypeRegular FileType = 4
	TypeSymlink FileType = 7
)

// String returns "dir", "file" or "symlink".
func (t FileType) String() string {
	switch t {
	case TypeDir:
		return "dir"
	case TypeRegular:
		return "file"
	case TypeSymlink:
		return "symlink"
	}
	return fmt.Sprintf("filetype(%d)", uint8(t))
}

// Stat describes an inode as the program sees it now.
type Stat struct {
	Ino   Ino
	Type  FileType
	Nlink uint64 // names of a file or symlink; 2 plus subdirectories for a directory; 0 once removed
	Size  int64  // bytes of a file, length of a symlink's target, 0 for a directory
	Atim  int64  // access time, ns
	Mtim  int64  // modification time, ns
	Ctim  int64  // status change time, ns
}

// DirEntry is one name in a directory.
type DirEntry struct {
	Name string
	Ino  Ino
	Type FileType
}

// OpenFlags select the behaviour of Open. The bits have the values of WASI
// oflags, so a host can pass them through.
type OpenFlags uint8

// The flags of Open.
const (
	OCreate    OpenFlags = 1 << 0 // create a regular file if the name does not exist
	ODirectory OpenFlags = 1 << 1 // fail with ENOTDIR unless the path names a directory
	OExcl      OpenFlags = 1 << 2 // with OCreate, fail with EEXIST if the name exists
	OTrunc     OpenFlags = 1 << 3 // truncate a regular file to 0 bytes, a truncate operation
)

// Limits. Reaching one is an error with its own errno, never a hang.
const (
	// NameBytesMax is the longest path component, as on Linux; longer is ENAMETOOLONG.
	NameBytesMax = 255
	// PathBytesMax is the longest path or symlink target, as on Linux; longer is ENAMETOOLONG.
	PathBytesMax = 4096
	// SymlinkHopsMax is how many symlinks one resolution follows, as on Linux; more is ELOOP.
	SymlinkHopsMax = 40
	// FileBytesMax is the largest file size on a disk with a capacity
	// (SetCapacity): a write or truncate past it fails with EFBIG. Files
	// live in memory, and the capacity counts their sizes.
	FileBytesMax = 1 << 30
	// SparseFileBytesMax is the largest file size on a disk without a
	// capacity, ext4's with 4 KiB blocks. A file costs the pages written
	// to it, not its size, so a program may make a large sparse file with a
	// truncate, as storage engines do to preallocate the files they map.
	SparseFileBytesMax = 16 << 40
	// PageBytes is the size of a page: the unit of writeback that crash
	// models, lost writes and misdirected writes work in.
	PageBytes = 4096
)

// FS is one node's in-memory file system. Create it with New.
type FS struct {
	// StrictDirs makes directory operations durable only when their parent
	// directory is synced (both parents for a rename), as strict POSIX
	// allows; Crash drops the others. Without it every directory operation is
	// durable as soon as it returns. Set it before the first operation.
	// Defaults to false.
	StrictDirs bool

	now           func() int64
	capacityBytes int64 // 0 means unlimited; see SetCapacity
	usedBytes     int64 // sum of the current sizes of all regular files
	inodes        map[Ino]*inode
	nextIno       Ino
	seq           uint64   // sequence number of the last write, truncate or directory operation
	dirOps        []*dirOp // pending directory operations in sequence order (StrictDirs only)

	pool pagePool // free pages, shared by the files of this FS
	// spareBufs are large write buffers (keepBytes) that no pending write
	// uses any more, for the next file that needs one.
	spareBufs [][]byte
	// syncPages is the pages a file's sync wrote, kept for the next sync
	// to reuse; nothing reads it between syncs.
	syncPages []int64
	// replayEverySync makes every Sync replay the pending writes byte by
	// byte, as a faulty one does (syncFile): tests compare the two ways.
	replayEverySync bool

	mutant     Mutant      // see SetMutant
	mutantHits int         // see MutantHits
	holes      []entryEdit // names MutantRenameNotAtomic keeps out of the durable namespace
}

// link is one name of an inode: entry name in directory dir.
type link struct {
	dir  Ino
	name string
}

// inode is a file, directory or symlink.
type inode struct {
	ino              Ino
	typ              FileType
	atim, mtim, ctim int64

	// links are the current names of the inode, oldest first. PathOf uses the
	// first. A directory has at most one.
	links []link
	// lastPath is the path the inode had when its last name went away.
	lastPath string
	// durableLinks counts the durable entries that name the inode.
	durableLinks int
	// uncounted says the inode's bytes no longer count in the disk's usage:
	// it lost its last name while no handle held it (Unnamed), and stays
	// only for what a crash does with it.
	uncounted bool

	// Regular files. data and durable share the pages on which they agree
	// (see content).
	data    content   // current content: what reads see
	durable content   // durable content: what a crash keeps
	pool    *pagePool // the FS's pool, for data and durable
	pending []fileOp  // writes and truncates since the last Sync, oldest first
	// deferred lists, by index in pending, the pending writes whose bytes
	// are still only in data (fileOp.deferred). deferredLo and deferredHi
	// are the first and past-the-last offsets they cover, so that a write
	// elsewhere need not look at them; deferredHi is 0 when there is none.
	deferred               []int
	deferredLo, deferredHi int64
	// opBuf holds the kept bytes of pending writes back to back (see
	// keepDeferred); it is reused once pending is empty. spentBufs are the
	// large buffers it filled before, which pending writes still use.
	opBuf     []byte
	spentBufs [][]byte
	// stale holds the pages whose durable content is not what the pending
	// operations replayed on it would make of the current content: pages
	// whose writes a failed, lost or misdirected Sync did not write, and the
	// target of a misdirected write. A later Sync that writes to a stale page
	// writes it in full. Crash clears it.
	stale map[int64]bool
	// damaged lists the durable byte ranges that hold wrong data: flipped
	// bits, lost and misdirected pages. It survives crashes and shrinks when
	// the bytes are written again durably or truncated away.
	damaged ranges

	// Directories.
	entries        map[string]Ino // current entries
	durableEntries map[string]Ino // durable entries
	parent         Ino            // current parent; the root's is itself
	subdirs        int            // current entries that are directories
	dead           bool           // removed by Rmdir or replaced by Rename

	// Symlinks.
	target string
}

// fileOp is one pending write or truncate of a regular file.
type fileOp struct {
	seq      uint64 // per-FS operation number, shared with other files and directory operations
	truncate bool   // a truncate to size off; otherwise a write of data at off
	off      int64
	data     []byte
	// deferred is the length of a write whose bytes were not copied when it
	// was made: they are the current content's at off, which nothing has
	// changed since, and data is nil until something needs them
	// (keepDeferred). A sync without faults needs only the lengths, so a
	// write+fsync loop copies each write once, into the current content.
	deferred int64
	// rest marks the unwritten rest of a write that a crash during Sync
	// tore; CrashWith does not count it as an operation of its own.
	rest bool
}

// New returns an FS holding an empty root directory. now gives the virtual
// wall-clock time in ns used for timestamps; nil means always 0.
func New(now func() int64) *FS {
	if now == nil {
		now = func() int64 { return 0 }
	}
	fs := &FS{now: now, inodes: make(map[Ino]*inode), nextIno: RootIno}
	root := fs.alloc(TypeDir)
	root.parent = root.ino
	return fs
}

// Root returns the inode number of the root directory.
func (fs *FS) Root() Ino { return RootIno }

func (fs *FS) alloc(typ FileType) *inode {
	t := fs.now()
	n := &inode{ino: fs.nextIno, typ: typ, atim: t, mtim: t, ctim: t, pool: &fs.pool}
	fs.nextIno++
	if typ == TypeDir {
		n.entries = make(map[string]Ino)
		n.durableEntries = make(map[string]Ino)
	}
	fs.inodes[n.ino] = n
	return n
}

func (fs *FS) nextSeq() uint64 {
	fs.seq++
	return fs.seq
}

// get returns the inode ino, or EBADF if there is none.
func (fs *FS) get(ino Ino) (*inode, error) {
	n := fs.inodes[ino]
	if n == nil {
		return nil, EBADF
	}
	return n, nil
}

// Stat describes the inode ino, or fails with EBADF if it does not exist.
func (fs *FS) Stat(ino Ino) (Stat, error) {
	n, err := fs.get(ino)
	if err != nil {
		return Stat{}, err
	}
	st := Stat{Ino: n.ino, Type: n.typ, Atim: n.atim, Mtim: n.mtim, Ctim: n.ctim}
	switch n.typ {
	case TypeRegular:
		st.Size = n.data.size
		st.Nlink = uint64(len(n.links))
	case TypeSymlink:
		st.Size = int64(len(n.target))
		st.Nlink = uint64(len(n.links))
	case TypeDir:
		if !n.dead {
			st.Nlink = 2 + uint64(n.subdirs)
		}
	}
	return st, nil
}

// ReadAt reads from the current content of a regular file at off. It returns
// n < len(p) at the end of the file, never io.EOF. It fails with EISDIR for a
// directory, EINVAL for a symlink or a negative offset, and EBADF for an
// unknown inode.
func (fs *FS) ReadAt(ino Ino, p []byte, off int64) (int, error) {
	return fs.ReadAtOnto(ino, p, off, ClearNonZero)
}

// ReadAtOnto is ReadAt for a p whose parts of zeros the caller knows more
// cheaply than by reading them: zero(b) makes b, the part of p a run of the
// file's holes reads into, hold only zeros (ClearNonZero, or a way that
// writes the same bytes with less). A caller that knows which pages of p
// were never touched (a guest's fresh memory) spares them a read and a
// write.
func (fs *FS) ReadAtOnto(ino Ino, p []byte, off int64, zero func([]byte)) (int, error) {
	n, err := fs.regular(ino)
	if err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, EINVAL
	}
	return n.data.readAt(p, off, zero), nil
}

// WriteAt writes p at off into the current content of a regular file,
// extending it with zeros if off is past its end, and records the write as
// pending until the next Sync. An empty p does nothing. It fails with EFBIG
// past the largest file size (fileBytesMax), and as ReadAt does for other
// misuse.
//
// With a capacity (SetCapacity), a write that would grow the disk's usage
// past it writes the bytes that fit and returns their count with a nil
// error; when not one byte fits it fails with ENOSPC. Bytes inside the
// current size always fit.
func (fs *FS) WriteAt(ino Ino, p []byte, off int64) (int, error) {
	n, err := fs.regular(ino)
	if err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, EINVAL
	}
	if len(p) == 0 {
		return 0, nil
	}
	if off > fs.fileBytesMax()-int64(len(p)) {
		return 0, EFBIG
	}
	if fs.capacityBytes > 0 {
		size := n.data.size
		endMax := size + max(fs.capacityBytes-fs.usedBytes, 0)
		if end := off + int64(len(p)); end > endMax {
			if endMax <= off {
				return 0, ENOSPC
			}
			p = p[:endMax-off]
		}
	}
	fs.write(n, p, off)
	return len(p), nil
}

// write records a write of p at off to the regular file n, with no checks.
// Its bytes go into the current content only; when it may overwrite those
// of a deferred pending write, every deferred write keeps its bytes first
// (all of them, so that each write is copied at most once however the
// writes interleave: looking for the ones it overwrites made random writes
// without an fsync cost a walk of every pending write each).
func (fs *FS) write(n *inode, p []byte, off int64) {
	end := off + int64(len(p))
	if off < n.deferredHi && end > n.deferredLo {
		fs.keepAllDeferred(n)
	}
	op := fileOp{seq: fs.nextSeq(), off: off, deferred: int64(len(p))}
	old := n.data.size
	n.data.writeAt(p, off, &n.durable, n.pool)
	fs.usedBytes += n.data.size - old
	n.pending = append(n.pending, op)
	if len(p) > 0 {
		n.deferred = append(n.deferred, len(n.pending)-1)
		if n.deferredHi == 0 {
			n.deferredLo, n.deferredHi = off, end
		} else {
			n.deferredLo, n.deferredHi = min(n.deferredLo, off), max(n.deferredHi, end)
		}
	}
	n.touch(fs.now())
}

// size returns how many bytes a write op writes.
func (op fileOp) size() int64 {
	if op.deferred > 0 {
		return op.deferred
	}
	return int64(len(op.data))
}

// bytes returns the bytes of a write op. Only kept bytes can be read this
// way: whatever reads a pending write's bytes keeps them first
// (keepDeferred), and reading a deferred write's is a bug in the disk.
func (op fileOp) bytes() []byte {
	if op.deferred > 0 {
		panic(fmt.Sprintf("disk: bytes of the write of seq %d were not kept", op.seq))
	}
	return op.data
}

// writeBytes returns the bytes of the pending write op of n, kept or not,
// without keeping them: for readers that do not hold on to them.
func (n *inode) writeBytes(op fileOp) []byte {
	if op.deferred == 0 {
		return op.data
	}
	b := make([]byte, op.deferred)
	if k := n.data.readAt(b, op.off, ClearNonZero); int64(k) != op.deferred {
		panic(fmt.Sprintf("disk: ino %d: a pending write of %d bytes at %d outlived the content's end", n.ino, op.deferred, op.off))
	}
	return b
}

// keepAllDeferred copies the bytes of every deferred pending write of n
// from the current content: before anything changes them there, and for the
// syncs and crashes that replay or tear them.
func (fs *FS) keepAllDeferred(n *inode) {
	for _, i := range n.deferred {
		op := &n.pending[i]
		b := fs.opBytes(n, int(op.deferred))
		if k := n.data.readAt(b, op.off, ClearNonZero); k != len(b) {
			panic(fmt.Sprintf("disk: ino %d: a pending write of %d bytes at %d outlived the content's end", n.ino, len(b), op.off))
		}
		op.data, op.deferred = b, 0
	}
	n.deferred = n.deferred[:0]
	n.deferredLo, n.deferredHi = 0, 0
}

// opBufBytes bounds the buffer that an inode keeps for the bytes of its small
// pending writes. A write of more than half of it, or one that finds such a
// buffer full, goes to a large buffer of bigBufBytes, which the file gives
// back to its FS's spare ones once it has no pending write. Writes of more
// than half of bigBufBytes get an allocation of their own.
const (
	opBufBytes   = 64 << 10
	bigBufBytes  = 1 << 20
	spareBufsMax = 8
)

// opBytes returns room for k kept bytes of a pending write of n. The room
// is taken from n.opBuf, back to back, which is reused from the start once n
// has no pending operation: nothing reads the data of an operation after it
// left pending. So keeping bytes makes little garbage: a file keeps at most
// opBufBytes between its syncs, and large buffers go round between the FS's
// files (releaseOpBufs). Copying every 64 KiB write of a B+tree's commits
// anew was most of what sf-run allocated in bbolt's worlds, before writes
// left their bytes in the current content until a fault needs them.
func (fs *FS) opBytes(n *inode, k int) []byte {
	if k > bigBufBytes/2 {
		return make([]byte, k)
	}
	if len(n.opBuf)+k > cap(n.opBuf) {
		// The old buffer stays with the pending writes that use it.
		if cap(n.opBuf) > opBufBytes {
			n.spentBufs = append(n.spentBufs, n.opBuf)
		}
		if k > opBufBytes/2 || cap(n.opBuf) >= opBufBytes {
			n.opBuf = fs.bigBuf()
		} else {
			n.opBuf = make([]byte, 0, min(max(2*cap(n.opBuf), 4*k, 4<<10), opBufBytes))
		}
	}
	at := len(n.opBuf)
	n.opBuf = n.opBuf[:at+k]
	return n.opBuf[at : at+k : at+k]
}

// bigBuf returns an empty buffer of bigBufBytes, a spare one if there is one.
func (fs *FS) bigBuf() []byte {
	if k := len(fs.spareBufs); k > 0 {
		b := fs.spareBufs[k-1]
		fs.spareBufs[k-1] = nil
		fs.spareBufs = fs.spareBufs[:k-1]
		return b[:0]
	}
	return make([]byte, 0, bigBufBytes)
}

// releaseOpBufs gives n's large write buffers back to the FS. Call it only
// when n has no pending write, since they hold the bytes of pending writes.
func (fs *FS) releaseOpBufs(n *inode) {
	if cap(n.opBuf) > opBufBytes {
		n.spentBufs = append(n.spentBufs, n.opBuf)
		n.opBuf = nil
	}
	n.opBuf = n.opBuf[:0]
	n.deferred = n.deferred[:0]
	n.deferredLo, n.deferredHi = 0, 0
	for i, b := range n.spentBufs {
		if len(fs.spareBufs) < spareBufsMax {
			fs.spareBufs = append(fs.spareBufs, b)
		}
		n.spentBufs[i] = nil
	}
	n.spentBufs = n.spentBufs[:0]
}

// Truncate sets the size of a regular file, dropping bytes past size or
// extending with zeros, and records it as pending until the next Sync. It
// fails with EINVAL for a negative size or a symlink, EFBIG past the largest
// file size (fileBytesMax), and EISDIR for a directory.
func (fs *FS) Truncate(ino Ino, size int64) error {
	n, err := fs.regular(ino)
	if err != nil {
		return err
	}
	if size < 0 {
		return EINVAL
	}
	if size > fs.fileBytesMax() {
		return EFBIG
	}
	fs.truncate(n, size)
	return nil
}

// fileBytesMax is the largest file size: FileBytesMax on a disk with a
// capacity, SparseFileBytesMax otherwise.
func (fs *FS) fileBytesMax() int64 {
	if fs.capacityBytes > 0 {
		return FileBytesMax
	}
	return SparseFileBytesMax
}

func (fs *FS) truncate(n *inode, size int64) {
	if size < n.deferredHi {
		fs.keepAllDeferred(n)
	}
	op := fileOp{seq: fs.nextSeq(), truncate: true, off: size}
	fs.usedBytes += size - n.data.size
	n.data.resize(size, &n.durable, n.pool)
	n.pending = append(n.pending, op)
	n.touch(fs.now())
}

// regular returns the regular file ino.
func (fs *FS) regular(ino Ino) (*inode, error) {
	n, err := fs.get(ino)
	if err != nil {
		return nil, err
	}
	switch n.typ {
	case TypeDir:
		return nil, EISDIR
	case TypeSymlink:
		return nil, EINVAL
	}
	return n, nil
}

func (n *inode) touch(now int64) {
	n.mtim = now
	n.ctim = now
}

// Sync makes an inode durable. For a regular file the current content and
// size become durable and its pending operations are cleared. For a directory
// under StrictDirs, the pending directory operations in it become durable
// (see StrictDirs); otherwise directory operations are durable already and
// Sync of a directory or symlink does nothing. It fails with EBADF for an
// unknown inode.
func (fs *FS) Sync(ino Ino) error {
	n, err := fs.get(ino)
	if err != nil {
		return err
	}
	if fs.mutant != MutantNone {
		if len(fs.holes) > 0 {
			fs.fillHoles()
		}
		if fs.mutantSync(n) {
			return nil
		}
	}
	switch n.typ {
	case TypeRegular:
		fs.syncFile(n, nil)
	case TypeDir:
		fs.syncDir(n.ino)
	}
	return nil
}

// SetTimes sets the access and modification times of an inode in ns, and its
// status change time to now. It fails with EBADF for an unknown inode.
func (fs *FS) SetTimes(ino Ino, atim, mtim int64) error {
	n, err := fs.get(ino)
	if err != nil {
		return err
	}
	n.atim, n.mtim, n.ctim = atim, mtim, fs.now()
	return nil
}

// Parent returns the directory that holds a directory, for ".." entries. The
// root's parent is the root. A removed directory keeps the parent it had. For
// a file or symlink it is the directory of its first name, and the root when
// it has none or the inode is unknown.
func (fs *FS) Parent(ino Ino) Ino {
	n := fs.inodes[ino]
	switch {
	case n == nil:
		return RootIno
	case n.typ == TypeDir:
		return n.parent
	case len(n.links) > 0:
		return n.links[0].dir
	}
	return RootIno
}

// PathOf returns a readable path of an inode for traces, such as
// "data/kv.log": its first name, "" for the root, "data/kv.log (deleted)" once
// its last name is gone, and "(unknown ino N)" for an inode that does not
// exist.
func (fs *FS) PathOf(ino Ino) string {
	n := fs.inodes[ino]
	switch {
	case n == nil:
		return fmt.Sprintf("(unknown ino %d)", ino)
	case ino == RootIno:
		return ""
	case len(n.links) == 0:
		if n.lastPath == "" {
			return fmt.Sprintf("(deleted ino %d)", ino)
		}
		return n.lastPath + " (deleted)"
	}
	l := n.links[0]
	if dir := fs.PathOf(l.dir); dir != "" {
		return dir + "/" + l.name
	}
	return l.name
}

// ReadDir lists a directory, sorted by name, without "." and "..". It fails
// with ENOTDIR for another type and EBADF for an unknown inode.
func (fs *FS) ReadDir(ino Ino) ([]DirEntry, error) {
	d, err := fs.dirInode(ino)
	if err != nil {
		return nil, err
	}
	out := make([]DirEntry, 0, len(d.entries))
	for name, e := range d.entries {
		out = append(out, DirEntry{Name: name, Ino: e, Type: fs.inodes[e].typ})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// dirInode returns the directory ino.
func (fs *FS) dirInode(ino Ino) (*inode, error) {
	n, err := fs.get(ino)
	if err != nil {
		return nil, err
	}
	if n.typ != TypeDir {
		return nil, ENOTDIR
	}
	return n, nil
}

// Unnamed tells the FS that ino just lost its last name (a removal, or a
// rename over it) while no open handle refers to it. Its bytes stop counting
// in the disk's usage at once, as on Linux, where removing a closed file
// frees its space. The inode itself stays as it is, pending writes and all,
// until the next Crash: a crash plans its pending writes (the same random
// draws whether or not a file was removed), and under StrictDirs a removal
// not yet synced may bring it back. Unnamed does nothing to an inode that
// still has a name or is not a regular file.
func (fs *FS) Unnamed(ino Ino) {
	n := fs.inodes[ino]
	if n == nil || n.typ != TypeRegular || len(n.links) > 0 || n.uncounted {
		return
	}
	n.uncounted = true
	fs.usedBytes -= n.data.size
}

// Release tells the FS that no open handle refers to ino any more. An inode
// with no name, no durable entry and no pending directory operation naming it
// is then freed, and its Ino becomes unknown (EBADF); one with no name that a
// crash may still bring back stays, but no longer counts in the usage
// (Unnamed). An inode with a name is left as it is. Without Release, nameless
// inodes live until the next Crash.
func (fs *FS) Release(ino Ino) {
	n := fs.inodes[ino]
	if n == nil || ino == RootIno || len(n.links) > 0 {
		return
	}
	if n.durableLinks > 0 {
		fs.Unnamed(ino) // kept for a crash that may bring it back
		return
	}
	for _, op := range fs.dirOps {
		for _, e := range op.edits {
			if e.ino == ino || e.dir == ino {
				fs.Unnamed(ino)
				return
			}
		}
	}
	if !n.uncounted {
		fs.usedBytes -= n.data.size
	}
	delete(fs.inodes, ino)
	n.data.giveBack(&n.durable, n.pool)
}

// FileInfo is one path in the current view, for an inspect view.
type FileInfo struct {
	Path         string
	Ino          Ino
	Type         FileType
	Size         int64 // current size, as Stat reports it
	DurableSize  int64 // size a crash would keep; 0 for directories and symlinks
	PendingBytes int64 // bytes written since the last Sync
	PendingOps   int   // writes and truncates since the last Sync
	// Corrupted lists the durable byte ranges [start, end) that hold wrong
	// data: bits flipped by bit rot or a crash, and pages a lost or
	// misdirected write left with the wrong content. Sorted, disjoint.
	Corrupted [][2]int64
}

// Files lists every path in the current view except the root, sorted by
// path. A file with several names appears once per name. Inodes with no name
// are not listed.
func (fs *FS) Files() []FileInfo {
	var out []FileInfo
	var walk func(d *inode, prefix string)
	walk = func(d *inode, prefix string) {
		for name, ino := range d.entries {
			n := fs.inodes[ino]
			fi := FileInfo{Path: prefix + name, Ino: ino, Type: n.typ}
			switch n.typ {
			case TypeRegular:
				fi.Size = n.data.size
				fi.DurableSize = n.durable.size
				fi.PendingOps = len(n.pending)
				for _, op := range n.pending {
					fi.PendingBytes += op.size()
				}
				if len(n.damaged) > 0 {
					fi.Corrupted = slices.Clone([][2]int64(n.damaged))
				}
			case TypeSymlink:
				fi.Size = int64(len(n.target))
			case TypeDir:
				walk(n, fi.Path+"/")
			}
			out = append(out, fi)
		}
	}
	walk(fs.inodes[RootIno], "")
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
