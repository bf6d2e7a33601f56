package simnet

import (
	"fmt"
	"strings"
)

// Describe says what the socket is, in a line of -inspect: its kind, its
// ends, its state and what waits to be read.
func (s *Socket) Describe() string {
	var b strings.Builder
	switch {
	case s.Listener:
		fmt.Fprintf(&b, "tcp listening on port %d, %d waiting to be accepted", s.Port, len(s.backlog))
		return b.String()
	case s.Datagram:
		fmt.Fprintf(&b, "udp on port %d, %d datagrams (%d bytes) waiting", s.Port, len(s.inbox), s.inboxBytes)
		return b.String()
	case s.Dialer():
		fmt.Fprintf(&b, "tcp to %s", s.connectTo)
	default:
		peer := "?"
		if s.Peer != nil {
			peer = s.Peer.Node
		}
		fmt.Fprintf(&b, "tcp from %s on port %d", peer, s.Port)
	}
	b.WriteString(", " + [...]string{Connecting: "connecting", Established: "established", Refused: "refused", Reset: "reset"}[s.State])
	if s.rdEOF {
		b.WriteString(", peer closed its side")
	}
	if s.wrClosed {
		b.WriteString(", shut down for writing")
	}
	fmt.Fprintf(&b, ", %d bytes unread", len(s.rbuf))
	return b.String()
}
