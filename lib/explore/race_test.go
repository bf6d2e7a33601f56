//go:build race

package explore

// raceEnabled is true under the race detector, where the tests that repeat
// one path over many seeds, steps or worlds run it a few times: the
// detector watches the goroutines of one run as well as of ten, and make
// test runs them all without it first.
const raceEnabled = true
