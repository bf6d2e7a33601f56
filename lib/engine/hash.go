package engine

import (
	"fmt"
	"time"
)

// CheckpointEvery is how many host calls one determinism checkpoint covers.
const CheckpointEvery = 4096

// Host call identifiers, as they enter the determinism hash. The numbers are
// part of the hash's definition: renumbering changes every hash.
type callID uint64

const (
	cArgsGet callID = iota + 1
	cArgsSizesGet
	cEnvironGet
	cEnvironSizesGet
	cClockTimeGet
	cRandomGet
	cPollOneoff
	cSchedYield
	cProcExit
	cFdRead
	cFdWrite
	cFdClose
	cFdSync
	cFdFdstatGet
	cFdFdstatSetFlags
	cFdFilestatGet
	cFdPrestatGet
	cFdPrestatDirName
	cPathOpen
	cPathFilestatGet
	cPathRename
	cFdPread
	cFdPwrite
	cFdSeek
	cFdReaddir
	cFdFilestatSetSize
	cFdFdstatSetRights
	cPathFilestatSetTimes
	cPathCreateDirectory
	cPathRemoveDirectory
	cPathUnlinkFile
	cPathLink
	cPathSymlink
	cPathReadlink
	cSockAccept
	cSockShutdown
	cUnsupported
	cSimFail
	cSimProperty
	cSimEvent
	cSimBudget
	cSimListen
	cSimDial
	cSimSockStatus
	cPollWake
	cSimBuggify
	cSimQuietFor
	cSimSetupComplete
	cSimHistory
	cNetListen // net_overlay (netoverlay.go)
	cNetDial
	cNetAddrs
	cSimUDP
	cMmapRegister // compat_overlay (mmap.go)
	cMmapUnregister
	cPreempt   // a preemption countdown reached zero (preempt.go)
	cNetNodeIP // net_overlay's node_ip (netoverlay.go)
)

var callNames = map[callID]string{
	cArgsGet: "args_get", cArgsSizesGet: "args_sizes_get", cEnvironGet: "environ_get",
	cEnvironSizesGet: "environ_sizes_get", cClockTimeGet: "clock_time_get", cRandomGet: "random_get",
	cPollOneoff: "poll_oneoff", cSchedYield: "sched_yield", cProcExit: "proc_exit", cFdRead: "fd_read",
	cFdWrite: "fd_write", cFdClose: "fd_close", cFdSync: "fd_sync", cFdFdstatGet: "fd_fdstat_get",
	cFdFdstatSetFlags: "fd_fdstat_set_flags", cFdFilestatGet: "fd_filestat_get", cFdPrestatGet: "fd_prestat_get",
	cFdPrestatDirName: "fd_prestat_dir_name", cPathOpen: "path_open", cPathFilestatGet: "path_filestat_get",
	cPathRename: "path_rename", cFdPread: "fd_pread", cFdPwrite: "fd_pwrite", cFdSeek: "fd_seek",
	cFdReaddir: "fd_readdir", cFdFilestatSetSize: "fd_filestat_set_size", cFdFdstatSetRights: "fd_fdstat_set_rights",
	cPathFilestatSetTimes: "path_filestat_set_times", cPathCreateDirectory: "path_create_directory",
	cPathRemoveDirectory: "path_remove_directory", cPathUnlinkFile: "path_unlink_file", cPathLink: "path_link",
	cPathSymlink: "path_symlink", cPathReadlink: "path_readlink", cSockAccept: "sock_accept",
	cSockShutdown: "sock_shutdown", cUnsupported: "unsupported", cSimFail: "sim.fail", cSimProperty: "sim.property",
	cSimEvent: "sim.event", cSimBudget: "sim.budget", cSimListen: "sim.listen", cSimDial: "sim.dial",
	cSimSockStatus: "sim.sock_status", cPollWake: "poll_oneoff wake", cSimBuggify: "sim.buggify",
	cSimQuietFor: "sim.quiet_for", cSimSetupComplete: "sim.setup_complete", cSimHistory: "sim.history",
	cNetListen: "net.tcp_listen", cNetDial: "net.tcp_dial", cNetAddrs: "net.tcp_addrs", cSimUDP: "sim.udp",
	cMmapRegister: "compat.mmap_register", cMmapUnregister: "compat.mmap_unregister",
	cPreempt: "preempt", cNetNodeIP: "net.node_ip",
}

func mixHash(h, v uint64) uint64 {
	h ^= v
	h *= 0x100000001b3
	h ^= h >> 29
	return h
}

// hcall adds one host call to the determinism hash: which call, which
// instance, two arguments that say what it did, and the virtual time. It
// allocates nothing unless the call falls in a recorded window.
func (in *instance) hcall(id callID, a, b uint64) {
	r := in.run
	r.calls++
	if r.opts.DivergeAtCall != 0 && r.calls == r.opts.DivergeAtCall {
		r.now++
	}
	if r.calls == r.opts.panicAtCall {
		panic("injected invariant failure")
	}
	h := r.hash
	h = mixHash(h, uint64(id))
	h = mixHash(h, in.hashID)
	h = mixHash(h, a)
	h = mixHash(h, b)
	h = mixHash(h, uint64(r.now))
	r.hash = h
	if r.calls%CheckpointEvery == 0 {
		r.res.Checkpoints = append(r.res.Checkpoints, h)
	}
	if w := r.opts.RecordCalls; w[1] > w[0] && r.calls > w[0] && r.calls <= w[1] {
		r.res.Calls = append(r.res.Calls, in.describeCall(id, a, b))
	}
}

func (in *instance) describeCall(id callID, a, b uint64) string {
	name := callNames[id]
	var arg string
	switch id {
	case cFdRead, cFdWrite, cFdPread, cFdPwrite, cFdSync, cFdClose, cFdSeek, cFdFilestatSetSize, cFdReaddir:
		target := fmt.Sprintf("fd %d", a)
		if f := in.fd(int32(a)); f != nil && f.path != "" {
			target = f.path
		}
		arg = fmt.Sprintf(" %s(%d)", target, b)
	case cRandomGet:
		arg = fmt.Sprintf("(%d)", a)
	default:
		arg = fmt.Sprintf("(%d, %d)", a, b)
	}
	return fmt.Sprintf("%s %s%s at %s", in.name, name, arg, time.Duration(in.run.now))
}

// hashString folds a string argument into one word for hcall.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// FirstDivergence compares two runs' checkpoints and returns the index of
// the first window of CheckpointEvery calls where they differ, or -1 when
// every checkpoint agrees (the final hashes may still differ in the last,
// partial window; the caller compares those).
func FirstDivergence(a, b []uint64) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// DescribeDivergence names the first host call at which two recordings of
// the same window differ, in the form the determinism check reports.
func DescribeDivergence(firstCall uint64, a, b []string) string {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			after := "the start of the window"
			if i > 0 {
				after = a[i-1]
			}
			return fmt.Sprintf("host call %d: %s vs %s, after %s", firstCall+uint64(i), a[i], b[i], after)
		}
	}
	if len(a) != len(b) {
		longer, which := a, "first"
		if len(b) > len(a) {
			longer, which = b, "second"
		}
		return fmt.Sprintf("host call %d: %s in the %s run only", firstCall+uint64(n), longer[n], which)
	}
	return ""
}
