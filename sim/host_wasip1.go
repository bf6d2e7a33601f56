//go:build wasip1

package sim

import (
	"os"
	"unsafe"
)

// The engine's host module. Strings and byte slices travel as a pointer and a
// length into the guest's memory; results come back as a WASI errno.

//go:wasmimport seedfall fail
func sfFail(msg unsafe.Pointer, msgLen uint32)

//go:wasmimport seedfall property
func sfProperty(kind uint32, cond uint32, msg unsafe.Pointer, msgLen uint32, details unsafe.Pointer, detailsLen uint32)

//go:wasmimport seedfall event
func sfEvent(name unsafe.Pointer, nameLen uint32, details unsafe.Pointer, detailsLen uint32)

//go:wasmimport seedfall budget
func sfBudget(n uint64) uint64

//go:wasmimport seedfall sock_listen
func sfSockListen(addr unsafe.Pointer, addrLen uint32, fd unsafe.Pointer) uint32

//go:wasmimport seedfall sock_dial
func sfSockDial(addr unsafe.Pointer, addrLen uint32, fd unsafe.Pointer) uint32

//go:wasmimport seedfall sock_status
func sfSockStatus(fd uint32) uint32

var inSimulator = os.Getenv("SEEDFALL") == "1"

func hosted() bool { return inSimulator }

func strPtr(s string) (unsafe.Pointer, uint32) {
	if len(s) == 0 {
		return nil, 0
	}
	return unsafe.Pointer(unsafe.StringData(s)), uint32(len(s))
}

func bytesPtr(b []byte) (unsafe.Pointer, uint32) {
	if len(b) == 0 {
		return nil, 0
	}
	return unsafe.Pointer(&b[0]), uint32(len(b))
}

func hostFail(msg string) {
	p, n := strPtr(msg)
	sfFail(p, n)
}

func hostProperty(kind uint32, cond bool, msg string, details []any) {
	d := detailsJSON(details)
	p, n := strPtr(msg)
	dp, dn := bytesPtr(d)
	c := uint32(0)
	if cond {
		c = 1
	}
	sfProperty(kind, c, p, n, dp, dn)
}

func hostEvent(name string, details []byte) {
	p, n := strPtr(name)
	dp, dn := bytesPtr(details)
	sfEvent(p, n, dp, dn)
}

func hostBudget(n int) int { return int(sfBudget(uint64(n))) }

func hostListen(addr string) (int, uint32) {
	var fd uint32
	p, n := strPtr(addr)
	errno := sfSockListen(p, n, unsafe.Pointer(&fd))
	return int(fd), errno
}

func hostDial(addr string) (int, uint32) {
	var fd uint32
	p, n := strPtr(addr)
	errno := sfSockDial(p, n, unsafe.Pointer(&fd))
	return int(fd), errno
}

func hostSockStatus(fd uintptr) uint32 { return sfSockStatus(uint32(fd)) }
