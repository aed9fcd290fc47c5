package verify_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/proofs"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// Benchmarks (make bench). Each reports a ratio against a baseline
// measured in the same run. Ledgers are built once per process under
// LEDGER_BENCH_DIR (default: a temporary directory) and reused.
//
// Sizes: 10k transcripts, and 1M for BenchmarkVerifyMemory's large store
// (the figure; building it takes about two minutes, kept under
// LEDGER_BENCH_DIR): LEDGER_BENCH_MEMORY_N sets another size.

// benchLedger is 100 transcripts a block, mult8 with 4 KiB replies (a
// model that reasons at some length, in words: verifytest.Prose), so
// transcripts are about 4.5 KiB.
func benchSpec(n int) verifytest.Spec {
	return verifytest.Spec{Validators: 1, Blocks: n / 100, PerBlock: 100, Envs: []string{"mult8"}, Pad: 4096}
}

var (
	benchMu   sync.Mutex
	benchDirs = map[string]string{}
)

func benchStore(b *testing.B, n int, spec verifytest.Spec) string {
	benchMu.Lock()
	defer benchMu.Unlock()
	key := fmt.Sprintf("%d-%d", n, spec.Pad)
	if d, ok := benchDirs[key]; ok {
		return d
	}
	root := os.Getenv("LEDGER_BENCH_DIR")
	if root == "" {
		var err error
		if root, err = os.MkdirTemp("", "ledger-bench-"); err != nil {
			b.Fatal(err)
		}
	}
	// prose: the padding is verifytest.Prose, not a run of one letter as
	// stores kept from before were.
	dir := filepath.Join(root, fmt.Sprintf("store-%d-%d-prose", n, spec.Pad))
	if _, err := os.Stat(filepath.Join(dir, "done")); err != nil {
		os.RemoveAll(dir)
		s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := verifytest.Build(s, spec); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "done"), nil, 0o644)
		b.Logf("built a store of %d transcripts in %v", n, time.Since(start))
	}
	benchDirs[key] = dir
	return dir
}

// ledgerBytes reads every block and transcript of the store into memory:
// the bytes verify hashes, for the SHA-256 baseline.
func ledgerBytes(b *testing.B, s *ledger.Store) [][]byte {
	var out [][]byte
	for h, err := range s.Heads() {
		if err != nil {
			b.Fatal(err)
		}
		for blk, err := range s.Blocks(h.Block.Validator, 0) {
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, blk.Raw)
			for _, c := range append(blk.TranscriptCIDs(), blk.DecisionCIDs()...) {
				raw, err := s.Object(c)
				if err != nil {
					b.Fatal(err)
				}
				out = append(out, raw)
			}
		}
	}
	return out
}

func runVerify(b *testing.B, s *ledger.Store, reexec bool) verify.Report {
	set, err := verify.NewDiskSet(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer set.Close()
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		b.Fatal(err)
	}
	rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, verify.Options{Reexecute: reexec, Challenges: set})
	if err != nil || !rep.OK {
		b.Fatalf("verify: %v %+v", err, rep.Failures)
	}
	return rep
}

// BenchmarkVerify measures verify's throughput over a store of 10k
// transcripts, without and with re-execution, against SHA-256 over the same
// bytes in memory measured in the same iterations (target for no-reexec:
// ratio >= 0.5). pad is the model reply's length: 4 KiB and 32 KiB
// (reasoning models write thousands of tokens). Wall-clock ratios use both
// cores for verify and one for SHA-256; cpu ratios compare CPU seconds
// (getrusage), which is what a busy shared machine can be trusted for.
func BenchmarkVerify(b *testing.B) {
	for _, pad := range []int{4096, 32768} {
		for _, reexec := range []bool{false, true} {
			if reexec && pad > 4096 {
				continue // mult8's answer cleaning dominates: 2 ms a 32 KiB reply
			}
			b.Run(fmt.Sprintf("pad=%d/reexec=%v", pad, reexec), func(b *testing.B) {
				spec := benchSpec(10_000)
				spec.Pad = pad
				benchVerify(b, benchStore(b, 10_000, spec), reexec)
			})
		}
		// The same ledger as an archive file: the verifier without the
		// store's reads (Pebble's decompression and copies).
		b.Run(fmt.Sprintf("pad=%d/car/reexec=false", pad), func(b *testing.B) {
			spec := benchSpec(10_000)
			spec.Pad = pad
			benchVerifyCAR(b, benchStore(b, 10_000, spec))
		})
	}
}

