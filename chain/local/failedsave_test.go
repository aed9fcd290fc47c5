package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// TestFailedSaveIsNotServed: spec/chain.md, "Persistence": the state is
// saved "before the change is acknowledged" and "a failed write stops the
// chain rather than let memory and disk diverge". A write whose save fails
// is refused to its sender and no reader (here over loopback HTTP) sees
// it, as a restart does not. The same holds for blocks produced by an
// Advance whose save failed, and a WaitFor for them returns the failure.
func TestFailedSaveIsNotServed(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	dir := t.TempDir()
	c := newManual(t, d.genesis, dir, nil)
	cl, err := Dial(ctx(t), serve(t, c))
	must(t, "dial", err)
	defer cl.Close()
	cx := ctx(t)

	// A directory where the temporary snapshot goes makes every save fail
	// (even for root, unlike a read-only directory).
	must(t, "block saves", os.Mkdir(filepath.Join(dir, stateFile+".tmp"), 0o700))

	err = cl.SetCommitment(cx, d.charlie, []chain.Data{chain.Raw([]byte("never saved"))})
	if err == nil {
		t.Fatal("the write was acknowledged though its save failed")
	}
	t.Logf("write refused as expected: %v", err)
	if got, err := cl.Commitment(cx, d.charlie.Public()); err == nil {
		t.Errorf("a refused, unsaved commitment is served to readers: %q at block %d", got.Fields[0].Bytes, got.Block)
	}
	// What a restart sees: neither the commitment nor the blocks.
	must(t, "close", c.Close())
	must(t, "unblock saves", os.Remove(filepath.Join(dir, stateFile+".tmp")))
	c2 := newManual(t, d.genesis, dir, nil)
	if _, err := c2.Commitment(cx, d.charlie.Public()); !isErr(err, chain.ErrNotFound) {
		t.Fatalf("after restart: %v, want no commitment", err)
	}

	// An Advance whose save fails: the blocks it made are served.
	dir2 := t.TempDir()
	c3 := newManual(t, d.genesis, dir2, nil)
	cl3, err := Dial(ctx(t), serve(t, c3))
	must(t, "dial", err)
	defer cl3.Close()
	waited := make(chan error, 1)
	go func() { waited <- c3.WaitFor(cx, 3) }()
	must(t, "block saves", os.Mkdir(filepath.Join(dir2, stateFile+".tmp"), 0o700))
	if err := c3.Advance(3); err == nil {
		t.Fatal("advance acknowledged though its save failed")
	}
	if head, err := cl3.Head(cx); err != nil || head.Number != 0 {
		t.Errorf("after a failed advance from block 0 the served head is %d (%v): unsaved blocks are visible", head.Number, err)
	}
	if _, err := cl3.BlockHash(cx, 1); !isErr(err, chain.ErrNotFound) {
		t.Errorf("hash of unsaved block 1: %v, want not found", err)
	}
	// The waiter wakes with the failure (were it not woken, ctx's deadline
	// would end the wait with another error).
	if err := <-waited; err == nil || !strings.Contains(err.Error(), "local chain stopped") {
		t.Errorf("WaitFor on a stopped chain: %v", err)
	}
	if err := c3.WaitFor(cx, 1); err == nil || !strings.Contains(err.Error(), "local chain stopped") {
		t.Errorf("WaitFor after the chain stopped: %v", err)
	}
	if err := c3.WaitFor(cx, 0); err != nil {
		t.Errorf("WaitFor a block the chain has: %v", err)
	}
}
