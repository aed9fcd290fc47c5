package main

import (
	"os"
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

// TestReadOnlyCommandsWithoutLockFile: a store copied without its LOCK
// file gets one, empty, from a read-only command, and nothing else. This
// is the store's design, not an oversight (spec/store.md, "Locking"): a
// reader's shared lock on LOCK is what keeps a writer, which locks the
// same file, from compacting away the tables the reader reads; without
// the file a writer started after the reader would lock a LOCK of its own
// making and get in. On a read-only mount, or where the directory is not
// writable, the reader makes none and reads without a lock (no writer can
// make one there either): that is how an audit leaves a directory whole.
func TestReadOnlyCommandsWithoutLockFile(t *testing.T) {
	t.Parallel()
	v := verifytest.Key(0).Public().String()
	for name, args := range map[string][]string{
		"verify":      {"verify", "--no-reexec"},
		"transcripts": {"transcripts", "--miner", verifytest.Miner(1).String()},
		"consistency": {"consistency", "--validator", v, "--from", "0", "--to", "1"},
		"export":      {"export", "--out", filepath.Join(t.TempDir(), "ledger.car")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, _ := builtLedger(t)
			lock := filepath.Join(dir, "LOCK")
			if err := os.Remove(lock); err != nil {
				t.Fatal(err)
			}
			before := ledgertest.DirHashes(t, dir)
			if code, out, errs := ledgerRun(t, append(args, "--data", dir)...); code != 0 {
				t.Fatalf("%v: exit %d: %s %s", args, code, out, errs)
			}
			after := ledgertest.DirHashes(t, dir)
			for f := range before {
				if after[f] != before[f] {
					t.Errorf("%s changed or deleted %s", name, f)
				}
			}
			for f := range after {
				if _, ok := before[f]; !ok && f != "LOCK" {
					t.Errorf("%s created %s", name, f)
				}
			}
			if st, err := os.Stat(lock); err != nil || st.Size() != 0 {
				t.Errorf("%s: LOCK %v, %v; want an empty LOCK file (the readers' lock)", name, st, err)
			}
		})
	}
}
