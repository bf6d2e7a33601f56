package kvlog_test

import (
	"testing"

	"github.com/sf-dst/sf/simtest"
)

// TestKVLog sweeps the fixed server (seedfall.fixed.json: it fsyncs before
// it acknowledges) over seeds 1-20, and seeds 1-3 under -short. Pointed at
// seedfall.json, the server with the planted bug, it fails a subtest per
// failing seed.
func TestKVLog(t *testing.T) {
	simtest.Run(t, "seedfall.fixed.json", simtest.Seeds("1-20"), simtest.ShortSeeds("1-3"))
}

// TestKVLogPinned replays the regressions pinned for the fixed server,
// under .seedfall/pinned/seedfall.fixed/: seed 3 of the buggy world, shrunk
// to the one crash that lost an acknowledged write. It passes while the fix
// holds; README.md shows it failing again when the bug comes back.
func TestKVLogPinned(t *testing.T) {
	simtest.Pinned(t, "seedfall.fixed.json")
}
