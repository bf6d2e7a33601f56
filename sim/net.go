package sim

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// WASI errno numbers that the host returns; they equal syscall.Errno on
// wasip1.
const (
	errnoInProgress   = 26
	errnoNotSupported = 58
)

// Listen listens for TCP connections on addr, such as ":7000". Inside the
// simulator the listener lives on the simulated network, reachable from
// other nodes as "<node>:7000"; outside it is net.Listen("tcp", addr).
func Listen(addr string) (net.Listener, error) {
	if !hosted() {
		return net.Listen("tcp", addr)
	}
	fd, errno := hostListen(addr)
	if errno != 0 {
		return nil, &net.OpError{Op: "listen", Net: "tcp", Addr: Addr{"tcp", addr}, Err: os.NewSyscallError("sock_listen", syscall.Errno(errno))}
	}
	f := os.NewFile(uintptr(fd), "tcp-listener:"+addr)
	defer f.Close()
	l, err := net.FileListener(f)
	if err != nil {
		return nil, err
	}
	local, _, _ := hostSockAddrs(uintptr(fd))
	return &listener{Listener: l, addr: Addr{"tcp", local}}, nil
}

// listener gives the accepted connections and the listener itself the
// addresses of the simulated network: Go's wasip1 port knows none for a
// socket it did not create.
type listener struct {
	net.Listener
	addr Addr
}

func (l *listener) Addr() net.Addr { return l.addr }

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, withOpAddrs(err, nil, l.addr)
	}
	return withAddrs(c), nil
}

// conn is a TCP connection with its simulated addresses. It keeps the
// methods of *net.TCPConn that programs use through type assertions.
type conn struct {
	*net.TCPConn
	local, remote Addr
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

// The methods below name the simulated addresses in their errors, which
// would otherwise read "read tcp :0->:0: ...".

func (c *conn) Read(b []byte) (int, error) {
	n, err := c.TCPConn.Read(b)
	return n, c.fix(err)
}

func (c *conn) Write(b []byte) (int, error) {
	n, err := c.TCPConn.Write(b)
	return n, c.fix(err)
}

func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	n, err := c.TCPConn.ReadFrom(r)
	return n, c.fix(err)
}

func (c *conn) WriteTo(w io.Writer) (int64, error) {
	n, err := c.TCPConn.WriteTo(w)
	return n, c.fix(err)
}

func (c *conn) Close() error      { return c.fix(c.TCPConn.Close()) }
func (c *conn) CloseRead() error  { return c.fix(c.TCPConn.CloseRead()) }
func (c *conn) CloseWrite() error { return c.fix(c.TCPConn.CloseWrite()) }

func (c *conn) fix(err error) error { return withOpAddrs(err, c.local, c.remote) }

// withOpAddrs returns err with the given source and destination addresses
// if it is a *net.OpError (a copy: the original is left alone); other
// errors, and nil, come back as they are.
func withOpAddrs(err error, source, addr net.Addr) error {
	var op *net.OpError
	if !errors.As(err, &op) || op != err {
		return err
	}
	fixed := *op
	fixed.Source, fixed.Addr = source, addr
	return &fixed
}

func withAddrs(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	var local, remote string
	rc.Control(func(fd uintptr) { local, remote, _ = hostSockAddrs(fd) })
	return &conn{TCPConn: tc, local: Addr{"tcp", local}, remote: Addr{"tcp", remote}}
}

// Dial connects to addr, such as "server:7000", over TCP. Inside the
// simulator it reaches the node of that name on the simulated network and
// fails with ECONNREFUSED when nothing listens there; outside it is
// net.Dial("tcp", addr).
func Dial(addr string) (net.Conn, error) {
	if !hosted() {
		return net.Dial("tcp", addr)
	}
	fd, errno := hostDial(addr)
	if errno != 0 {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: Addr{"tcp", addr}, Err: os.NewSyscallError("connect", syscall.Errno(errno))}
	}
	f := os.NewFile(uintptr(fd), "tcp:"+addr)
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	// The connection completes after a simulated round trip. Waiting for the
	// socket to become writable goes through Go's netpoller, so the node's
	// other goroutines keep running meanwhile.
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		c.Close()
		return nil, err
	}
	var status uint32
	werr := rc.Write(func(fd uintptr) bool {
		status = hostSockStatus(fd)
		return status != errnoInProgress
	})
	if werr != nil {
		c.Close()
		return nil, werr
	}
	if status != 0 {
		c.Close()
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: Addr{"tcp", addr}, Err: os.NewSyscallError("connect", syscall.Errno(status))}
	}
	return withAddrs(c), nil
}
