// Package disk is one node's simulated file system, kept in memory.
//
// An FS separates what the program sees from what survives a crash. Reads and
// writes go to the page cache, the current content of each file. The durable
// image is what a power cut leaves behind: each regular file has a durable
// content, and each directory has durable entries. Between the two sit the
// pending operations: for each file the writes and truncates since its last
// successful Sync, and, with StrictDirs, the directory operations whose parent
// directories have not been synced yet. Crash makes the view exactly the
// durable image. CrashWith applies the spec's other crash rules (torn writes,
// reordered writeback within a file system model, a crash during a sync,
// corruption of the bytes being written) as functions of this pending state
// and a random stream.
//
// The disk faults are functions too: SyncEIO, SyncLosingPage,
// SyncMisdirected, BitRot and FlipBit, and a capacity (SetCapacity) that cuts
// writes short and then fails them with ENOSPC. The caller decides when a
// fault fires and passes the stream, keyed by seed, fault kind, node and
// operation number, from which the fault draws what it hits; the same stream
// gives the same result. AddFile, CopyFrom and CopyIn seed a disk before a
// run.
//
// Paths are always relative to a directory inode and can never leave the file
// system: an absolute path, or one that climbs above the root with "..",
// fails with ENOTCAPABLE, and an absolute symlink target is resolved from the
// root of this FS, never the host.
//
// Open file handles belong to the caller. An inode stays readable and writable
// by its Ino after its last name is removed, until Crash or Release.
//
// An FS is not safe for concurrent use; the caller serializes calls, as a node
// runs one host call at a time. Nothing in it reads the host clock or a random
// source other than the streams passed in, only CopyIn reads the host's files,
// and every list it returns is sorted, so the same calls give the same
// results.
package disk
