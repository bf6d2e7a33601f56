// Sf-run runs a world over seeds on the deterministic simulator and reports
// which seeds fail.
//
// Usage:
//
//	sf-run [-c FILE] [-seeds RANGE [-shard K/N]] [-j N] [-check] [-json] [-compress]
//	sf-run [-c FILE] -seed N [-faults FILE] [-pin] [-inspect] [-check]
//	sf-run [-c FILE] -explore [-explore-runs N] [-seeds RANGE] [-j N] [-json] [-compress]
//	sf-run [-c FILE] -seed N -stop-at DURATION -snapshot FILE [-inspect]
//	sf-run [-c FILE] -from FILE [-faults FILE] [-branch KEY] [-inspect] [-json]
//
// Every form also takes -profile NAME and -set PATH=VALUE; a sweep and a
// replay take -history-timeout DURATION. The seeds are 1-100 unless given
// (1-10 for -explore), and the world file seedfall.json.
//
// It builds the world's packages for wasip1 (as sf-build does), runs every
// seed with its own faults, and prints the first failure in full (what
// failed, the faults before it, and a command that replays it), one line for
// each later failure, the property table, and a summary line. A failing seed
// writes seed-N.trace.log and seed-N.faults.json (and its history, when it
// recorded one) under .seedfall/<world>/ next to the world file, where
// <world> is the world file's name without .json, plus .<profile> with
// -profile and .set-<hash> with -set (the folder's overrides.json lists
// them), so sibling worlds and variants never overwrite each other. Every
// file is written whole or not at all; temporary files a killed run left
// are removed by a later sweep once they are an hour old. sf-shrink writes
// the schedule it shrinks a seed to beside them, as
// seed-N.shrunk.faults.json, a name no run of sf-run writes, so a later
// sweep never replaces it. The replay line it prints keeps -profile,
// -set and -faults. -compress writes the trace and history as zstd files
// (seed-N.trace.log.zst, seed-N.history.jsonl.zst; the schedule stays plain
// JSON), and the records name the files as written. Every sf tool reads
// zstd and gzip input as it is, telling it by its first bytes.
//
// A sweep whose stderr is a terminal shows one progress line there: seeds
// done out of all, the rate, the time left and the failures so far. It is
// erased before each report line and at the end, and never appears when
// stderr is a file or a pipe, unless the environment variable SF_PROGRESS
// asks for plain lines there at an interval (SF_PROGRESS=5s: one line every
// 5 seconds, as make demo's last sweep sets it); a value that is not a
// duration of at least 100ms is a usage error.
//
// Compiled modules are kept in .seedfall/cache next to the world, so a
// module compiles once; the environment variable SF_CACHE_DIR names one
// folder for the compiled modules of every world instead (a CI cache, or
// many worlds of the same services), and keeps the built modules there too,
// so that a copy of a world runs no go build.
//
// -seed N replays one seed and prints its whole trace: every fault, every
// line each node printed (with virtual time and instance, such as server#2)
// and the failure, identical to that seed's run in a sweep. With -faults FILE
// the run applies that schedule instead of drawing faults: unknown fields or
// faults that do not fit the world are errors, budget caps sim.Budget,
// branches re-key the random streams, and the run stops at the schedule's
// duration. A replay that passes within that duration prints a note: a fault
// it needs is missing, which is not a fix. A replay never overwrites the
// schedule it read.
//
// Snapshots: -seed N -stop-at DURATION -snapshot FILE runs the seed up to
// the first scheduler step at or after that virtual time, forks the world
// there (every node's memory and the engine's whole state: disks, network,
// timers, random streams, faults, trace so far), writes it to FILE and
// stops, printing the step, the time, the file's size and the command that
// continues it. -from FILE continues the snapshot as a replay of its seed:
// the same report, trace, artifacts and seed record (determinism_hash
// included) as -seed N, with -inspect and -json as a replay takes them; it
// takes no -seed, -seeds, -check, -pin or -shard. Give it the same world,
// -profile and -set. -from FILE -faults SCHEDULE continues it with that
// schedule for the rest of the run instead of the seed's own faults: its
// timed faults at or after the snapshot's time and its faults at
// operations the nodes have not reached fire; the faults before the
// snapshot stay. That run is no longer the seed's: its replay line
// continues the snapshot with the schedule. The schedule's branches must
// come after the snapshot's time (one at or before it is an input error,
// exit status 2). -from FILE -branch KEY continues it with every random
// stream re-keyed by KEY 1ns after the snapshot's time: the run a replay of
// the seed with that branch in its schedule gives, trace and
// determinism_hash alike; its replay line continues the snapshot with
// -branch, and the schedule a failure writes holds the branch, so that
// -seed N -faults that schedule replays it from t=0. The file is
// zstd-compressed and written whole or not at all; it records the sf
// version, the world's content key and every node's module SHA-256, and
// -from refuses a snapshot of another sf version, another world or another
// module build, naming the difference (exit status 2), as it does a
// cut-short or damaged file. A seed that ends
// before -stop-at writes no file (exit status 2). A step where a node waits
// where it cannot be resumed (at the end of a preemption time slice) is
// passed for the next. Measured sizes: kvlog (two nodes) at 1s, 0.7 MiB
// (7.6 MiB uncompressed); raftkv (three raft nodes and a client) at 2.5s,
// 2.5 MiB (25.7 MiB uncompressed).
//
// Pinned regressions: -pin, with -seed N, stores the failing seed's
// schedule (the faults that fired, the budget and branches, no duration) as
// .seedfall/pinned/<world>/seed-N.json, with a "pinned" object that keeps
// the failure's class, message, time and fingerprint. Commit that folder
// with the code. A seed that does not fail is not pinned (exit status 2).
// Every sweep (-seeds; with -shard, the first shard only) first replays
// each pin of its world, in order of seed, over the world's whole duration,
// and reports one line per pin: "ok   pin seed-N.json (seed N) passed" for
// a regression that stays fixed, or a FAIL line naming the pin file and its
// original seed, saying whether it fails again (the same fingerprint) or
// differently, with the pinned failure and a replay line. A failing pin
// fails the sweep (exit status 1) and writes pin-seed-N.trace.log beside the
// seeds' artifacts. -json writes a "pin" record per pin before the seed
// records, and the summary counts "pins" and "pins_failed". A pin that does
// not read or does not fit the world is an input error naming its file.
//
// -explore explores by branching instead of sweeping. It runs the starting
// seeds (-seeds, 1-10 by default), keeps each passing run that reached
// something no run had (a property reached or true for the first time, a
// buggify site fired for the first time, a comparison property's margin
// closer to failing or to true than ever), and runs branches of the kept
// runs (schedule branches: the run up to a moment as it was, everything
// after it, planned faults included, drawn again; which buggify sites are
// enabled stays the seed's), half of them 1ns after a moment the run
// reached something new, keeping in turn the branches that reach something
// new, until -explore-runs runs (starting seeds included) have been made.
// Each failure a branch finds is printed with the schedule written for it,
// .seedfall/<world>/explore-<seed>-run-<n>.faults.json, which replays with
// -seed N -faults FILE. Every failing run also gets a failing sweep seed's
// artifacts, named after it beside its schedule: explore-<seed>-run-<n>
// .trace.log (the trace the replay of its schedule prints), and
// .history.jsonl and .history.html when the world records a history;
// -compress makes the trace and history zstd files, as in a sweep. After
// the runs it prints a sweep's property and buggify tables summed over
// every run; as in a sweep, a property never reached or never true fails
// it. A branch starts from a fork of the run it branches (the first branch
// of a kept run, a starting seed's or a branch's, runs it once more,
// uncounted, from its own parent's forks, to take forks on a grid of its
// steps, within 1 GiB of guest memory for all runs), the latest before its
// new branch point, and ends as it would from t=0, only sooner. The same
// flags explore the same way whatever -j is. It takes none of
// -seed, -faults, -shard, -check, -inspect, -pin, -history-timeout. With
// -json, or on a pipe as a sweep, it writes records (docs/records.md): a
// start record with "explore_runs", the budget; a seed record per failing
// run, with "explore_run", "branches", "artifacts" and, for a branched run,
// "faults_file" naming its schedule; and a summary that counts each run as
// one seed, with the sweep's "properties" and "buggify_sites" tables, and
// adds an "explore" object (runs, starting seeds, branches, corpus). Its
// report then goes to stderr, so
// "sf-run -explore | sf-report" and "sf-run -explore | sf-shrink" work.
// SIGINT or SIGTERM stops it as a sweep: the summary says "interrupted".
//
// A world with preempt fields preempts goroutines inside each node
// (docs/preemption.md), at function entries: its modules are rewritten so
// that small leaf functions, to which Go gives no stack check, get one.
// With preempt.strategy pct every change point is a
// preempt fault in the trace and the schedule ("fault preempt counter#1 at
// counted call #55889"), and the trace ends with a line that says how many
// calls each node counted ("pct: counted calls per node: counter=244941
// (steps 250000)"), the number preempt.steps should cover.
//
// SIGINT or SIGTERM stops a sweep: no seed starts after it, running seeds
// end (a seed checking its history stops the check), the summary covers
// the seeds that finished and says so (the JSONL summary has
// "interrupted": true), and sf-run exits 130. The signals are caught from
// start-up on, while the world loads and builds too, and even when the
// process was started with SIGINT ignored (a script's background job); a
// second signal ends sf-run at once, with status 130.
//
// -check runs every seed twice and fails a seed whose two runs differ,
// naming the first host call where they part; when none differ, the
// summary says that every seed ran the same twice. -json writes JSONL
// records (start, one pin record per pinned regression, one seed record
// per seed, summary) on stdout and the human report on stderr. -j sets the
// number of parallel workers; the records do not depend on it.
//
// A sweep (-seeds) whose standard output is a pipe writes records as if
// -json were given, and its human report goes to stderr, so that
// "sf-run -seeds 1-500 | sf-report -html r.html" works as written; its
// first line on stderr says so. A terminal, a file or /dev/null gets the
// human report; -json=false keeps it on a pipe too
// (sf-run -seeds 1-500 -json=false | less). -explore does the same. A
// replay (-seed N) prints its trace whatever stdout is.
//
// -shard K/N runs only the K-th of N slices of the seeds: the seeds at
// positions K, K+N, K+2N... of the list. The N shards together run every
// seed once, each a similar mix; their start records carry "shard":"K/N"
// and the whole seed set, and sf-report merges their streams into one
// sweep (docs/ci.md shows a CI matrix and a Kubernetes Indexed Job).
//
// -c - reads the world file from standard input, within the same 16 MiB
// limit as a file. Its relative paths (pkg, files, extends) and its .seedfall
// directory are then those of the current directory, its errors name
// <stdin>, and its artifacts go to .seedfall/stdin/. The replay commands it
// prints read standard input too: pipe the same world into them. -faults -
// also reads standard input, so -c - and -faults - cannot be given together.
//
// -profile applies a named profile of the world file and -set path=value
// overrides one field (repeatable), after everything else. When the
// workload records a history (sim.Put, sim.Get, sim.Invoke, sim.Txn), the
// run checks it against the world's checker model once the workloads are
// done. The world's limits.check_steps bounds that check's work (a budget
// of model steps per key, the same on every host); -history-timeout, more
// than 0, is the outer bound in real time. A seed whose check gives up
// neither passes nor fails on it: the summary counts it apart from the
// passes ("GAVE UP 2 of 10 seeds gave up checking their history"), and
// sf-run exits 1 for it, as sf-check does. -inspect, with
// -seed, lists each node's disk after the run: every file with its size, the
// bytes that would survive a crash and those still pending, the ranges a
// fault corrupted, and how full the disk is. With -snapshot, -inspect lists
// the world at the snapshot's moment instead: each node's disk, then the
// open descriptors of its running instance (files with their offsets,
// sockets with their ends, state and unread bytes), or "down".
//
// Exit status: 0 every seed passed, 1 a seed failed, its history check gave
// up, or a property was never true, 2 bad usage or input (a broken world
// file, a failed build), 130 the sweep was interrupted.
package main
