package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/clitest"
)

// TestMemberlist: examples/memberlist, five nodes of hashicorp/memberlist
// over the simulated UDP and TCP (net_overlay, with compat_overlay for
// go-sockaddr), forms its cluster and converges again once the faults of
// seed 1 (UDP loss and duplication, crashes, partitions, clogs, slowdowns,
// pauses, clock jumps) stop; with -short the faults last 15s instead of the
// client's 60s, a tenth of the CPU. Without -short it also runs two seeds of every
// profile, a seed whose member is declared dead after the faults stopped
// and comes back, and shows that without the server's rejoin loop the
// cluster can stay split for good, which the client reports as a liveness
// failure.
func TestMemberlist(t *testing.T) {
	tools.Need(t)
	dir := t.TempDir()
	clitest.CopyWorld(t, filepath.Join(tools.Root, "examples", "memberlist", "seedfall.json"), filepath.Join(dir, "seedfall.json"))
	args := []string{"-c", "seedfall.json", "-seed", "1"}
	if testing.Short() {
		args = append(args, "-set", `workload.args=["-nodes","n1,n2,n3,n4,n5","-for","15s"]`)
	}
	one := sfRun(t, dir, args...)
	one.WantExit(t, 0)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`n1#1: server: n1 up on 10\.0\.0\.1:7946 \(start 1\)\n`),
		regexp.MustCompile(`client#1: client: the cluster formed\n`),
		regexp.MustCompile(`fault udp_(drop|dup): datagram #\d+ of n\d#\d+ to n\d\n`),
		regexp.MustCompile(`client#1: client: converged \S+ after the faults stopped, \d+ breaks, whole since \S+ and for 10s\n`),
	} {
		if !want.MatchString(one.Stdout) {
			t.Errorf("the trace of seed 1 does not match %s\n%s", want, one)
		}
	}
	// The socket options memberlist sets (its UDP buffer) succeed.
	if strings.Contains(one.Stdout, "Failed to resize UDP buffer") {
		t.Errorf("memberlist could not size its UDP buffer\n%s", one)
	}
	if testing.Short() {
		return
	}

	for _, p := range []string{"calm", "udp", "partition", "gray", "crash", "swarm"} {
		r := sfRun(t, dir, "-c", "seedfall.json", "-profile", p, "-seeds", "1-2", "-j", "1")
		r.WantExit(t, 0)
	}
	// swarm seed 4: n5's suspicion of n1 reaches n2 during a partition and
	// n1's refutation does not; 7s after the faults stop n2 declares n1
	// dead, then takes it back.
	s4 := sfRun(t, dir, "-c", "seedfall.json", "-profile", "swarm", "-seed", "4")
	s4.WantExit(t, 0)
	for _, want := range []string{
		"n2#1: server: n2: n1 left or died",
		"client: views whole since 35ms broke",
		"client: converged 35ms after the faults stopped, 1 breaks",
	} {
		if !strings.Contains(s4.Stdout, want) {
			t.Errorf("the trace of swarm seed 4 does not show %q\n%s", want, s4)
		}
	}
	// Without the rejoin loop, a node cut off longer than memberlist's
	// GossipToTheDeadTime (30s) is never probed again.
	var sets []string
	for i := range 5 {
		sets = append(sets, "-set", fmt.Sprintf(`nodes[%d].args=["-peers","n1,n2,n3,n4,n5","-rejoin","0"]`, i))
	}
	split := sfRun(t, dir, append([]string{"-c", "seedfall.json", "-profile", "partition", "-seed", "5"}, sets...)...)
	split.WantExit(t, 1)
	if want := "every node sees every node alive, and keeps seeing it, after the faults stop: not true within 45s"; !strings.Contains(split.Stdout, want) {
		t.Errorf("without -rejoin, partition seed 5 does not fail with %q\n%s", want, split)
	}
}
