package verify_test

import (
	"fmt"
	"os"

	"testing"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// small is the ledger most tests use: every env, decisions, three blocks.
var small = verifytest.Spec{Validators: 2, Blocks: 3, PerBlock: 5, Decisions: true}

func build(t testing.TB, spec verifytest.Spec) (string, []*keys.Hotkey) {
	t.Helper()
	dir := t.TempDir()
	s := open(t, dir)
	ks, err := verifytest.Build(s, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, ks
}

// mult8Chain builds a store holding one validator's chain of blocks of
// perBlock mult8 transcripts, and returns it and the validator's key.
func mult8Chain(t testing.TB, blocks, perBlock int) (string, keys.PublicKey) {
	t.Helper()
	dir, ks := build(t, verifytest.Spec{Validators: 1, Blocks: blocks, PerBlock: perBlock, Envs: []string{"mult8"}})
	return dir, ks[0].Public()
}

func open(t testing.TB, dir string) *ledger.Store {
	t.Helper()
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// verifyDir audits the store at dir with re-execution.
func verifyDir(t testing.TB, dir string, scope verify.StoreScope) verify.Report {
	t.Helper()
	s := open(t, dir)
	defer s.Close()
	heads, err := verify.StoreHeads(s, scope)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.VerifyStore(s, heads, scope, verify.Options{Reexecute: true, StrictSeeds: true, Challenges: verify.NewMemSet()})
	if err != nil {
		t.Fatal(err)
	}
	if err := wellFormed(rep); err != nil {
		t.Error(err)
	}
	return rep
}

// wellFormed checks that every failure of rep names a transcript only
// within a chain: one that blames no validator (the archive's layout, its
// roots, a fork proof, the network, the store's damage) has Transcript
// -1, and none has less.
func wellFormed(rep verify.Report) error {
	for _, f := range rep.Failures {
		if f.Transcript < -1 || f.Validator == "" && f.Transcript != -1 {
			return fmt.Errorf("failure names transcript %d (of validator %q): %s", f.Transcript, f.Validator, f.Reason)
		}
	}
	return nil
}

// copyStore copies a closed store directory, so table tests can tamper
// with copies of one built ledger.
func copyStore(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}
