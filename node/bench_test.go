package node_test

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
	"github.com/affine-ledger/ledger/p2p"
)

// BenchmarkPropagation appends one block per iteration on one of 10 nodes
// (in turn) and measures how long until all 10 store it. The nodes form a
// ring, each peering with the two nearest on either side, so most blocks
// take two or three hops. Baseline of the same run: the local append
// (commit and fsync on the origin).
//
//	go test -run '^$' -bench Propagation -benchtime 200x ./node/
func BenchmarkPropagation(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const n = 10
	c := nodetest.New(b, n, nodetest.Options{Topology: nodetest.Ring(2)})
	c.StartAll()
	if err := c.WaitMesh(ctx, 4); err != nil {
		b.Fatal(err)
	}
	next := make([]uint64, n)
	appendOne := func(i int) ledger.Receipt {
		v := c.Keys[i].Public()
		r, err := c.Nodes[i].Append(ctx, recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, next[i], 200)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		next[i]++
		return r
	}
	waitAll := func(v keys.PublicKey, h uint64) {
		var wg sync.WaitGroup
		for _, nd := range c.Nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := nd.WaitHead(ctx, v, h); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	for i := range n { // warm up: every chain exists everywhere
		r := appendOne(i)
		waitAll(r.Block.Validator, r.Block.Height)
	}
	var all, local []time.Duration
	b.ResetTimer()
	for it := range b.N {
		i := it % n
		t0 := time.Now()
		r := appendOne(i)
		local = append(local, time.Since(t0))
		waitAll(r.Block.Validator, r.Block.Height)
		all = append(all, time.Since(t0))
	}
	b.StopTimer()
	p50, p99 := percentile(all, 50), percentile(all, 99)
	lp50 := percentile(local, 50)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(lp50), "local-append-p50-ms")
	b.ReportMetric(ms(percentile(local, 99)), "local-append-p99-ms")
	b.ReportMetric(float64(p50)/float64(lp50), "p50/local-append")
	b.ReportMetric(float64(p99)/float64(100*time.Millisecond), "p99/100ms-target")
	b.ReportMetric(0, "ns/op")
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, (len(s)*p+99)/100-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkBackfill measures a node joining a network whose chains hold
// 100k transcripts (LEDGER_BENCH_TRANSCRIPTS to change): 4 validators,
// blocks of 100 transcripts of ~0.8 kB, served by one node. Baseline of the
// same run: archive.Export of the source store plus archive.Import into an
// empty one, which moves the same data through the same checks (Store.Put)
// without a network.
//
//	go test -run '^$' -bench Backfill -benchtime 1x ./node/
func BenchmarkBackfill(b *testing.B) {
	total := 100_000
	if s := os.Getenv("LEDGER_BENCH_TRANSCRIPTS"); s != "" {
		total, _ = strconv.Atoi(s)
	}
	const validators, perBlock = 4, 100
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	// The source node's data directory, written through appenders.
	src := b.TempDir()
	store, err := ledger.Open(node.StoreDir(src), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	var vals []keys.PublicKey
	for k := range validators {
		key, err := keys.FromSeed([32]byte{byte(k + 1), 'b', 'f'})
		if err != nil {
			b.Fatal(err)
		}
		vals = append(vals, key.Public())
		a, err := store.NewAppender(key)
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first := 0; first < total/validators; first += perBlock {
				ts := nodetest.Transcripts(key.Public(), uint64(first), perBlock, 300)
				if _, err := a.Append(ctx, recordtest.Anchor(1), ts, nil); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	heads := map[keys.PublicKey]uint64{}
	for h, err := range store.Heads() {
		if err != nil {
			b.Fatal(err)
		}
		heads[h.Block.Validator] = h.Block.Height
	}

	var exportDur, importDur, backfillDur time.Duration
	var stats archive.Stats
	for range b.N {
		// Baseline: export and import.
		var car bytes.Buffer
		t0 := time.Now()
		if _, err := archive.Export(store, &car); err != nil {
			b.Fatal(err)
		}
		exportDur += time.Since(t0)
		dst, err := ledger.Open(b.TempDir(), ledger.WithNetwork(recordtest.Network))
		if err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		if stats, err = archive.Import(dst, &car, archive.ImportOptions{}); err != nil {
			b.Fatal(err)
		}
		importDur += time.Since(t0)
		dst.Close()
	}
	store.Close()

	// The source node serves; a fresh observer joins.
	srcPort := nodetest.FreePort(b)
	quiet := nodetest.Quiet()
	source, err := node.Start(node.Config{DataDir: src, Logger: quiet, StatusEvery: time.Hour,
		NetUID: recordtest.Network.Netuid, Genesis: recordtest.Network.Genesis,
		Listen: []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/" + strconv.Itoa(srcPort))}})
	if err != nil {
		b.Fatal(err)
	}
	defer source.Close()
	for range b.N {
		joiner := b.TempDir()
		t0 := time.Now()
		j, err := node.Start(node.Config{DataDir: joiner, Logger: quiet, StatusEvery: time.Hour,
			NetUID: recordtest.Network.Netuid, Genesis: recordtest.Network.Genesis,
			Listen: []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/0")},
			Peers:  []peer.AddrInfo{source.AddrInfo()}, Network: p2p.Config{}})
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range vals {
			if err := j.WaitHead(ctx, v, heads[v]); err != nil {
				b.Fatal(err)
			}
		}
		backfillDur += time.Since(t0)
		j.Close()
	}

	per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	mb := float64(stats.Bytes) / 1e6
	baseline := per(exportDur) + per(importDur)
	b.ReportMetric(float64(stats.Blocks)/per(backfillDur), "backfill-blocks/s")
	b.ReportMetric(mb/per(backfillDur), "backfill-MB/s")
	b.ReportMetric(float64(stats.Blocks)/baseline, "export+import-blocks/s")
	b.ReportMetric(mb/baseline, "export+import-MB/s")
	b.ReportMetric(baseline/per(backfillDur), "backfill/export+import")
	b.ReportMetric(float64(stats.Transcripts), "transcripts")
	b.ReportMetric(0, "ns/op")
}
