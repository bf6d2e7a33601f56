package main

import (
	"fmt"
	"time"

	"github.com/hashicorp/memberlist"
)

// logTransport is memberlist's own NetTransport with every datagram it
// sends and receives logged (with -debug-udp), for triage: which pings and
// acks left a node and which arrived.
type logTransport struct {
	*memberlist.NetTransport
	name string
	ch   chan *memberlist.Packet
}

func newLogTransport(name string, t *memberlist.NetTransport) *logTransport {
	lt := &logTransport{NetTransport: t, name: name, ch: make(chan *memberlist.Packet)}
	go func() {
		for p := range t.PacketCh() {
			fmt.Printf("udp: %s <- %s type %s len %d\n", name, p.From, msgType(p.Buf), len(p.Buf))
			lt.ch <- p
		}
	}()
	return lt
}

func (t *logTransport) PacketCh() <-chan *memberlist.Packet { return t.ch }

func (t *logTransport) WriteTo(b []byte, addr string) (time.Time, error) {
	ts, err := t.NetTransport.WriteTo(b, addr)
	fmt.Printf("udp: %s -> %s type %s len %d err %v\n", t.name, addr, msgType(b), len(b), err)
	return ts, err
}

func (t *logTransport) WriteToAddress(b []byte, a memberlist.Address) (time.Time, error) {
	ts, err := t.NetTransport.WriteToAddress(b, a)
	fmt.Printf("udp: %s -> %s (%s) type %s len %d err %v\n", t.name, a.Addr, a.Name, msgType(b), len(b), err)
	return ts, err
}

// msgType names a datagram's message type, the first byte, and the type
// inside a checksummed (12) or compound (7) one.
func msgType(b []byte) string {
	if len(b) == 0 {
		return "empty"
	}
	switch {
	case b[0] == 12 && len(b) > 5:
		return fmt.Sprintf("crc(%s)", msgType(b[5:]))
	case b[0] == 7 && len(b) > 1:
		return fmt.Sprintf("compound(%d parts)", b[1])
	}
	return fmt.Sprint(b[0])
}
