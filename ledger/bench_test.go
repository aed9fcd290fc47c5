package ledger_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// BenchmarkAppend measures group-committed appends (every one durable with
// pebble.Sync before it is acknowledged) against raw Pebble batches holding
// the same transcript bytes, committed with the same sync policy by the same
// number of goroutines, in the same run: this machine's disk is shared and
// noisy, so only the ratio is comparable across runs. Pebble itself groups
// concurrent synced commits into one WAL fsync, so the baseline is a strong
// one: the ratio is what encoding, the challenge check, four more keys per
// transcript (leaf, challenge, miner and duel indexes) and about one Merkle
// node, hashing, one signature per block and the single ordered commit loop
// cost. Where fsyncs are slow the two converge; on a CPU-starved machine
// with a fast disk the ratio approaches the ratio of CPU per transcript.
// The baseline is not handed the transcripts' encoding (its bytes are made
// before the timer starts) and each of its writers commits its own batch,
// as the ledger's do; the flushes and compactions each store's writes
// cause run on into the other's turns, which if anything favours the
// store that writes more, the ledger.
func BenchmarkAppend(b *testing.B) {
	for _, reply := range []int{2 << 10, 16 << 10} {
		for _, workers := range []int{1, 64} {
			b.Run(fmt.Sprintf("reply=%dKiB/writers=%d", reply>>10, workers), func(b *testing.B) { benchAppend(b, workers, reply) })
		}
	}
}

func benchAppend(b *testing.B, workers, replyBytes int) {
	k := alice(b)
	v := k.Public()
	trs := make([]record.Transcript, b.N)
	raws := make([][]byte, b.N)
	cids := make([]cid.Cid, b.N)
	var total int64
	for i := range trs {
		trs[i] = recordtest.Transcript(v, uint64(i), replyBytes)
		var err error
		if raws[i], cids[i], err = trs[i].Encode(); err != nil {
			b.Fatal(err)
		}
		total += int64(len(raws[i]))
	}
	ctx := context.Background()

	s := open(b, b.TempDir())
	a := appender(b, s, k)
	// The baseline gets the store's own Pebble configuration (but not
	// Open's block cache: it never reads).
	db, err := pebble.Open(b.TempDir(), ledger.PebbleOptions())
	if err != nil {
		b.Fatal(err)
	}
	// The two contenders take turns on slices of the work, so that a burst
	// of other load on the shared disk hits both alike.
	const rounds = 8
	var ledgerTime, rawTime time.Duration
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		lo, hi := b.N*r/rounds, b.N*(r+1)/rounds
		start := time.Now()
		runWorkers(b, workers, lo, hi, func(i int) error {
			_, err := a.Append(ctx, recordtest.Anchor(1), trs[i:i+1], nil)
			return err
		})
		ledgerTime += time.Since(start)
		start = time.Now()
		runWorkers(b, workers, lo, hi, func(i int) error {
			batch := db.NewBatch()
			defer batch.Close()
			if err := batch.Set(cids[i].Bytes(), raws[i], nil); err != nil {
				return err
			}
			return batch.Commit(pebble.Sync)
		})
		rawTime += time.Since(start)
	}
	b.StopTimer()
	db.Close()
	h, err := s.Head(v)
	if err != nil || h.Checkpoint.Size != uint64(b.N) {
		b.Fatalf("log has %d of %d transcripts (%v)", h.Checkpoint.Size, b.N, err)
	}
	s.Close()

	n := float64(b.N)
	b.ReportMetric(n/ledgerTime.Seconds(), "tx/s")
	b.ReportMetric(float64(total)/1e6/ledgerTime.Seconds(), "MB/s")
	b.ReportMetric(n/rawTime.Seconds(), "raw-tx/s")
	b.ReportMetric(float64(total)/1e6/rawTime.Seconds(), "raw-MB/s")
	b.ReportMetric(rawTime.Seconds()/ledgerTime.Seconds(), "ratio")
	b.ReportMetric(n/float64(h.Block.Height+1), "tx/block")
}

// runWorkers runs fn(lo..hi-1) on workers goroutines.
func runWorkers(b testing.TB, workers, lo, n int, fn func(i int) error) {
	var next atomic.Int64
	next.Store(int64(lo))
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
}
