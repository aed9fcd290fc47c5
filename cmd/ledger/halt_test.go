package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
)

// TestNodeOfAHaltedChainRefusesToSign: a validator's store that saw a
// block of its own chain it did not make (here, a conflicting block at a
// height it signed) halts the chain; `ledger node` then refuses to start
// with the key, says what the two ways out are, and --resume-signing
// needs --key.
func TestNodeOfAHaltedChainRefusesToSign(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	alice, _ := keys.FromURI("//Alice")
	keyFile := filepath.Join(dir, "hotkey.json")
	if err := keys.WriteKeyFile(keyFile, alice, false); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "node")
	net := record.Network{Genesis: record.Hash{0xab}, Netuid: 0}
	s, err := ledger.Open(node.StoreDir(data), ledger.WithNetwork(net))
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.NewAppender(alice)
	if err != nil {
		t.Fatal(err)
	}
	v := alice.Public()
	if _, err := a.Append(context.Background(), recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, 0, 0)}, nil); err != nil {
		t.Fatal(err)
	}
	// The same key signs another block 0 elsewhere.
	_, rogue, _, err := record.Sign(record.Header{Format: record.BlockFormat, Net: net, Validator: v, TimeMS: 5,
		Transcripts: []codec.Link{}, Checkpoint: record.CheckpointOf(nil)}, alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(rogue, nil); err == nil {
		t.Fatal("a conflicting block 0 was stored")
	}
	a.Close()
	s.Close()

	args := []string{"node", "--data", data, "--key", keyFile, "--genesis", net.Genesis.String(), "--listen", "/ip4/127.0.0.1/tcp/0", "--validator", v.String()}
	code, _, errs := ledgerRun(t, args...)
	if code == exitOK || !strings.Contains(errs, "signing halted") || !strings.Contains(errs, "--resume-signing") || !strings.Contains(errs, "without --key") {
		t.Fatalf("node of a halted chain: exit %d\n%s", code, errs)
	}
	code, _, errs = ledgerRun(t, "node", "--data", data, "--resume-signing", "--listen", "/ip4/127.0.0.1/tcp/0")
	if code != exitUsage || !strings.Contains(errs, "--resume-signing applies to a validator's node") {
		t.Fatalf("--resume-signing without --key: exit %d\n%s", code, errs)
	}
}
