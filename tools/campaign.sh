#!/usr/bin/env bash
# campaign.sh SF_RUN [SEEDS]: the long sweeps of the library campaign (issue 28,
# docs/findings.md), one fault mix after another at -j 1, under nice, SEEDS
# seeds each (default 1-1000). A mix is a world file and -set overrides; the
# faults follow config-and-faults "Choosing rates": crashes and torn writes,
# then crash_on_io, fsync_eio with strict_dirs, reorder_writes with each
# fs_model, then the disk faults a storage engine must survive or detect.
# rosedbwal's disk-fault mix reads the log again after a checksum error
# (-reread), since read_corrupt flips bits on the way and the log is fine.
# disk_bytes is left out until the servers answer ERR on a full disk: with a
# disk smaller than the log, every seed ends with the client giving up.
# tidwallwal's later mixes leave crash_on_io out: with it most seeds fail on
# its pinned finding before the other faults matter. bboltkv's mixes after the
# first run the server with -syncdir, pebblekv's and badgerkv's reordering
# without strict_dirs, for the same reason (their directory findings). A word
# profile=NAME in a mix applies the world's profile NAME; natsjs's cluster and
# raftkv get the faults of a replicated system; its membership worlds keep a
# removed server's data (seedfall.membership.json, which fails on its pin: a
# re-added server installs a snapshot behind what it applied) or wipe it
# (seedfall.wipe.json, which fails on its pin: a wiped server's vote elects a
# stale leader); seedfall.strict_dirs.json fails on its pin (a crash loses
# the snapshot the log was compacted to); seedfall.membership.guard.json is the keep world with the
# state machine's guard against the first (guardserver -fsm-guard), the
# passing keep world for the long sweeps; memberlist's profiles each
# take one family of network faults (UDP loss and duplication, partitions,
# gray failures, crashes) and swarm all of them. etcdraft's worlds set
# torn_sector 512, the sector atomicity etcd's WAL counts on to tell a torn
# tail from corruption; its disk mixes run on the liveness world, whose
# finally check reads from every node, so that a node that can never start
# again from its WAL fails the seed; seedfall.bytetear.json tears inside a
# sector and fails on its pin, seedfall.strict_dirs.json on its pin (the
# directories etcd never fsyncs); the other mixes with strict_dirs run the
# servers with -syncdir, which fsyncs them (and passes the pins). Its disk
# faults run on the liveness world too: seedfall.read_corrupt.json fails on
# its pin (a bad read sets a good snapshot aside for good) and passes with
# -restore-broken; corrupt_on_crash needs crash_on_io to find unsynced WAL
# bytes, and runs with -on-corrupt refuse, so that a member stopped on a
# damaged WAL record (etcd's detection) is a clear stop, not a liveness
# failure. etcdraft's disk_bytes is left out: the WAL preallocates its
# segments, and a disk too small for the next snapshot stops every member
# at the same point of the log, for good.
# Each sweep replays its world's pinned findings first, so a world whose
# library still has a finding fails; the script goes on and prints a summary
# line for every mix, and exits 1 when any failed.
set -uo pipefail
set -f # the -set values hold brackets: no globbing
sfrun=${1:?usage: campaign.sh SF_RUN [SEEDS]}
seeds=${2:-1-1000}
mixes=(
  "examples/rosedbwal/seedfall.json"
  "examples/rosedbwal/seedfall.repair.json faults.crash_on_io=0"
  "examples/rosedbwal/seedfall.repair.json"
  "examples/rosedbwal/seedfall.strict_dirs.json"
  "examples/rosedbwal/seedfall.fsync_eio.json"
  "examples/rosedbwal/seedfall.reorder.json"
  "examples/rosedbwal/seedfall.reorder.json faults.fs_model=page_independent"
  "examples/rosedbwal/seedfall.reorder.json faults.fs_model=dir_reorder faults.strict_dirs=true"
  "examples/rosedbwal/seedfall.repair.json faults.read_corrupt=0.001 faults.corrupt_on_crash=true faults.write_eio=0.005 nodes[0].args=[\"-on-error\",\"repair\",\"-reread\",\"5\"]"
  "examples/tidwallwal/seedfall.json faults.crash_on_io=0"
  "examples/tidwallwal/seedfall.json"
  "examples/tidwallwal/seedfall.fsync.json"
  "examples/tidwallwal/seedfall.json faults.reorder_writes=true faults.fs_model=ext4_ordered faults.crash_on_io=0"
  "examples/tidwallwal/seedfall.json faults.reorder_writes=true faults.fs_model=page_independent faults.crash_on_io=0"
  "examples/tidwallwal/seedfall.json faults.reorder_writes=true faults.fs_model=dir_reorder faults.strict_dirs=true faults.crash_on_io=0"
  "examples/tidwallwal/seedfall.json faults.read_corrupt=0.001 faults.corrupt_on_crash=true faults.write_eio=0.005 faults.crash_on_io=0"
  "examples/bboltkv/seedfall.json"
  "examples/bboltkv/seedfall.kv.json"
  "examples/bboltkv/seedfall.json faults.fsync_eio=0.01 nodes[0].args=[\"-syncdir\"]"
  "examples/bboltkv/seedfall.strict_dirs.json"
  "examples/bboltkv/seedfall.strict_dirs.json nodes[0].args=[\"-syncdir\"]"
  "examples/bboltkv/seedfall.json faults.reorder_writes=true faults.fs_model=ext4_ordered faults.strict_dirs=true nodes[0].args=[\"-syncdir\"]"
  "examples/bboltkv/seedfall.json faults.reorder_writes=true faults.fs_model=page_independent faults.strict_dirs=true nodes[0].args=[\"-syncdir\"]"
  "examples/bboltkv/seedfall.json faults.reorder_writes=true faults.fs_model=dir_reorder faults.strict_dirs=true nodes[0].args=[\"-syncdir\"]"
  "examples/bboltkv/seedfall.json faults.write_eio=0.005 faults.write_enospc=0.005 nodes[0].args=[\"-syncdir\"]"
  "examples/bboltkv/seedfall.json faults.read_corrupt=0.001 faults.reorder_writes=true faults.corrupt_on_crash=true nodes[0].args=[\"-syncdir\"]"
  "examples/pebblekv/seedfall.json"
  "examples/pebblekv/seedfall.kv.json"
  "examples/pebblekv/seedfall.json faults.fsync_eio=0.01"
  "examples/pebblekv/seedfall.strict_dirs.json"
  "examples/pebblekv/seedfall.json faults.reorder_writes=true faults.fs_model=ext4_ordered"
  "examples/pebblekv/seedfall.json faults.reorder_writes=true faults.fs_model=page_independent"
  "examples/pebblekv/seedfall.json faults.write_eio=0.005 faults.write_enospc=0.005"
  "examples/pebblekv/seedfall.json faults.read_corrupt=0.001 faults.reorder_writes=true faults.corrupt_on_crash=true"
  "examples/pebblekv/seedfall.v2.json"
  "examples/pebblekv/seedfall.v2.json faults.strict_dirs=true"
  "examples/pebblekv/seedfall.v2.json faults.reorder_writes=true faults.fs_model=dir_reorder faults.strict_dirs=true"
  "examples/badgerkv/seedfall.json"
  "examples/badgerkv/seedfall.kv.json"
  "examples/badgerkv/seedfall.json faults.fsync_eio=0.01"
  "examples/badgerkv/seedfall.strict_dirs.json"
  "examples/badgerkv/seedfall.json faults.reorder_writes=true faults.fs_model=ext4_ordered"
  "examples/badgerkv/seedfall.json faults.reorder_writes=true faults.fs_model=page_independent"
  "examples/badgerkv/seedfall.json faults.write_eio=0.005 faults.write_enospc=0.005"
  "examples/badgerkv/seedfall.corrupt.json"
  "examples/natsjs/seedfall.cluster.json"
  "examples/natsjs/seedfall.cluster.json profile=net"
  "examples/natsjs/seedfall.cluster.json profile=disk"
  "examples/natsjs/seedfall.cluster.json profile=swarm"
  "examples/raftkv/seedfall.json"
  "examples/raftkv/seedfall.json faults.clog_per_sec=0.2 faults.slow_per_sec=0.2 faults.pause_per_sec=0.1 faults.clock_jump_per_sec=0.05 faults.partition_topologies=[\"half\",\"one\",\"majority\",\"majorities_ring\",\"random_groups\"]"
  "examples/raftkv/seedfall.json faults.preset=high_availability"
  "examples/raftkv/seedfall.strict_dirs.json"
  "examples/raftkv/seedfall.json faults.torn_writes=true faults.crash_on_io=0.005 faults.fsync_eio=0.01 faults.reorder_writes=true"
  "examples/raftkv/seedfall.json faults.preset=everything faults.swarm=true"
  "examples/raftkv/seedfall.membership.json"
  "examples/raftkv/seedfall.membership.json faults.clog_per_sec=0.2 faults.slow_per_sec=0.2 faults.pause_per_sec=0.1 faults.clock_jump_per_sec=0.05 faults.partition_topologies=[\"half\",\"one\",\"majority\",\"majorities_ring\",\"random_groups\"]"
  "examples/raftkv/seedfall.wipe.json"
  "examples/raftkv/seedfall.membership.guard.json"
  "examples/raftkv/seedfall.membership.guard.json faults.clog_per_sec=0.2 faults.slow_per_sec=0.2 faults.pause_per_sec=0.1 faults.clock_jump_per_sec=0.05 faults.partition_topologies=[\"half\",\"one\",\"majority\",\"majorities_ring\",\"random_groups\"]"
  "examples/memberlist/seedfall.json"
  "examples/memberlist/seedfall.json profile=udp"
  "examples/memberlist/seedfall.json profile=partition"
  "examples/memberlist/seedfall.json profile=gray"
  "examples/memberlist/seedfall.json profile=crash"
  "examples/memberlist/seedfall.json profile=swarm"
  "examples/etcdraft/seedfall.json"
  "examples/etcdraft/seedfall.json faults.clog_per_sec=0.2 faults.slow_per_sec=0.2 faults.pause_per_sec=0.1 faults.clock_jump_per_sec=0.05 faults.partition_topologies=[\"half\",\"one\",\"majority\",\"majorities_ring\",\"random_groups\"]"
  "examples/etcdraft/seedfall.json faults.preset=high_availability faults.torn_sector=512 nodes[0].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"] nodes[1].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"] nodes[2].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"]"
  "examples/etcdraft/seedfall.liveness.json"
  "examples/etcdraft/seedfall.liveness.json faults.crash_on_io=0.005"
  "examples/etcdraft/seedfall.liveness.json faults.fsync_eio=0.01"
  "examples/etcdraft/seedfall.strict_dirs.json"
  "examples/etcdraft/seedfall.strict_dirs.json nodes[0].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"] nodes[1].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"] nodes[2].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"]"
  "examples/etcdraft/seedfall.liveness.json faults.reorder_writes=true faults.fs_model=ext4_ordered faults.crash_on_io=0.005"
  "examples/etcdraft/seedfall.liveness.json faults.reorder_writes=true faults.fs_model=page_independent faults.crash_on_io=0.005"
  "examples/etcdraft/seedfall.dir_reorder.json nodes[0].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"] nodes[1].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"] nodes[2].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"]"
  "examples/etcdraft/seedfall.bytetear.json"
  "examples/etcdraft/seedfall.read_corrupt.json"
  "examples/etcdraft/seedfall.read_corrupt.json nodes[0].args=[\"-peers\",\"n1,n2,n3\",\"-restore-broken\"] nodes[1].args=[\"-peers\",\"n1,n2,n3\",\"-restore-broken\"] nodes[2].args=[\"-peers\",\"n1,n2,n3\",\"-restore-broken\"]"
  "examples/etcdraft/seedfall.liveness.json faults.corrupt_on_crash=true faults.crash_on_io=0.005 nodes[0].args=[\"-peers\",\"n1,n2,n3\",\"-on-corrupt\",\"refuse\"] nodes[1].args=[\"-peers\",\"n1,n2,n3\",\"-on-corrupt\",\"refuse\"] nodes[2].args=[\"-peers\",\"n1,n2,n3\",\"-on-corrupt\",\"refuse\"]"
  "examples/etcdraft/seedfall.liveness.json faults.write_eio=0.005"
  "examples/etcdraft/seedfall.json faults.preset=everything faults.swarm=true faults.torn_sector=512 nodes[0].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"] nodes[1].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"] nodes[2].args=[\"-peers\",\"n1,n2,n3\",\"-syncdir\"]"
)
status=0
for mix in "${mixes[@]}"; do
  read -r world sets <<<"$mix"
  args=(-c "$world" -seeds "$seeds" -j 1 -json=false)
  for s in $sets; do
    case $s in
    profile=*) args+=(-profile "${s#profile=}") ;;
    *) args+=(-set "$s") ;;
    esac
  done
  echo "\$ $sfrun ${args[*]}"
  nice -n 10 "$sfrun" "${args[@]}" | grep -E '^(ok|FAIL [0-9]+ (of|propert)|FAIL pin|GAVE UP)'
  rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || status=1
  [ "$rc" -le 1 ] || echo "campaign: $world exited $rc"
done
exit $status
