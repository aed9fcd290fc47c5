//go:build race

package archive

// poisonRecycled overwrites recycled buffers, so that the race-detector
// test runs (every package in CI) catch a caller reading them afterwards.
const poisonRecycled = true
