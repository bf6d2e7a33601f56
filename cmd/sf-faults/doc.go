// Sf-faults lists, edits and checks the fault schedule of one seed, so that
// a changed schedule can be replayed to test an idea about a failure.
//
// Usage:
//
//	sf-faults [-c FILE] -seed N [-faults FILE] [-remove N ...] [-shift N=AMOUNT ...]
//	          [-add JSON ...] [-out FILE] [-json] [-profile NAME] [-set PATH=VALUE ...]
//
// The schedule comes from -faults FILE (- reads stdin). Without -faults it
// is the seed's artifact in .seedfall/<world>/ next to the world file: the
// schedule sf-shrink cut the seed down to, seed-N.shrunk.faults.json, when
// there is one, else seed-N.faults.json, which sf-run writes for a failing
// seed (when both exist, a note on stderr says which it took). When neither
// exists, sf-faults runs the seed once and takes the faults it draws on its
// own, and the time it failed at, if it failed, as the duration. An
// artifact whose recorded world (config, profile, set) is not the one given
// is refused, since its faults and duration are that world's; a -faults
// FILE of another world is used with a note.
//
// Edits name faults by their position in the list sf-faults prints,
// counting from 1, and every position means the schedule as it was before
// this call: -remove 1 -shift 2=+10ms shifts the fault listed second, even
// though it becomes the first.
//
//	-remove N        drops fault N.
//	-shift N=AMOUNT  moves fault N. A fault planned in time moves by a signed
//	                 duration (2=-50ms), and its until moves with it. A
//	                 fault that fires at a numbered event of its node (a disk
//	                 op, a disk read, a buggify hit, a datagram, a counted
//	                 call, a read or write call; docs/schedules.md lists the
//	                 event of each kind) moves by a signed count of those
//	                 events (1=+2); its at only records when the event
//	                 happened and stays as it is.
//	-add JSON        adds one fault written as in a schedule file, such as
//	                 {"at":"1s","kind":"pause","node":"server","until":"1.5s"}.
//	                 Unknown fields are errors.
//
// Each flag may be given more than once. The edited schedule is sorted by
// at, loses the shrunk_from and shrink_runs that sf-shrink recorded, and
// keeps everything else (seed, config, profile, set, duration, budget,
// branches). Before anything is written it is checked against the world:
// known kinds, nodes that exist, at neither negative nor past the end of
// the run (for faults in time), until not before at, a partition's side or
// groups but not both, a clog's mode and dir, a slowdown's factor of at
// least 1, op from 1, a buggify fault's site, and a short read's or
// write's bytes not negative: each kind's own checks, from sf's registry
// of fault kinds. An error names the edit
// (-shift 4=+1ms: there is no fault 4 (the schedule has 3)) or the entry
// of the sorted result, counting from 0 as JSON paths do
// (faults[2].node: "sever" is not a node of this world (server, client)).
//
// The result goes to -out, or back to the file it came from. With no edit,
// sf-faults only lists and checks, and writes only a schedule it drew
// from a run (to the seed's artifact path, so there is a file to edit
// next) or a copy to -out. An edit of stdin needs -out or -json.
//
// It prints a header (the seed, how many faults, where they came from and
// what was written), the numbered faults, the run's duration, and the
// sf-run command that replays the result, keeping -profile and -set. With
// -json, stdout is the resulting schedule as JSON and the listing goes to
// stderr.
//
// Exit status: 0 done, 2 bad usage or input (a flag, a missing or malformed
// file, a schedule the world refuses, a failed build).
package main
