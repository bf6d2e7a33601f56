// Sf-report says what sweeps found, as text, Markdown or one HTML page.
//
// Usage:
//
//	sf-run -seeds RANGE | sf-report [-md FILE] [-html FILE] [-findings FILE]
//	sf-run -explore | sf-report [flags]
//	sf-report [flags] run.jsonl [shrink.jsonl ...]
//	sf-report [flags] shard-1.jsonl shard-2.jsonl ... shard-N.jsonl
//
// It reads record streams (docs/records.md) from stdin or the files named:
// sf-run's (with -json, or piped: a sweep whose stdout is a pipe writes
// records), and sf-shrink -json's. The text report goes to stdout; -md and
// -html write the same report as Markdown (for a CI job summary or a pull
// request) and as one self-contained HTML page (inline style and script;
// it fetches nothing). "-" for either writes it to stdout instead of the
// text.
//
// For each sweep the report gives the summary; the failures grouped into
// findings, each with its seeds, the shortest shrunk schedule of those
// seeds when sf-shrink records were given, and a line that replays it; the
// property table with margins; the buggify table; and the seeds whose
// history check gave up. Before the findings come the world's pinned
// regressions that sf-run replayed ahead of the seeds (its pin records):
// each pin file with its original seed and whether it passed, failed again,
// failed differently or was nondeterministic, and for a failure when and
// its message. A failing pin joins the finding it fails as (a finding may
// hold pins and no seed) and fails the report. A finding is a class of
// failure and the head of its message: the property's message, or the
// failure's message without the failing instance, cut at the first ": ",
// with numbers masked ("assert · acknowledged write lost"); a liveness
// failure is the class and the node ("liveness · server"). Instance numbers
// never count, so client#1 and client#3 failing the same way are one
// finding. The HTML page draws each shrunk schedule as a timeline of faults
// per node and embeds (or, past 2 MiB, links) the history timeline of a
// failing history check.
//
// Streams of sf-run -shard K/N of one sweep (the same seed set and N) are
// merged into one sweep, whatever order they come in; the report names the
// shards that are missing. Shard 1 alone replays the pins, and the merged
// sweep counts each pin file once even if several shards hold its replay.
// Shards of different worlds are an error. Other streams are separate
// sweeps, reported one after another. sf-shrink records join the finding of
// their seed in a sweep of their world.
//
// A stream of sf-run -explore (its start record has explore_runs) is
// reported as an exploration: its counts are of runs, from its summary,
// since only failing runs have records; its failing runs are grouped into
// findings run by run, so two runs of one seed are two runs of a finding;
// and a finding shows its first run, that run's schedule and a replay line
// that runs it with -faults (or the shrunk schedule sf-shrink made of one
// of its runs). Every format heads an exploration's columns as runs
// ("runs reached", "runs true", "runs enabled", "runs fired" in the
// property and buggify tables, which are summed over its runs) and names
// a shrunk schedule or cause curve by its run ("run 13 (seed 1)"); a
// sweep's say seeds. An exploration never marks a finding resolved, and in the
// findings file a finding it saw keeps no seeds, so that a sweep whose run
// of the seed passes does not resolve what a branch found.
//
// Findings are kept across runs, written atomically, in the .seedfall
// folder next to each world file, where sf-run writes that world's
// artifacts: .seedfall/findings.json there, whatever folder sf-report runs
// in. The world file is the one the records name, relative to the current
// folder as the other paths in them are, so sf-report runs where sf-run
// ran. Records of several worlds update the file of each world's folder
// (sibling worlds share one, keyed by world); a world sf-run read from
// standard input (-c -) keeps its findings in the current folder's
// .seedfall, as it does its artifacts; where the records come from (a file
// or standard input) does not matter. A world whose folder is not there is
// an input error. -findings FILE keeps every world's findings in FILE
// instead, and -findings "" keeps none. The file holds each finding's
// fingerprint (world, class, message head, and node for liveness), when it
// was first and last seen, and its seeds and failing pins. Every report
// gives each finding a status: new, ongoing (seen before), regressed
// (resolved before, seen again), and lists as resolved the findings of the
// same world whose seeds (and pins) all ran in this sweep and no longer
// fail that way. SOURCE_DATE_EPOCH, when set, is the
// time findings are stamped with.
//
// Exit status: 0 when every sweep passed, 1 when a sweep failed (a seed, a
// property or a pinned regression) or is incomplete (missing shards, an
// interrupted or killed run), 2 on usage or input errors (a line that is
// not a JSON record names its file and line).
package main
