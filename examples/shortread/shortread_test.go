package shortread_test

import (
	"testing"

	"github.com/sf-dst/sf/simtest"
)

// TestShortRead sweeps the fixed server (seedfall.fixed.json: it reads each
// part of a frame with io.ReadFull) under short reads and short writes over
// seeds 1-20, and seeds 1-3 under -short. Pointed at seedfall.json, the
// server that trusts one Read, it fails a subtest per failing seed.
func TestShortRead(t *testing.T) {
	simtest.Run(t, "seedfall.fixed.json", simtest.Seeds("1-20"), simtest.ShortSeeds("1-3"))
}
