package verify_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestPipelineStopsAtFirstFailure damages a transcript far past the
// window the parallel stage reads ahead, in a block of more transcripts
// than the window: store and archive, one worker or several, the report
// names that transcript and counts none after it, and an undamaged copy
// verifies whole. The damaged archive is the intact one with the same
// bytes changed: an export refuses to copy damage.
func TestPipelineStopsAtFirstFailure(t *testing.T) {
	t.Parallel()
	const perBlock, bad = 150, 130
	base, v := mult8Chain(t, 2, perBlock)
	damaged := copyStore(t, base)
	s := open(t, damaged)
	blk, err := s.BlockAt(v, 1)
	if err != nil {
		t.Fatal(err)
	}
	target := blk.Transcripts[bad].Cid
	raw, err := s.Object(target)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	orig := bytes.Clone(raw)
	raw[len(raw)/2] ^= 0x01
	damage := func(car []byte) []byte {
		if bytes.Count(car, orig) != 1 {
			t.Fatalf("the archive holds transcript %s's bytes %d times, want once", target, bytes.Count(car, orig))
		}
		return bytes.Replace(car, orig, raw, 1)
	}
	if err := ledgertest.OverwriteObject(damaged, target, raw); err != nil {
		t.Fatal(err)
	}

	for _, workers := range []int{1, 4} {
		for _, tc := range []struct {
			name string
			dir  string
			ok   bool
			edit func([]byte) []byte // of the intact archive
		}{{"intact", base, true, nil}, {"damaged", damaged, false, damage}} {
			for _, via := range []string{"store", "car"} {
				t.Run(fmt.Sprintf("workers=%d/%s/%s", workers, tc.name, via), func(t *testing.T) {
					dir := tc.dir
					if via == "car" {
						dir = base
					}
					rep := auditWith(t, dir, via, workers, tc.edit)
					if tc.ok {
						if !rep.OK || rep.Transcripts != 2*perBlock {
							t.Fatalf("intact ledger: ok %v, %d transcripts, failures %+v", rep.OK, rep.Transcripts, rep.Failures)
						}
						return
					}
					if len(rep.Failures) != 1 {
						t.Fatalf("failures %+v, want one", rep.Failures)
					}
					f := rep.Failures[0]
					if f.Height != 1 || f.Transcript != bad || !strings.Contains(f.Reason, target.String()) {
						t.Fatalf("failure %+v, want height 1 transcript %d (%s)", f, bad, target)
					}
					if want := perBlock + bad + 1; rep.Transcripts != want {
						t.Fatalf("%d transcripts counted, want %d: none after the failure", rep.Transcripts, want)
					}
				})
			}
		}
	}
}

