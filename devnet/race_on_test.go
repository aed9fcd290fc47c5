//go:build race

package devnet_test

// raceDetector slows everything down several times: the test's chain
// runs slower so that epochs do not race ahead of the validators.
const raceDetector = true
