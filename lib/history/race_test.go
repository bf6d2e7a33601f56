//go:build race

package history

// raceEnabled is true under the race detector. The package's long tests
// run on one goroutine, so the detector has nothing to watch in them: they
// skip there, and the run without -race does them whole.
const raceEnabled = true
