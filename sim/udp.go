package sim

import (
	"errors"
	"net"
	"os"
	"syscall"
	"time"
)

// Addr is an address on the simulated network: a node name and a port,
// such as "server:9000".
type Addr struct {
	Net     string
	Address string
}

// Network returns "udp" or "tcp".
func (a Addr) Network() string { return a.Net }

// String returns the address as "node:port".
func (a Addr) String() string { return a.Address }

const errnoAgain = 6

// ListenPacket opens a UDP socket on addr, such as ":9000" (":0" picks a
// free port). Inside the simulator datagrams travel the simulated network,
// where they can be lost, duplicated, delayed or cut off by partitions, and
// addresses are node names ("server:9000"); outside it is
// net.ListenPacket("udp", addr). Go's wasip1 net package cannot wrap a
// datagram socket, which is why this function exists.
func ListenPacket(addr string) (net.PacketConn, error) {
	if !hosted() {
		return net.ListenPacket("udp", addr)
	}
	fd, errno := hostListenPacket(addr)
	if errno != 0 {
		return nil, &net.OpError{Op: "listen", Net: "udp", Err: os.NewSyscallError("sock_listen_packet", syscall.Errno(errno))}
	}
	f := os.NewFile(uintptr(fd), "udp:"+addr)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	local := addr
	if len(local) > 0 && local[0] == ':' {
		local = Node() + local
	}
	return &packetConn{f: f, rc: rc, local: Addr{"udp", local}}, nil
}

type packetConn struct {
	f     *os.File
	rc    syscall.RawConn
	local Addr
}

func (c *packetConn) ReadFrom(p []byte) (int, net.Addr, error) {
	var n int
	var from string
	var errno uint32
	err := c.rc.Read(func(fd uintptr) bool {
		n, from, errno = hostRecvFrom(fd, p)
		return errno != errnoAgain
	})
	if err != nil {
		return 0, nil, c.opError("read", err)
	}
	if errno != 0 {
		return 0, nil, c.opError("read", syscall.Errno(errno))
	}
	return n, Addr{"udp", from}, nil
}

func (c *packetConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	if addr == nil {
		return 0, c.opError("write", errors.New("no destination address"))
	}
	var errno uint32
	err := c.rc.Write(func(fd uintptr) bool {
		errno = hostSendTo(fd, addr.String(), p)
		return errno != errnoAgain
	})
	if err != nil {
		return 0, c.opError("write", err)
	}
	if errno != 0 {
		return 0, c.opError("write", syscall.Errno(errno))
	}
	return len(p), nil
}

func (c *packetConn) opError(op string, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &net.OpError{Op: op, Net: "udp", Addr: c.local, Err: os.ErrDeadlineExceeded}
	}
	return &net.OpError{Op: op, Net: "udp", Addr: c.local, Err: err}
}

func (c *packetConn) Close() error                       { return c.f.Close() }
func (c *packetConn) LocalAddr() net.Addr                { return c.local }
func (c *packetConn) SetDeadline(t time.Time) error      { return c.f.SetDeadline(t) }
func (c *packetConn) SetReadDeadline(t time.Time) error  { return c.f.SetReadDeadline(t) }
func (c *packetConn) SetWriteDeadline(t time.Time) error { return c.f.SetWriteDeadline(t) }