// auditWith verifies the store at dir, or (via "car") its export, changed
// by edit if that is set.
func auditWith(t *testing.T, dir, via string, workers int, edit func([]byte) []byte) verify.Report {
	t.Helper()
	s := open(t, dir)
	defer s.Close()
	opts := verify.Options{Challenges: verify.NewMemSet(), Workers: workers}
	if via == "car" {
		var buf bytes.Buffer
		if _, err := archive.Export(s, &buf); err != nil {
			t.Fatal(err)
		}
		car := buf.Bytes()
		if edit != nil {
			car = edit(car)
		}
		rep, err := verify.VerifyCAR(bytes.NewReader(car), opts)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestPipelineInOrderNeverStalls: the in-order stage runs on whichever
// goroutine finds the next transcript ready, so a wake-up lost between
// two workers would leave a block waiting forever. Many small blocks,
// more workers than cores, both sources, many times: every run must end,
// and count every transcript.
func TestPipelineInOrderNeverStalls(t *testing.T) {
	t.Parallel()
	spec := verifytest.Spec{Validators: 2, Blocks: 40, PerBlock: 3, Envs: []string{"mult8"}}
	dir, _ := build(t, spec)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for run := range 10 {
			for _, via := range []string{"store", "car"} {
				rep := auditWith(t, dir, via, 8, nil)
				if !rep.OK || rep.Transcripts != spec.Validators*spec.Blocks*spec.PerBlock {
					t.Errorf("run %d via %s: ok %v, %d transcripts, failures %+v", run, via, rep.OK, rep.Transcripts, rep.Failures)
					return
				}
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("a verify did not end in 2 minutes: the in-order stage stalled")
	}
}

// TestStreamFetchOneAtATimeInOrder: the workers share a stream's Fetch,
// which must see the block's links in order and never two calls at once,
// and must not be called again after it failed (a stream's position is
// then lost).
func TestStreamFetchOneAtATimeInOrder(t *testing.T) {
	t.Parallel()
	const perBlock, bad = 150, 97
	s, v, blk := firstBlock(t, perBlock)
	for _, failAt := range []int{-1, bad} {
		t.Run(fmt.Sprintf("failAt=%d", failAt), func(t *testing.T) {
			var inside atomic.Int32
			var calls []cid.Cid // appended only inside a call
			fetch := func(c cid.Cid) ([]byte, error) {
				if inside.Add(1) != 1 {
					t.Error("two fetches at once")
				}
				defer inside.Add(-1)
				calls = append(calls, c)
				if len(calls)-1 == failAt {
					return nil, errors.New("the stream broke here")
				}
				time.Sleep(20 * time.Microsecond) // widen the window for overlap
				return s.Object(c)
			}
			vf := chainVerifier(t, v, 8)
			vf.Block(blk.Raw, blk.CID, fetch)
			rep := vf.Report()
			want := len(blk.TranscriptCIDs()) + len(blk.DecisionCIDs())
			if failAt >= 0 {
				want = failAt + 1
				if len(rep.Failures) != 1 || rep.Failures[0].Transcript != failAt || !strings.Contains(rep.Failures[0].Reason, "the stream broke here") {
					t.Fatalf("failures %+v, want the broken fetch at transcript %d", rep.Failures, failAt)
				}
			} else if !rep.OK {
				t.Fatalf("failures %+v", rep.Failures)
			}
			if len(calls) != want {
				t.Fatalf("%d fetches, want %d", len(calls), want)
			}
			for i, c := range calls {
				if i < perBlock && !c.Equals(blk.Transcripts[i].Cid) {
					t.Fatalf("fetch %d was %s, want link %d, %s", i, c, i, blk.Transcripts[i].Cid)
				}
			}
		})
	}
}

// TestSlowStreamDoesNotSpin: workers waiting for a stream that blocks (a
// pipe from far away) sleep rather than spin. Fetch sleeps 2 ms a call,
// 8 workers wait on it: spinning would burn every core for the whole
// run, sleeping burns a small part of one. Not parallel: it reads the
// process's CPU time.
func TestSlowStreamDoesNotSpin(t *testing.T) {
	s, v, blk := firstBlock(t, 40)
	fetch := func(c cid.Cid) ([]byte, error) {
		time.Sleep(2 * time.Millisecond)
		return s.Object(c)
	}
	vf := chainVerifier(t, v, 8)
	cpu0, wall0 := processCPU(t), time.Now()
	vf.Block(blk.Raw, blk.CID, fetch)
	cpu, wall := processCPU(t)-cpu0, time.Since(wall0)
	if rep := vf.Report(); !rep.OK {
		t.Fatalf("failures %+v", rep.Failures)
	}
	if cpu > wall/2 {
		t.Fatalf("%v of CPU over %v waiting for a slow stream: the workers spin", cpu, wall)
	}
}

func processCPU(t *testing.T) time.Duration {
	d, err := processCPUTime()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// firstBlock builds a one-validator chain of one block of perBlock mult8
// transcripts and returns its open store (closed with the test), the
// validator and the block.
func firstBlock(t *testing.T, perBlock int) (*ledger.Store, keys.PublicKey, ledger.StoredBlock) {
	t.Helper()
	dir, v := mult8Chain(t, 1, perBlock)
	s := open(t, dir)
	t.Cleanup(func() { s.Close() })
	blk, err := s.BlockAt(v, 0)
	if err != nil {
		t.Fatal(err)
	}
	return s, v, blk
}

// chainVerifier is a verifier with the given workers, started on v's chain.
func chainVerifier(t *testing.T, v keys.PublicKey, workers int) *verify.Verifier {
	t.Helper()
	vf := verify.New(verify.Options{Challenges: verify.NewMemSet(), Workers: workers})
	if err := vf.StartChain(v, verify.Genesis()); err != nil {
		t.Fatal(err)
	}
	return vf
}