func benchVerifyCAR(b *testing.B, dir string) {
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		b.Fatal(err)
	}
	raw := ledgerBytes(b, s)
	car := filepath.Join(b.TempDir(), "l.car")
	f, err := os.Create(car)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := archive.Export(s, f); err != nil {
		b.Fatal(err)
	}
	f.Close()
	s.Close()
	var total int64
	for _, r := range raw {
		total += int64(len(r))
	}
	var verifyTime, shaTime, verifyCPU, shaCPU time.Duration
	var rep verify.Report
	for b.Loop() {
		c0, t0 := cpuTime(), time.Now()
		for _, r := range raw {
			sha256.Sum256(r)
		}
		c1, t1 := cpuTime(), time.Now()
		f, err := os.Open(car)
		if err != nil {
			b.Fatal(err)
		}
		set, err := verify.NewDiskSet(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		rep, err = verify.VerifyCAR(f, verify.Options{Challenges: set})
		set.Close()
		f.Close()
		if err != nil || !rep.OK {
			b.Fatalf("verify: %v %+v", err, rep.Failures)
		}
		verifyTime += time.Since(t1)
		verifyCPU += cpuTime() - c1
		shaTime += t1.Sub(t0)
		shaCPU += c1 - c0
	}
	n := float64(b.N)
	mbs := func(bytes int64, d time.Duration) float64 { return float64(bytes) / 1e6 / (d.Seconds() / n) }
	b.ReportMetric(mbs(rep.Bytes, verifyTime), "verify_MB/s")
	b.ReportMetric(mbs(total, shaTime), "sha256_MB/s")
	b.ReportMetric(mbs(rep.Bytes, verifyTime)/mbs(total, shaTime), "ratio_wall")
	b.ReportMetric(mbs(rep.Bytes, verifyCPU)/mbs(total, shaCPU), "ratio_cpu")
	b.ReportMetric(float64(rep.Transcripts)/(verifyTime.Seconds()/n), "transcripts/s")
}

