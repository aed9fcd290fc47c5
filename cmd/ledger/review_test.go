package main

import (
	"path/filepath"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestImportIntoNodeDataDir: verify, export, prove and transcripts take a
// node's data directory for --data and read the store in its store/
// subdirectory (storeDir). import opens --data as it is, so the same
// directory given to import gets a second, new store beside the node's:
// the import reports success, the node's store does not hold the chains,
// and from then on every other command reads the new store instead of the
// node's (storeDir finds a MANIFEST in the directory itself first).
func TestImportIntoNodeDataDir(t *testing.T) {
	t.Parallel()
	src, _ := builtLedger(t)
	car := filepath.Join(t.TempDir(), "ledger.car")
	if code, out, errs := ledgerRun(t, "export", "--data", src, "--out", car); code != 0 {
		t.Fatalf("export: %d %s %s", code, out, errs)
	}
	data := t.TempDir() // a node's data directory, its store in store/
	s, err := ledger.Open(node.StoreDir(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := ledgerRun(t, "import", "--data", data, "--car", car); code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	if m, _ := filepath.Glob(filepath.Join(data, "MANIFEST-*")); len(m) > 0 {
		t.Errorf("import made a second store in the data directory itself, beside %s", node.StoreDir(data))
	}
	s, err = ledger.Open(node.StoreDir(data))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	for _, err := range s.Heads() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("the node's store holds %d chains after importing an archive of 2 into its data directory", n)
	}
}

// TestVerifyValidatorScope: --validator V audits V's chain only, yet every
// fork proof in the store is reported, so another validator's
// equivocation fails the audit of V's clean chain (exit 1).
func TestVerifyValidatorScope(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	s, err := ledger.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verifytest.Equivocate(s, verifytest.Key(1), 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, _ := ledgerRun(t, "verify", "--data", dir, "--validator", verifytest.Key(0).Public().String(), "--json", "--no-reexec")
	if code != 0 {
		t.Errorf("verify of validator 0's clean chain: exit %d, failures of another validator: %s", code, out)
	}
}
