// Package determinism holds the determinism corpus: what every world of
// examples/ does on its first seeds, recorded through the built sf-run as a
// user runs it, so that a change to the engine, the disk, the network or
// fault drawing that moves any run is seen at once.
//
// For each world file examples/<name>/seedfall*.json, and for a few
// variants of them with -set overrides that reach the fault kinds no
// example turns on, testdata/<world>.jsonl holds one line per seed with the
// seed record's status, class, virtual time, scheduler steps, host calls,
// fault count and determinism hash; testdata/<world>.seed-N.trace holds
// the whole trace a replay prints for a few seeds of three worlds.
//
// The package has no code of its own: its test is the judge. make test runs
// a quick part of it (the worlds whose builds are cheap, on their first
// seeds, and one trace); make corpus runs all of it; make corpus-update
// writes it anew. A change that is meant to change runs regenerates the
// corpus in a commit of its own that says why.
package determinism