func benchVerify(b *testing.B, dir string, reexec bool) {
	s, err := verify.OpenStore(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	raw := ledgerBytes(b, s)
	var total int64
	for _, r := range raw {
		total += int64(len(r))
	}
	var verifyTime, shaTime, verifyCPU, shaCPU time.Duration
	var rep verify.Report
	for b.Loop() {
		c0, t0 := cpuTime(), time.Now()
		for _, r := range raw {
			sha256.Sum256(r)
		}
		c1, t1 := cpuTime(), time.Now()
		rep = runVerify(b, s, reexec)
		verifyTime += time.Since(t1)
		verifyCPU += cpuTime() - c1
		shaTime += t1.Sub(t0)
		shaCPU += c1 - c0
	}
	n := float64(b.N)
	mbs := func(bytes int64, d time.Duration) float64 { return float64(bytes) / 1e6 / (d.Seconds() / n) }
	b.ReportMetric(mbs(rep.Bytes, verifyTime), "verify_MB/s")
	b.ReportMetric(mbs(total, shaTime), "sha256_MB/s")
	b.ReportMetric(mbs(rep.Bytes, verifyTime)/mbs(total, shaTime), "ratio_wall")
	b.ReportMetric(mbs(rep.Bytes, verifyCPU)/mbs(total, shaCPU), "ratio_cpu")
	b.ReportMetric(float64(rep.Transcripts)/(verifyTime.Seconds()/n), "transcripts/s")
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	d, _ := processCPUTime()
	return d
}

// BenchmarkProofVerify measures offline inclusion-proof checks in a log of
// 1M transcripts. Building a 1M-leaf store is slow, so the tree of leaf
// hashes is built in memory with the same merkle library (compact ranges
// for the root, the full levels for the paths) and the proofs are checked
// against it. "merkle" is what spec/proofs.md step 4-6 costs (transcript
// CID, leaf hash, audit path: the <= 20 us target); "full" adds decoding
// the transcript and the block and the sr25519 signature check. Baseline:
// SHA-256 of the transcript bytes.
func BenchmarkProofVerify(b *testing.B) {
	const size = 1 << 20
	k := verifytest.Key(0)
	// 64 real transcripts spread over the log; the other leaves are CIDs
	// of placeholder bytes, which the proofs do not distinguish.
	real := map[uint64][]byte{}
	levels := [][][]byte{make([][]byte, size)}
	for i := uint64(0); i < size; i++ {
		var c cid.Cid
		if i%(size/64) == 7 {
			tr, err := verifytest.Transcript(k.Public(), recordtest.Anchor(1), "mult8", i, int(i), 4096)
			if err != nil {
				b.Fatal(err)
			}
			raw, tc, err := tr.Encode()
			if err != nil {
				b.Fatal(err)
			}
			real[i], c = raw, tc
		} else {
			c = codec.Sum(strconv.AppendUint(nil, i, 10))
		}
		levels[0][i] = rfc6962.DefaultHasher.HashLeaf(c.Bytes())
	}
	for l := 0; len(levels[l]) > 1; l++ {
		next := make([][]byte, len(levels[l])/2)
		for i := range next {
			next[i] = rfc6962.DefaultHasher.HashChildren(levels[l][2*i], levels[l][2*i+1])
		}
		levels = append(levels, next)
	}
	rf := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	r := rf.NewEmptyRange(0)
	for _, h := range levels[0] {
		r.Append(h, nil)
	}
	root, _ := r.GetRootHash(nil)
	var cp record.Checkpoint
	cp.Size = size
	copy(cp.Root[:], root)
	_, blockRaw, _, err := record.Sign(record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: k.Public(), Height: 1, Prev: codec.LinkTo(codec.Sum([]byte("parent"))),
		TimeMS: 1, Anchor: recordtest.Anchor(1), Checkpoint: cp}, k)
	if err != nil {
		b.Fatal(err)
	}
	var cases []*proofs.InclusionProof
	for i, raw := range real {
		nodes, err := proof.Inclusion(i, size)
		if err != nil {
			b.Fatal(err)
		}
		var hs []record.Hash
		for _, id := range nodes.IDs {
			var h record.Hash
			copy(h[:], levels[id.Level][id.Index])
			hs = append(hs, h)
		}
		p := &proofs.InclusionProof{Type: proofs.InclusionType, Transcript: raw, CID: codec.Sum(raw).String(), LeafIndex: i, TreeSize: size, Hashes: hs, Block: blockRaw}
		if _, err := p.Verify(); err != nil {
			b.Fatal(err)
		}
		cases = append(cases, p)
	}
	levels = nil
	b.Run("merkle", func(b *testing.B) {
		var base, t time.Duration
		i := 0
		for b.Loop() {
			p := cases[i%len(cases)]
			i++
			t0 := time.Now()
			sha256.Sum256(p.Transcript)
			t1 := time.Now()
			c := codec.Sum(p.Transcript)
			if c.String() != p.CID {
				b.Fatal("cid")
			}
			hs := make([][]byte, len(p.Hashes))
			for j := range p.Hashes {
				hs[j] = p.Hashes[j][:]
			}
			if err := proof.VerifyInclusion(rfc6962.DefaultHasher, p.LeafIndex, p.TreeSize, rfc6962.DefaultHasher.HashLeaf(c.Bytes()), hs, cp.Root[:]); err != nil {
				b.Fatal(err)
			}
			t += time.Since(t1)
			base += t1.Sub(t0)
		}
		b.ReportMetric(float64(t.Microseconds())/float64(b.N), "us/proof")
		b.ReportMetric(float64(base.Nanoseconds())/1e3/float64(b.N), "sha256_us/proof")
		b.ReportMetric(float64(t)/float64(base), "ratio_vs_sha256_of_transcript")
	})
	b.Run("full", func(b *testing.B) {
		var base, t time.Duration
		i := 0
		for b.Loop() {
			p := cases[i%len(cases)]
			i++
			t0 := time.Now()
			sha256.Sum256(p.Transcript)
			t1 := time.Now()
			if _, err := p.Verify(); err != nil {
				b.Fatal(err)
			}
			t += time.Since(t1)
			base += t1.Sub(t0)
		}
		b.ReportMetric(float64(t.Microseconds())/float64(b.N), "us/proof")
		b.ReportMetric(float64(base.Nanoseconds())/1e3/float64(b.N), "sha256_us/proof")
		b.ReportMetric(float64(t)/float64(base), "ratio_vs_sha256_of_transcript")
	})
}

