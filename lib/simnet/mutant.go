package simnet

import "github.com/sf-dst/sf/lib/rng"

// Mutant is a weakened guarantee of the network, for sf-mutate. The zero
// value is MutantNone, a faithful network.
type Mutant uint8

// The network mutants.
const (
	MutantNone Mutant = iota
	// MutantDropAfterClose: when a connection is closed, the last chunk
	// written to it that the peer has not read is dropped, so the peer
	// reads end of file without it.
	MutantDropAfterClose
	// MutantDupChunk: DupChunkChance of the chunks sent to an affected
	// node, chosen from the seed, arrive twice in a row.
	MutantDupChunk
)

// DupChunkChance is the share of chunks MutantDupChunk delivers twice.
const DupChunkChance = 0.05

// SetMutant weakens the network with m for the data that the given nodes
// receive. Call it before the first connection.
func (n *Net) SetMutant(m Mutant, nodes []string) {
	n.mutant = m
	n.mutantNodes = map[string]bool{}
	for _, name := range nodes {
		n.mutantNodes[name] = true
	}
}

// MutantHits counts the chunks the mutant duplicated or dropped so far.
func (n *Net) MutantHits() int { return n.mutantHits }

// mutantState is the network's part of a mutant run.
type mutantState struct {
	mutant      Mutant
	mutantNodes map[string]bool
	mutantHits  int
	chunks      map[string]uint64 // chunks sent to each affected node so far
}

// dupChunk reports whether, under MutantDupChunk, the next chunk sent to
// node arrives twice. Each (node, chunk number) draws from its own stream.
func (n *Net) dupChunk(node string) bool {
	if n.mutant != MutantDupChunk || !n.mutantNodes[node] {
		return false
	}
	if n.chunks == nil {
		n.chunks = map[string]uint64{}
	}
	n.chunks[node]++
	var s rng.Stream
	s.Reset(n.seed, "mutant", rng.Key(node), n.chunks[node])
	if s.Chance(DupChunkChance) {
		n.mutantHits++
		return true
	}
	return false
}

// dropLast, under MutantDropAfterClose, drops the last chunk s sent if its
// peer has not read it yet: in flight it never arrives, in the peer's
// receive buffer its unread bytes go away.
func (n *Net) dropLast(s *Socket) {
	e := s.lastData
	s.lastData = nil
	if e == nil || s.Peer == nil || !n.mutantNodes[s.Peer.Node] {
		return
	}
	if !e.delivered {
		e.dropped = true
		n.mutantHits++
		return
	}
	p := s.Peer
	if k := min(len(p.rbuf), len(e.data)); k > 0 && p.rbufFrom == s && p.rbufLast == e {
		p.rbuf = p.rbuf[:len(p.rbuf)-k]
		if len(p.rbuf) == 0 {
			p.rbuf = nil
		}
		n.mutantHits++
	}
}
