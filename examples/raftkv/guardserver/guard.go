package main

import (
	"fmt"

	"github.com/sf-dst/sf/sim"
)

// With -fsm-guard the state machine defends itself against H2
// (docs/findings.md): raft v1.7.2's installSnapshot restores whatever
// snapshot the leader sends, also one behind what this follower applied,
// and then replays the entries after it. The state machine already keeps the
// index of the last entry it applied with its state, in its snapshots too;
// with the guard it compares against it.
//
// A snapshot behind that index is refused with an error, not ignored with a
// nil. What raft v1.7.2 does after Restore returns (fsm.go, raft.go):
//
//   - nil: runFSM records the snapshot's index as the last one applied (the
//     index it gives the next snapshot it asks the state machine for), and
//     installSnapshot sets lastApplied, the last snapshot and the latest and
//     committed configurations back to the snapshot's, compacts the log up to
//     it and answers success, so raft hands the later entries over again. An
//     ignored snapshot would leave raft believing an older state than the
//     one held, labelling the next snapshot of the newer state with the older
//     index, and taking back a configuration its log has gone past.
//   - an error: runFSM changes nothing, and installSnapshot returns before
//     touching lastApplied, the snapshot index, the configurations or the
//     log: it answers the leader with the error, which logs it, counts a
//     failure for the peer and ends that replicateTo. The follower keeps
//     applying from where it was, which is what the Raft paper's figure 13
//     (step 6) asks of a follower whose log already holds the snapshot's last
//     entry. The only trace left is the snapshot file, which installSnapshot
//     wrote to the snapshot store before asking for the restore: a true
//     state of the cluster at its index, so a restart that restores it and
//     replays the log after it ends where the follower was.
//
// Refusing loses nothing: the state machine applies committed entries only,
// and every node commits the same entry at an index, so a snapshot at an
// index below the applied one holds a prefix of what the state machine
// already holds. A snapshot at the applied index holds the same state and is
// restored. At start the state machine is empty and refuses nothing. A
// replication that needs a snapshot (the leader compacted the entry before
// the follower's next) sends one not behind what the follower applied; one
// behind comes only with a stale next index, as from H2's replication of
// before the removal. A needed one refused would be sent again after the
// leader's backoff until one is not behind: the cost is time, not state.
//
// An entry at or below the index is ignored: the state already holds its
// effect. With snapshots refused raft has no path left that hands one over
// again, which the property after a refusal checks.

// restoreGuarded restores d unless it is behind what the state machine
// applied. m.mu is held.
func (m *fsm) restoreGuarded(d snapshotData) error {
	if d.Index < m.index {
		sim.Event("fsm guard refused a snapshot", map[string]uint64{"snapshot": d.Index, "applied": m.index})
		fmt.Printf("server: refused a snapshot at index %d, behind the %d applied\n", d.Index, m.index)
		m.refused = true
		return fmt.Errorf("snapshot at index %d is behind this state machine, which applied %d", d.Index, m.index)
	}
	m.kv, m.index, m.refused = d.KV, d.Index, false
	return nil
}

// skip says whether Apply ignores the entry at index, one the state already
// holds. m.mu is held.
func (m *fsm) skip(index uint64) bool {
	if m.refused {
		// The refusal's error left raft's lastApplied alone, so the next
		// entry is a new one.
		sim.AlwaysGreaterThan(index, m.index, "after the state machine refused a snapshot, raft hands over no entry again", map[string]uint64{"entry": index, "applied": m.index})
		m.refused = false
	}
	if index > m.index {
		return false
	}
	sim.Event("fsm guard skipped an entry", map[string]uint64{"entry": index, "applied": m.index})
	return true
}
