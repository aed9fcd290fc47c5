package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/node/nodetest"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestReadOnlyCommandsReadARunningNode: the store of a running node is
// read through a checkpoint the node makes; the command says so on
// stderr, and the checkpoint is gone once it is done.
func TestReadOnlyCommandsReadARunningNode(t *testing.T) {
	t.Parallel()
	c := nodetest.New(t, 1, nodetest.Options{Observers: []int{0}})
	n := c.Start(0)
	spec := verifytest.Spec{Validators: 2, Blocks: 3, PerBlock: 4, Decisions: true}
	if _, err := verifytest.Build(n.Store(), spec); err != nil {
		t.Fatal(err)
	}
	dataDir := c.Configs[0].DataDir
	code, out, errs := ledgerRun(t, "verify", "--data", dataDir, "--json")
	if code != 0 {
		t.Fatalf("verify a running node's store: exit %d: %s %s", code, out, errs)
	}
	var rep struct {
		OK                          bool
		Chains, Blocks, Transcripts int
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Chains != 2 || rep.Blocks != 6 || rep.Transcripts != 24 {
		t.Fatalf("verify report %+v, want ok, 2 chains, 6 blocks, 24 transcripts", rep)
	}
	if !strings.Contains(errs, "reading a checkpoint") {
		t.Errorf("stderr does not say a checkpoint was read: %q", errs)
	}
	car := filepath.Join(t.TempDir(), "live.car")
	if code, _, errs := ledgerRun(t, "export", "--data", dataDir, "--out", car); code != 0 {
		t.Fatalf("export a running node's store: exit %d: %s", code, errs)
	}
	if code, out, errs := ledgerRun(t, "verify", "--car", car, "--no-reexec"); code != 0 {
		t.Fatalf("verify the export: exit %d: %s %s", code, out, errs)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		left, _ := os.ReadDir(node.CheckpointsDir(dataDir))
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("checkpoints left after the commands ended: %v", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLockedStoreIsUnreadableInput: a store another writer holds, with no
// node to ask for a checkpoint, is exit 2 naming the holder, not a failed
// (damaged) audit.
func TestLockedStoreIsUnreadableInput(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, args := range [][]string{
		{"verify", "--data", dir},
		{"transcripts", "--data", dir, "--miner", verifytest.Miner(1).String()},
	} {
		code, out, errs := ledgerRun(t, args...)
		if code != 2 || !strings.Contains(errs, "store is in use: open for writing in this process") {
			t.Errorf("%v on a store open for writing: exit %d, %q %q", args, code, out, errs)
		}
	}
}

// TestLockedNodeStoreWithoutNode: a node data directory's store held by a
// process that is no node (an import into the directory), with no control
// socket, is exit 2 naming the holder, without advice about asking a node
// for a checkpoint that no node could give.
func TestLockedNodeStoreWithoutNode(t *testing.T) {
	t.Parallel()
	src, _ := builtLedger(t)
	data := t.TempDir()
	if err := os.Rename(src, node.StoreDir(data)); err != nil {
		t.Fatal(err)
	}
	s, err := ledger.Open(node.StoreDir(data), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, args := range [][]string{
		{"verify", "--data", data},
		{"export", "--data", data, "--out", filepath.Join(t.TempDir(), "x.car")},
	} {
		code, out, errs := ledgerRun(t, args...)
		if code != 2 || !strings.Contains(errs, "store is in use: open for writing in this process") ||
			!strings.Contains(errs, "no node runs on "+data) || strings.Contains(errs, "ask the node") || strings.Contains(errs, "dial") {
			t.Errorf("%v on a node's store open for writing by no node: exit %d, %q %q", args, code, out, errs)
		}
	}
}
