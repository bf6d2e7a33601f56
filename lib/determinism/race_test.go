//go:build race

package determinism

// raceDetector says whether the test binary runs under the race detector.
const raceDetector = true
