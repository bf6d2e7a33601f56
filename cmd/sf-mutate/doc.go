// Sf-mutate measures whether a world's checks catch the bugs they exist for.
//
// Usage:
//
//	sf-mutate [-c FILE] [-seeds RANGE] [-only LIST] [-j N] [-md FILE] [-json]
//	sf-mutate [-c FILE] [-seeds RANGE] -app [-mutants N] [-j N] [-md FILE] [-json]
//
// Both forms also take -profile NAME and -set PATH=VALUE. The seeds are
// 1-100 unless given, and the world file seedfall.json.
//
// A sweep that passes says something only if the workload would fail when a
// guarantee it relies on goes away. sf-mutate first runs the seeds with no
// change (the baseline); they must all pass, or sf-mutate shows the failing
// seed with a line that replays it, judges nothing and exits 1. Then it runs
// the same seeds once per mutant and gives each a verdict:
//
//	killed         a seed failed: the workload notices. The first failing
//	               seed and its failure are shown, with a line that replays it.
//	SURVIVED       no seed failed although the operation was weakened.
//	not exercised  a runtime mutant whose operation never happened in any
//	               seed (which one is said), so nothing was tested.
//	did not build  a source mutant that does not compile; it is not a survivor.
//
// A seed whose history check gave up (none of the history's operations
// completed, or it was too long to check) neither passed nor failed. It is
// not counted as passed: a survivor says how many of its seeds gave up, and
// why the first did, since a mutant that makes every request fail leaves the
// checker nothing to check, a blind spot of the workload. When the baseline
// has such seeds, sf-mutate says so before judging.
//
// Runtime mutants weaken the simulated world, never the program, so nothing
// is rebuilt: the world is built and compiled once and each mutant runs in
// the same engine as a sweep. Each weakens only the programs that take
// faults (the nodes, and the workloads with include_workload; never the
// finally check):
//
//	fsync_noop            file fsync reports success and makes nothing durable
//	dirsync_noop          directory fsync does nothing (matters with strict_dirs)
//	osync_ignored         writes to O_SYNC and O_DSYNC files are not synchronous
//	fsync_corrupts        fsync makes the data durable with one bit flipped: the
//	                      first byte of the last write it covers
//	rename_not_atomic     a rename over an existing file is durable only after the
//	                      next fsync on that disk; a crash before it loses both names
//	truncate_not_durable  fsync skips truncations (O_TRUNC too): a crash brings
//	                      back the old length and bytes
//	net_drop_after_close  closing a connection drops the last chunk the peer has
//	                      not read yet
//	net_dup_chunk         a seeded 5% of the chunks sent to the node arrive twice
//	monotonic_jump        clock jumps move the monotonic clock too (needs
//	                      clock_jump_per_sec)
//
// -only a,b runs only the runtime mutants named. A run with a mutant replays
// like any other: the duplicated chunks of net_dup_chunk come from a stream
// of their own, keyed by the seed, the node and the chunk number.
//
// -app mutates the program instead: it parses the Go files of every node
// package (not the workloads or the finally check), lists the places where
// it can flip a comparison (< and >=, > and <=, == and !=), skip an error
// return (if err != nil { return ... } never returns) or skip a Sync (f.Sync()
// returns nil without syncing), and picks -mutants of them with the first
// seed, so the same seeds and count pick the same mutants. Each one is built
// with go build -overlay into a module of its own: the source tree and the
// build cache of the world are never touched. sf-mutate cannot tell whether
// a mutated line ran, so a source mutant has no "not exercised" verdict: a
// survivor may be dead code. -app cannot be combined with -only.
//
// Seeds run on -j workers (default the number of CPUs). A mutant stops at
// its first failing seed in seed order; every seed before it runs, so the
// verdicts do not depend on -j.
//
// The table goes to stderr. -md FILE writes the same as a Markdown table,
// for a pull request or a CI job summary. -json writes JSONL on stdout: a
// start record, one mutant record per mutant, and a summary with the
// mutation score, killed / (killed + survived) (docs/records.md).
//
// SIGINT or SIGTERM stops it: running seeds end, the mutant they belong to
// is not judged, and the summary (with "interrupted": true in -json) counts
// the mutants judged before the stop.
//
// Exit status: 0 when every exercised mutant was killed, 1 when one
// survived or the baseline failed, 2 on usage or input errors, 130 when it
// was interrupted.
package main
