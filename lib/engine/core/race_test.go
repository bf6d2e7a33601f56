//go:build race

package core_test

// raceEnabled is true when the tests run under the race detector, where the
// long single-goroutine parts of the fork tests (encoding and decoding a
// world's state) are trimmed: the detector has nothing to watch in them,
// and make test runs them whole without it.
const raceEnabled = true
