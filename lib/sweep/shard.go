package sweep

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ParseShard reads a -shard value, "K/N": the K-th of N slices, counted
// from 1.
func ParseShard(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		k, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("%q is not K/N (for instance 2/4)", s)
	}
	if n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("%q: K must be between 1 and N, and N at least 1", s)
	}
	return k, n, nil
}

// ShardSeeds returns the K-th of N slices of seeds: the seeds at positions
// K-1, K-1+N, K-1+2N, ... Dealing seeds out in turn, rather than cutting
// the list into runs, gives every shard a similar mix of early and late
// seeds, and the N slices together hold every seed exactly once.
func ShardSeeds(seeds []uint64, k, n int) []uint64 {
	var out []uint64
	for i := k - 1; i < len(seeds); i += n {
		out = append(out, seeds[i])
	}
	return out
}

// IsPipe reports whether f is a pipe (or a FIFO). sf-run writes records
// instead of its report when its standard output is one, so that
// "sf-run | sf-report" works as written; a terminal, a file or /dev/null
// gets the report.
func IsPipe(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeNamedPipe != 0
}

// PipeNote is the line sf-run prints on stderr when it writes records
// because its standard output is a pipe: the switch changes what a reader
// of the pipe gets, so it is said rather than left to be guessed at. It is
// printed once the world is loaded, just before the first record, so that
// a run that fails before writing any says only why.
const PipeNote = "sf-run: stdout is a pipe: JSONL records go there, the report comes here; -json=false keeps the report on stdout"

// ChooseJSON says whether a sweep or an exploration writes records: as
// -json says when it was given (set), else when stdout is a pipe; note
// says it was the pipe, so the tool prints PipeNote.
func ChooseJSON(set, value bool, stdout *os.File) (json, note bool) {
	if set {
		return value, false
	}
	pipe := IsPipe(stdout)
	return pipe, pipe
}
