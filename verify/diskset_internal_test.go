package verify

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// TestDiskSetMatchesMemSet drives a DiskSet with a tiny buffer and a
// saturated filter (so that nearly every call rotates buffers or reaches
// Pebble) and a MemSet through the same random mix of new challenges,
// repeats and anchors: every answer must agree.
func TestDiskSetMatchesMemSet(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ pending, blocks int }{{7, 1}, {64, 4}, {1024, 256}} {
		t.Run(fmt.Sprintf("pending=%d/blocks=%d", c.pending, c.blocks), func(t *testing.T) {
			t.Parallel()
			disk, err := newDiskSet(t.TempDir(), c.pending, c.blocks)
			if err != nil {
				t.Fatal(err)
			}
			mem := NewMemSet()
			rng := rand.New(rand.NewPCG(uint64(c.pending), uint64(c.blocks)))
			type entry struct {
				v, m keys.PublicKey
				id   challenge.ID
			}
			var seen []entry
			var anchors []record.Anchor
			envs := []string{"mult8", "sat", "ttt", "abduction", "coin"}
			party := func() keys.PublicKey { return keys.PublicKey{byte(rng.IntN(3)), 7} }
			// Pebble's invariant checks make each read ~50x slower under
			// the race detector: fewer operations, the same mix.
			ops := 30_000
			if raceBuild {
				ops = 2_000
			}
			for i := range ops {
				loc := Location{Height: uint64(i), Index: uint32(rng.IntN(1 << 20)), Reward: rng.Int64N(2_000_001) - 1_000_000}
				for j := range loc.Duel {
					loc.Duel[j] = byte(rng.Uint32())
				}
				switch r := rng.IntN(100); {
				case r < 10 && len(seen) > 0:
					e := seen[rng.IntN(len(seen))]
					checkSame(t, i, disk, mem, e.v, e.m, e.id, loc)
				case r < 15:
					a := record.Anchor{Number: rng.Uint64N(50)}
					a.Hash[rng.IntN(32)] = byte(rng.IntN(2))
					v := party()
					wantHas, _ := mem.HasAnchor(v, a)
					if has, err := disk.HasAnchor(v, a); err != nil || has != wantHas {
						t.Fatalf("op %d: HasAnchor %v %v, want %v", i, has, err, wantHas)
					}
					if err := disk.AddAnchor(v, a); err != nil {
						t.Fatalf("op %d: AddAnchor: %v", i, err)
					}
					mem.AddAnchor(v, a)
					anchors = append(anchors, a)
				default:
					e := entry{v: party(), m: party(), id: challenge.ID{Env: envs[rng.IntN(len(envs))], Version: uint16(1 + rng.IntN(2))}}
					for j := range e.id.Seed {
						e.id.Seed[j] = byte(rng.Uint32())
					}
					checkSame(t, i, disk, mem, e.v, e.m, e.id, loc)
					seen = append(seen, e)
				}
			}
			// Every key is now written or being written: all must still be found.
			for i, e := range seen {
				checkSame(t, -i, disk, mem, e.v, e.m, e.id, Location{})
			}
			dir := disk.dir
			if err := disk.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("scratch directory left behind: %v", err)
			}
		})
	}
}

func checkSame(t *testing.T, op int, disk *DiskSet, mem MemSet, v, m keys.PublicKey, id challenge.ID, loc Location) {
	t.Helper()
	wantBefore, wantHad, _ := mem.Get(v, m, id)
	before, had, err := disk.Get(v, m, id)
	if err != nil || had != wantHad || before != wantBefore {
		t.Fatalf("op %d: Get(%s) = %+v %v err %v, want %+v %v", op, id, before, had, err, wantBefore, wantHad)
	}
	wantFirst, wantDup, _ := mem.Add(v, m, id, loc)
	first, dup, err := disk.Add(v, m, id, loc)
	if err != nil || dup != wantDup || first != wantFirst {
		t.Fatalf("op %d: Add(%s) = %+v dup %v err %v, want %+v dup %v", op, id, first, dup, err, wantFirst, wantDup)
	}
}

