package verify_test

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/verify"
)

// splitmix64 is a cheap deterministic mixer: benchmark keys must cost far
// less to make than the Add they measure.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// setEntry returns the i-th distinct entry of a synthetic ledger: a few
// validators and miners, random seeds, as verify sees them.
func setEntry(i uint64, vals, miners []keys.PublicKey) (v, m keys.PublicKey, id challenge.ID) {
	id = challenge.ID{Env: "mult8", Version: 1}
	for j := range 4 {
		binary.LittleEndian.PutUint64(id.Seed[8*j:], splitmix64(i*4+uint64(j)))
	}
	r := splitmix64(^i)
	return vals[r%uint64(len(vals))], miners[(r>>32)%uint64(len(miners))], id
}

func setParties(nv, nm int) (vals, miners []keys.PublicKey) {
	for i := range nv {
		vals = append(vals, keys.PublicKey(sha256.Sum256(fmt.Appendf(nil, "validator %d", i))))
	}
	for i := range nm {
		miners = append(miners, keys.PublicKey(sha256.Sum256(fmt.Appendf(nil, "miner %d", i))))
	}
	return vals, miners
}

// BenchmarkDiskSetAdd adds n entries to a fresh DiskSet per iteration,
// dupPct percent of them repeats of an earlier entry anywhere before (each
// checked for its exact first location). It reports ns/add, wall clock
// from the first Add to the end of Close, so that work Pebble left in the
// background counts; cpu-ns/add, CPU time of the process over the same
// span (Pebble's flushes and compactions run on the other core); and, as
// the same-run baseline, add/sha5k: ns/add over SHA-256 of a 5 KiB
// transcript (verify's budget is a fraction of the latter).
func BenchmarkDiskSetAdd(b *testing.B) {
	cases := []struct{ n, dupPct int }{{100_000, 0}, {1_000_000, 0}, {1_000_000, 1}}
	vals, miners := setParties(4, 64)
	for _, c := range cases {
		b.Run(fmt.Sprintf("n=%d/dup=%d%%", c.n, c.dupPct), func(b *testing.B) {
			var addTime, addCPU time.Duration
			var adds int
			for b.Loop() {
				set, err := verify.NewDiskSet(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				c0, t0 := cpuTime(), time.Now()
				var distinct uint64
				for i := range c.n {
					r := splitmix64(uint64(i) ^ 0x5eed)
					if distinct > 0 && int(r%100) < c.dupPct {
						j := (r >> 8) % distinct
						v, m, id := setEntry(j, vals, miners)
						first, dup, err := set.Add(v, m, id, verify.Location{Height: uint64(i)})
						if err != nil || !dup || first != (verify.Location{Height: j, Index: uint32(j)}) {
							b.Fatalf("add %d (repeat of %d): %+v %v %v", i, j, first, dup, err)
						}
						continue
					}
					v, m, id := setEntry(distinct, vals, miners)
					at := verify.Location{Height: distinct, Index: uint32(distinct)}
					if _, dup, err := set.Add(v, m, id, at); err != nil || dup {
						b.Fatalf("add %d: dup %v err %v", i, dup, err)
					}
					distinct++
				}
				if err := set.Close(); err != nil {
					b.Fatal(err)
				}
				addTime += time.Since(t0)
				addCPU += cpuTime() - c0
				adds += c.n
			}
			sha := shaPerOp(5 << 10)
			perAdd := float64(addTime.Nanoseconds()) / float64(adds)
			b.ReportMetric(perAdd, "ns/add")
			b.ReportMetric(perAdd/sha, "add/sha5k")
			b.ReportMetric(float64(addCPU.Nanoseconds())/float64(adds), "cpu-ns/add")
		})
	}
}

// shaPerOp measures SHA-256 of size bytes in ns, the benchmark's baseline.
func shaPerOp(size int) float64 {
	buf := make([]byte, size)
	const n = 2000
	t0 := time.Now()
	for range n {
		sha256.Sum256(buf)
	}
	return float64(time.Since(t0).Nanoseconds()) / n
}
