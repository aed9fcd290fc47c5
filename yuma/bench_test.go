package yuma

import (
	"testing"
	"time"

	"github.com/affine-ledger/ledger/rng"
)

// epochTarget is the budget for one vTrust + Yuma epoch at 64
// validators x 256 miners; the Yuma half should use a small part of it.
const epochTarget = 100 * time.Millisecond

// BenchmarkEpoch64x256 runs one epoch of 64 validators weighting 256
// miners (320 uids), in its steady state, and reports the time per epoch
// as a fraction of the 100 ms target.
func BenchmarkEpoch64x256(b *testing.B) {
	in := Synthetic(64, 256, rng.Derive([32]byte{}, "yuma bench"))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Epoch(in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(epochTarget), "of-100ms-target")
}

// BenchmarkEpoch256x4096 is a large subnet's epoch (256 validators,
// 4096 uids), for scale.
func BenchmarkEpoch256x4096(b *testing.B) {
	in := Synthetic(256, 3840, rng.Derive([32]byte{}, "yuma bench large"))
	b.ResetTimer()
	for range b.N {
		if _, err := Epoch(in); err != nil {
			b.Fatal(err)
		}
	}
}