// TestDiskSetConcurrent adds the same keys from several goroutines: each
// key must be new to exactly one of them, and the others must all see that
// one's location.
func TestDiskSetConcurrent(t *testing.T) {
	t.Parallel()
	disk, err := newDiskSet(t.TempDir(), 32, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	const workers, keysEach = 4, 2000
	firsts := make([][]Location, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range keysEach {
				id := challenge.ID{Env: "coin", Version: 1}
				id.Seed[0], id.Seed[1] = byte(i), byte(i>>8)
				first, _, err := disk.Add(keys.PublicKey{1}, keys.PublicKey{2}, id, Location{Height: uint64(w), Index: uint32(i)})
				if err != nil {
					t.Error(err)
					return
				}
				firsts[w] = append(firsts[w], first)
			}
		})
	}
	wg.Wait()
	for i := range keysEach {
		for w := 1; w < workers; w++ {
			if firsts[w][i] != firsts[0][i] {
				t.Fatalf("key %d: worker %d saw first %+v, worker 0 %+v", i, w, firsts[w][i], firsts[0][i])
			}
		}
		if firsts[0][i].Index != uint32(i) {
			t.Fatalf("key %d: first location %+v is not one of its adds", i, firsts[0][i])
		}
	}
}

// TestFilterNeverMisses checks the filter's one promise: a hash it was
// given is never reported absent.
func TestFilterNeverMisses(t *testing.T) {
	f := newFilter(16)
	rng := rand.New(rand.NewPCG(1, 2))
	var added []uint64
	for range 5000 {
		h := rng.Uint64()
		f.add(h)
		added = append(added, h)
	}
	for _, h := range added {
		if !f.mayHave(h) {
			t.Fatalf("filter lost %#x", h)
		}
	}
	fresh := newFilter(1 << 10)
	for range 100 {
		fresh.add(rng.Uint64())
	}
	absent := 0
	for range 10_000 {
		if !fresh.mayHave(rng.Uint64()) {
			absent++
		}
	}
	if absent < 9_900 {
		t.Fatalf("a sparse filter ruled out only %d of 10000 absent hashes", absent)
	}
}

// TestDiskSetOpensPebbleWhenABufferFills checks that the scratch store is
// created only by the first full buffer's write, that keys are still found
// across that moment, and that a store which cannot be created fails the
// set (sticky, reported by Close) instead of losing the buffer's keys.
func TestDiskSetOpensPebbleWhenABufferFills(t *testing.T) {
	t.Parallel()
	id := func(i int) challenge.ID {
		c := challenge.ID{Env: "sat", Version: 1}
		c.Seed[0], c.Seed[1] = byte(i), byte(i>>8)
		return c
	}
	add := func(d *DiskSet, i int) (Location, bool, error) {
		return d.Add(keys.PublicKey{1}, keys.PublicKey{2}, id(i), Location{Height: uint64(i)})
	}
	// entries counts the files of d's Pebble store, which is not there
	// until it is opened.
	entries := func(d *DiskSet) int {
		des, err := os.ReadDir(filepath.Join(d.dir, scratchStore))
		if os.IsNotExist(err) {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		return len(des)
	}

	d, err := newDiskSet(t.TempDir(), 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		if _, dup, err := add(d, i); err != nil || dup {
			t.Fatalf("add %d: dup %v err %v", i, dup, err)
		}
	}
	if n := entries(d); n != 0 || d.db != nil {
		t.Fatalf("%d files in the scratch directory before any buffer filled", n)
	}
	// 8 fills the first buffer (written and the store opened in the
	// background), 16 the second, whose rotation waits for the first.
	for i := 7; i < 17; i++ {
		if _, dup, err := add(d, i); err != nil || dup {
			t.Fatalf("add %d: dup %v err %v", i, dup, err)
		}
	}
	if d.db == nil || entries(d) == 0 {
		t.Fatal("no Pebble store after two buffers were written")
	}
	for i := range 17 {
		if first, dup, err := add(d, i); err != nil || !dup || first.Height != uint64(i) {
			t.Fatalf("repeat of %d: first %+v dup %v err %v", i, first, dup, err)
		}
	}
	dir := d.dir
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("scratch directory left behind: %v", err)
	}

	// A scratch path that is a file: Pebble cannot be created there.
	broken, err := newDiskSet(t.TempDir(), 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken.dir, scratchStore), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	var addErr error
	for i := 0; i < 17 && addErr == nil; i++ {
		_, _, addErr = add(broken, i)
	}
	if addErr == nil || !strings.Contains(addErr.Error(), "challenge set") {
		t.Fatalf("adds after a failed store creation: %v", addErr)
	}
	if _, _, err := add(broken, 100); err == nil {
		t.Fatal("the set kept answering after its store failed")
	}
	if err := broken.Close(); err == nil {
		t.Fatal("Close did not report the failed store")
	}
}
