// Sf-shrink cuts a failing seed down to the few faults that make it fail.
//
// Usage:
//
//	sf-shrink [-c FILE] -seed N [-faults FILE] [-j N] [-json] [-pin]
//	sf-run -seeds RANGE -json | sf-shrink [-max N] [-j N] [-json] [-pin]
//	sf-shrink [-max N] [-j N] [-json] [-pin] records.jsonl ...
//	sf-shrink -cause [-cause-moments K] [-cause-branches M] (-seed N | records.jsonl ...) [-j N]
//
// With -seed it also takes -profile NAME and -set PATH=VALUE, as sf-run
// does; reading records, it takes the world, profile and overrides from
// them.
//
// Given one seed, it runs the seed (or replays -faults FILE), notes how it
// fails, and replays it with ever smaller subsets of its faults (delta
// debugging), keeping a subset only when the run fails the same way: the
// same class and the same message (the text before its first ": ", with
// the failing instance left out), and for a liveness failure the same
// node. Every kind of fault takes part, those planned in time and those
// recorded at a disk operation, read, buggify hit or datagram.
//
// Then, if a node called sim.Budget, it bisects the budget cap down to the
// fewest operations that still fail the same way, and finally it records
// when the shrunk run fails as the schedule's duration. The shrunk schedule
// is written to .seedfall/<world>/seed-N.shrunk.faults.json next to the
// world file (<world> named as sf-run names it, with .<profile> and
// .set-<hash>), with shrunk_from and shrink_runs, and sf-shrink prints it
// numbered with a line that replays it with sf-run. No run of sf-run
// writes that name (a failing seed's own schedule is seed-N.faults.json),
// so a later sweep never replaces the shrunk schedule and the printed
// replay line keeps replaying it. When the world records a history, the
// shrunk run's history goes beside it as seed-N.shrunk.history.jsonl, and
// on a linearizability failure its timeline as seed-N.shrunk.history.html.
// A replay of that schedule that passes
// within its duration means a fault it needs was removed, not that the bug
// is fixed; sf-run says so.
//
// Reading records (from stdin, or the files named), it shrinks each failing
// seed once, at most -max of them, taking the world file, profile and -set
// overrides from the records. Nondeterministic seeds are skipped, since a
// seed that runs differently twice cannot be cut down by replays; the
// closing lines count them apart from the seeds past -max. From the
// records of sf-run -explore it shrinks each failing run (explore_run) from
// the schedule explore wrote for it, into
// explore-<seed>-run-<n>.shrunk.faults.json beside that schedule, and the
// shrink record carries the run's explore_run; with -cause the run's curve
// is drawn from the seed with its schedule's branches, and each cause
// record carries its explore_run. A stream may be compressed with zstd or
// gzip. With stderr on a terminal it shows a progress line there (seeds
// done, rate, time left, seeds that could not be shrunk), erased before
// each seed's lines; on a file or a pipe, SF_PROGRESS=5s asks for a plain
// line every 5 seconds instead (sf-run help manual says more).
//
// -j runs that many replays at once; the shrunk schedule and the replay
// count do not depend on it. -json writes a start record, one shrink
// record per seed and a summary on stdout (docs/records.md); the report
// always goes to stderr.
//
// -pin also stores each shrunk schedule as a pinned regression,
// .seedfall/pinned/<world>/seed-N.json, without its duration and with a
// "pinned" object that keeps how the seed failed (class, message, time and
// fingerprint). Commit that folder with the code: every sweep of sf-run
// replays its pins first and fails, naming the pin and its original seed,
// when one fails again; a pin that passes is a regression test kept. The
// shrink record names the pin in "pinned".
//
// -cause draws each failing seed's cause curve instead of shrinking it: it
// branches the seed (a schedule branch of every stream) at K moments spread
// over [0, failure time) and at, and 1ns after, each of the latest K fault
// times (-cause-moments K), runs M branches at each (-cause-branches M),
// and prints for each moment the share of branches that still fail the same
// way, with the seed's faults between the moments. A branch keeps what
// happened before its moment and draws everything after it again: the
// scheduler and the other random streams are re-keyed, and the planned
// faults that had not fired are drawn anew; which buggify sites are enabled,
// and swarm's choices, stay the seed's. The failure became inevitable where
// the share reaches 100% and stays there. Branch keys come from the seed,
// the moment and the branch number, so the curve does not depend on -j.
// With -json each moment is a "cause" record. It does not take -faults.
//
// SIGINT or SIGTERM stops sf-shrink: the seed being shrunk is dropped, no
// other starts, and the summary (with "interrupted": true in -json) counts
// the seeds it finished.
//
// Exit status: 0 when there was nothing to shrink, 1 when failing seeds were
// shrunk (or, with -cause, their curves drawn), 2 on usage or input errors
// or when a seed could not be shrunk, 130 when it was interrupted.
package main
