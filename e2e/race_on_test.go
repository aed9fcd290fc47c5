//go:build race

package e2e

// raceDetector: the race detector slows the devnet several times.
const raceDetector = true
