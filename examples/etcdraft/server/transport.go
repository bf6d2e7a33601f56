package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"time"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// transport carries raftpb.Message between the nodes over plain TCP, one
// connection per peer and direction, each message a 4-byte big-endian length
// and its protobuf encoding. It stands in for etcd's rafthttp, with the
// contract raft asks of a transport: messages may be lost, delayed or
// reordered across connections, and a failed send is reported back
// (ReportUnreachable, ReportSnapshot) so that raft probes again.
type transport struct {
	names []string
	port  int
	out   map[uint64]chan *raftpb.Message
}

const maxMessage = 64 << 20

func newTransport(names []string, port int) *transport {
	t := &transport{names: names, port: port, out: map[uint64]chan *raftpb.Message{}}
	for i := range names {
		t.out[uint64(i+1)] = make(chan *raftpb.Message, 256)
	}
	return t
}

// send queues each message for its peer's sender, dropping it when the
// queue is full: raft resends what matters.
func (t *transport) send(msgs []*raftpb.Message, n raft.Node) {
	for _, m := range msgs {
		q, ok := t.out[m.GetTo()]
		if !ok {
			continue
		}
		select {
		case q <- m:
		default:
			n.ReportUnreachable(m.GetTo())
			if m.GetType() == raftpb.MessageType_MsgSnap {
				n.ReportSnapshot(m.GetTo(), raft.SnapshotFailure)
			}
		}
	}
}

// start runs one sender per peer but this node.
func (t *transport) start(self uint64, n raft.Node) {
	for id, q := range t.out {
		if id != self {
			go t.sender(id, q, n)
		}
	}
}

func (t *transport) sender(id uint64, q chan *raftpb.Message, n raft.Node) {
	addr := net.JoinHostPort(t.names[id-1], strconv.Itoa(t.port))
	var c net.Conn
	var w *bufio.Writer
	for m := range q {
		if c == nil {
			var err error
			if c, err = net.DialTimeout("tcp", addr, 200*time.Millisecond); err != nil {
				c = nil
				t.failed(m, n)
				continue
			}
			w = bufio.NewWriter(c)
		}
		b, err := proto.Marshal(m)
		if err != nil {
			failStop("encode raft message", err)
		}
		c.SetWriteDeadline(time.Now().Add(time.Second))
		var hdr [4]byte
		binary.BigEndian.PutUint32(hdr[:], uint32(len(b)))
		w.Write(hdr[:])
		w.Write(b)
		// Flush when the queue is drained, so a burst goes in one write.
		if len(q) == 0 || m.GetType() == raftpb.MessageType_MsgSnap || w.Buffered() > 64<<10 {
			err = w.Flush()
		}
		if err != nil {
			c.Close()
			c = nil
			t.failed(m, n)
			continue
		}
		if m.GetType() == raftpb.MessageType_MsgSnap {
			n.ReportSnapshot(m.GetTo(), raft.SnapshotFinish)
		}
	}
}

func (t *transport) failed(m *raftpb.Message, n raft.Node) {
	n.ReportUnreachable(m.GetTo())
	if m.GetType() == raftpb.MessageType_MsgSnap {
		n.ReportSnapshot(m.GetTo(), raft.SnapshotFailure)
	}
}

// serve accepts the peers' connections and steps every message they carry
// into raft.
func (t *transport) serve(ln net.Listener, n raft.Node) {
	for {
		c, err := ln.Accept()
		if err != nil {
			failStop("accept peer", err)
		}
		go t.receive(c, n)
	}
}

func (t *transport) receive(c net.Conn, n raft.Node) {
	defer c.Close()
	r := bufio.NewReader(c)
	var hdr [4]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		size := binary.BigEndian.Uint32(hdr[:])
		if size > maxMessage {
			return
		}
		b := make([]byte, size)
		if _, err := io.ReadFull(r, b); err != nil {
			return
		}
		m := &raftpb.Message{}
		if err := proto.Unmarshal(b, m); err != nil {
			return
		}
		if m.GetType() == raftpb.MessageType_MsgProp {
			// A proposal a follower forwarded waits in Step until this
			// node knows a leader. Stepped inline it would hold up every
			// message behind it on this connection, the heartbeats that
			// would tell it the leader among them, for good. etcd's rafthttp
			// gives proposals their own queue and goroutine for the same
			// reason; here each gets a goroutine and a deadline.
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				n.Step(ctx, m)
			}()
			continue
		}
		n.Step(context.TODO(), m)
	}
}
