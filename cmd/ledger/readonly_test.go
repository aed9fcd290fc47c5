package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestReadOnlyCommandsLeaveStoreUntouched: an auditor's or a miner's
// command reads a store it did not write; it must not rewrite it (opened
// for writing, Pebble writes a new MANIFEST, WAL and OPTIONS, compacts,
// and deletes the old files).
func TestReadOnlyCommandsLeaveStoreUntouched(t *testing.T) {
	t.Parallel()
	v := verifytest.Key(0).Public().String()
	for name, args := range map[string][]string{
		"verify":      {"verify", "--no-reexec"},
		"transcripts": {"transcripts", "--miner", verifytest.Miner(1).String()},
		"consistency": {"consistency", "--validator", v, "--from", "0", "--to", "1"},
		"ratio show":  {"ratio", "show"},
		"export":      {"export", "--out", filepath.Join(t.TempDir(), "ledger.car")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, _ := builtLedger(t)
			before := ledgertest.DirHashes(t, dir)
			if code, out, errs := ledgerRun(t, append(args, "--data", dir)...); code != 0 {
				t.Fatalf("%v: exit %d: %s %s", args, code, out, errs)
			}
			after := ledgertest.DirHashes(t, dir)
			for f := range before {
				if _, ok := after[f]; !ok {
					t.Errorf("%s deleted %s", name, f)
				} else if after[f] != before[f] {
					t.Errorf("%s rewrote %s", name, f)
				}
			}
			for f := range after {
				if _, ok := before[f]; !ok {
					t.Errorf("%s created %s", name, f)
				}
			}
		})
	}
}

// TestReadOnlyCommandsRefuseEmptyDatabase: a Pebble database without the
// ledger's layout key is no ledger store: usage (exit 2), and opened
// read-only it stays without one (opened for writing, it became an empty
// store).
func TestReadOnlyCommandsRefuseEmptyDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ledgertest.EmptyPebble(t, dir)
	before := ledgertest.DirHashes(t, dir)
	for _, args := range [][]string{
		{"verify", "--data", dir},
		{"ratio", "show", "--data", dir},
		{"transcripts", "--data", dir, "--miner", verifytest.Miner(1).String()},
	} {
		code, out, errs := ledgerRun(t, args...)
		if code != exitUsage || !strings.Contains(errs, ledger.ErrNotStore.Error()) {
			t.Errorf("%v: exit %d, want %d saying %q: %s %s", args, code, exitUsage, ledger.ErrNotStore, out, errs)
		}
	}
	if after := ledgertest.DirHashes(t, dir); len(after) != len(before) {
		t.Errorf("%d files before, %d after", len(before), len(after))
	}
}
