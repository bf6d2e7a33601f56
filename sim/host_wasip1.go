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

//go:wasmimport seedfall property_margin
func sfPropertyMargin(kind uint32, cond uint32, msg unsafe.Pointer, msgLen uint32, details unsafe.Pointer, detailsLen uint32, margin float64)

// sfPropertyMarginInt is property_margin for a comparison of integers: the
// margin is -mag when neg is 1, else mag, exact where a float64 is not.
//
//go:wasmimport seedfall property_margin_int
func sfPropertyMarginInt(kind uint32, cond uint32, msg unsafe.Pointer, msgLen uint32, details unsafe.Pointer, detailsLen uint32, neg uint32, mag uint64)

//go:wasmimport seedfall buggify
func sfBuggify(site unsafe.Pointer, siteLen uint32, p float64) uint32

//go:wasmimport seedfall quiet_for
func sfQuietFor(ns int64)

//go:wasmimport seedfall setup_complete
func sfSetupComplete()

//go:wasmimport seedfall history_invoke
func sfHistoryInvoke(process int64, f unsafe.Pointer, fLen uint32, key unsafe.Pointer, keyLen uint32, value unsafe.Pointer, valueLen uint32) uint64

//go:wasmimport seedfall history_complete
func sfHistoryComplete(id uint64, kind uint32, output unsafe.Pointer, outputLen uint32)

//go:wasmimport seedfall event
func sfEvent(name unsafe.Pointer, nameLen uint32, details unsafe.Pointer, detailsLen uint32)

//go:wasmimport seedfall budget
func sfBudget(n uint64) uint64

//go:wasmimport seedfall sock_listen
func sfSockListen(addr unsafe.Pointer, addrLen uint32, fd unsafe.Pointer) uint32

//go:wasmimport seedfall sock_dial
func sfSockDial(addr unsafe.Pointer, addrLen uint32, fd unsafe.Pointer) uint32

//go:wasmimport seedfall sock_listen_packet
func sfSockListenPacket(addr unsafe.Pointer, addrLen uint32, fd unsafe.Pointer) uint32

//go:wasmimport seedfall sock_send_to
func sfSockSendTo(fd uint32, addr unsafe.Pointer, addrLen uint32, buf unsafe.Pointer, bufLen uint32) uint32

//go:wasmimport seedfall sock_recv_from
func sfSockRecvFrom(fd uint32, buf unsafe.Pointer, bufLen uint32, n unsafe.Pointer, from unsafe.Pointer, fromCap uint32, fromLen unsafe.Pointer) uint32

//go:wasmimport seedfall sock_addrs
func sfSockAddrs(fd uint32, buf unsafe.Pointer, bufCap uint32, n unsafe.Pointer) uint32

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

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func hostPropertyRaw(kind uint32, cond bool, msg string, details []byte) {
	p, n := strPtr(msg)
	dp, dn := bytesPtr(details)
	sfProperty(kind, b2u(cond), p, n, dp, dn)
}

func hostPropertyMargin(kind uint32, cond bool, msg string, details []byte, margin float64) {
	p, n := strPtr(msg)
	dp, dn := bytesPtr(details)
	sfPropertyMargin(kind, b2u(cond), p, n, dp, dn, margin)
}

func hostPropertyMarginInt(kind uint32, cond bool, msg string, details []byte, neg bool, mag uint64) {
	p, n := strPtr(msg)
	dp, dn := bytesPtr(details)
	sfPropertyMarginInt(kind, b2u(cond), p, n, dp, dn, b2u(neg), mag)
}

func hostBuggify(site string, prob float64) bool {
	p, n := strPtr(site)
	return sfBuggify(p, n, prob) != 0
}

func hostQuietFor(ns int64) { sfQuietFor(ns) }
func hostSetupComplete()    { sfSetupComplete() }

func hostHistoryInvoke(client int, f, key string, value []byte) uint64 {
	fp, fn := strPtr(f)
	kp, kn := strPtr(key)
	vp, vn := bytesPtr(value)
	return sfHistoryInvoke(int64(client), fp, fn, kp, kn, vp, vn)
}

func hostHistoryComplete(id uint64, kind uint32, output []byte) {
	op, on := bytesPtr(output)
	sfHistoryComplete(id, kind, op, on)
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

func hostListenPacket(addr string) (int, uint32) {
	var fd uint32
	p, n := strPtr(addr)
	errno := sfSockListenPacket(p, n, unsafe.Pointer(&fd))
	return int(fd), errno
}

func hostSendTo(fd uintptr, addr string, p []byte) uint32 {
	ap, an := strPtr(addr)
	bp, bn := bytesPtr(p)
	return sfSockSendTo(uint32(fd), ap, an, bp, bn)
}

func hostRecvFrom(fd uintptr, p []byte) (int, string, uint32) {
	var n, fromLen uint32
	var from [256]byte
	bp, bn := bytesPtr(p)
	errno := sfSockRecvFrom(uint32(fd), bp, bn, unsafe.Pointer(&n), unsafe.Pointer(&from[0]), uint32(len(from)), unsafe.Pointer(&fromLen))
	return int(n), string(from[:fromLen]), errno
}

func hostSockAddrs(fd uintptr) (local, remote string, errno uint32) {
	var buf [512]byte
	var n uint32
	errno = sfSockAddrs(uint32(fd), unsafe.Pointer(&buf[0]), uint32(len(buf)), unsafe.Pointer(&n))
	if errno != 0 {
		return "", "", errno
	}
	s := string(buf[:n])
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i], s[i+1:], 0
		}
	}
	return s, "", 0
}