// BenchmarkVerifyMemory runs verify (no re-execution) in a child process
// over a store of 10k transcripts and one of 1M (LEDGER_BENCH_MEMORY_N)
// and reports each child's peak RSS, peak live Go heap and peak sampled
// Go HeapInuse, and the large store's figures over the small one's: verify
// streams the ledger, so the target is that memory stays flat (ratio at
// most 1.5). The live heap is what the last collection found reachable:
// what verify keeps. HeapInuse adds the garbage not yet collected, whose
// peak depends on when the collector happens to run (up to GOGC's
// doubling of the live heap), so it is reported beside it, without the
// target. A child that only opens the large store and reads its heads
// shows the floor every process pays. The transcripts here are small (no
// padding) so that the stores build in seconds (minutes for 1M).
func BenchmarkVerifyMemory(b *testing.B) {
	small, large := 10_000, 1_000_000
	if v := os.Getenv("LEDGER_BENCH_MEMORY_N"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < small || n%100 != 0 {
			b.Fatalf("LEDGER_BENCH_MEMORY_N=%q: want a multiple of 100, at least %d", v, small)
		}
		large = n
	}
	dirs := map[int]string{}
	for _, n := range []int{small, large} {
		spec := benchSpec(n)
		spec.Pad = 0
		dirs[n] = benchStore(b, n, spec)
	}
	// One measurement whatever -benchtime says: each is a whole verify in
	// a child process.
	var smallMem, largeMem, openMem childMemory
	for i := 0; b.Loop(); i++ {
		if i == 0 {
			smallMem = childVerify(b, dirs[small], "verify")
			largeMem = childVerify(b, dirs[large], "verify")
			openMem = childVerify(b, dirs[large], "open")
		}
	}
	smallRSS, smallHeap, largeRSS, largeHeap, openRSS := smallMem.rss, smallMem.heapInuse, largeMem.rss, largeMem.heapInuse, openMem.rss
	b.ReportMetric(float64(smallRSS)/1e6, "small_peak_rss_MB")
	b.ReportMetric(float64(largeRSS)/1e6, "large_peak_rss_MB")
	b.ReportMetric(float64(largeRSS)/float64(smallRSS), "rss_large/small")
	b.ReportMetric(float64(smallHeap)/1e6, "small_peak_heap_inuse_MB")
	b.ReportMetric(float64(largeHeap)/1e6, "large_peak_heap_inuse_MB")
	b.ReportMetric(float64(largeHeap)/float64(smallHeap), "heap_large/small")
	b.ReportMetric(float64(smallMem.liveHeap)/1e6, "small_peak_live_heap_MB")
	b.ReportMetric(float64(largeMem.liveHeap)/1e6, "large_peak_live_heap_MB")
	b.ReportMetric(float64(largeMem.liveHeap)/float64(smallMem.liveHeap), "live_heap_large/small")
	b.ReportMetric(float64(openRSS)/1e6, "open_only_rss_MB")
	b.ReportMetric(float64(largeRSS)/float64(openRSS), "large_rss_vs_open_only")
	b.ReportMetric(float64(small), "small_transcripts")
	b.ReportMetric(float64(large), "large_transcripts")
}

// childMemory is what a verify child reports: its peaks of resident set,
// live heap and heap in use, in bytes.
type childMemory struct{ rss, liveHeap, heapInuse int64 }

func childVerify(b *testing.B, dir, mode string) childMemory {
	out := filepath.Join(b.TempDir(), "heap")
	cmd := exec.Command(os.Args[0], "-test.run=^TestVerifyChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LEDGER_VERIFY_CHILD="+dir, "LEDGER_VERIFY_CHILD_MODE="+mode, "LEDGER_VERIFY_CHILD_OUT="+out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("child: %v\n%s", err, msg)
	}
	h, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	// The child reports its own VmHWM: wait4's maxrss would include the
	// parent's pages the child shared before exec.
	var m childMemory
	if _, err := fmt.Sscan(string(h), &m.heapInuse, &m.liveHeap, &m.rss); err != nil {
		b.Fatalf("child output %q: %v", h, err)
	}
	return m
}

// vmHWM reads this process's peak resident set from /proc/self/status.
func vmHWM() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb * 1024
		}
	}
	return -1
}

// TestVerifyChild is the child of BenchmarkVerifyMemory; it does nothing
// in a normal test run.
func TestVerifyChild(t *testing.T) {
	dir := os.Getenv("LEDGER_VERIFY_CHILD")
	if dir == "" {
		t.Skip("only run as BenchmarkVerifyMemory's child")
	}
	s, err := verify.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var peak, peakLive int64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, int64(m.HeapInuse))
			metrics.Read(live)
			peakLive = max(peakLive, int64(live[0].Value.Uint64()))
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("LEDGER_VERIFY_CHILD_MODE") == "verify" {
		set, err := verify.NewDiskSet(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, verify.Options{Challenges: set})
		set.Close()
		if err != nil || !rep.OK {
			t.Fatalf("%v %+v", err, rep.Failures)
		}
	}
	close(done)
	<-sampled
	os.WriteFile(os.Getenv("LEDGER_VERIFY_CHILD_OUT"), fmt.Appendf(nil, "%d %d %d", peak, peakLive, vmHWM()), 0o644)
}
