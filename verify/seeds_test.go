package verify_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// forked has the number of block 0's anchor (verifytest.BlockAnchor(0))
// and another hash: a chain block no block of the tests' chains records.
var forked = record.Anchor{Number: 1, Hash: record.Hash{0xf0, 0x4c}}

// redraw makes t's challenge the counter-th drawn at anchor, as recorded:
// a consistent record of a challenge the validator did not draw.
func redraw(t *record.Transcript, anchor record.Anchor, counter uint64) {
	s := &record.Seed{Anchor: anchor, Counter: counter}
	id, err := s.Derive(t.Validator, t.Env, t.EnvVersion)
	if err != nil {
		panic(err)
	}
	t.Seed, t.Challenge = s, id
}

// TestResignedSeed alters the seed of a format-2 transcript of block 1 and
// has its validator sign the block again around it (the store would have
// refused the record): verify must fail at that transcript, saying what
// is wrong with its seed. The block is otherwise valid: a harmless edit
// through the same path fails only later, at block 2, which still links
// the block it replaced.
func TestResignedSeed(t *testing.T) {
	t.Parallel()
	base, ks := build(t, verifytest.Spec{Validators: 1, Blocks: 3, PerBlock: 4, Envs: []string{"mult8"}})
	cases := []struct {
		name string
		edit func(*record.Transcript)
		want string
	}{
		{"counter", func(t *record.Transcript) { t.Seed = &record.Seed{Anchor: t.Seed.Anchor, Counter: t.Seed.Counter + 1} },
			"counter 4 derives seed"},
		{"anchor hash", func(t *record.Transcript) {
			a := t.Seed.Anchor
			a.Hash[0] ^= 1
			t.Seed = &record.Seed{Anchor: a, Counter: t.Seed.Counter}
		}, "derives seed"},
		{"anchor number", func(t *record.Transcript) {
			a := t.Seed.Anchor
			a.Number--
			t.Seed = &record.Seed{Anchor: a, Counter: t.Seed.Counter}
		}, "seed anchor 1 (" + verifytest.BlockAnchor(1).Hash.String() + ") is not recorded by this chain"},
		{"anchor not recorded", func(t *record.Transcript) { redraw(t, forked, 7) }, "seed anchor 1 (" + forked.Hash.String() + ") is not recorded"},
		{"anchor of a later block", func(t *record.Transcript) { redraw(t, verifytest.BlockAnchor(2), 7) }, "is newer than the block's anchor 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyStore(t, base)
			bc, tcid, err := ledgertest.ReplaceTranscript(dir, ks[0], 1, 3, tc.edit)
			if err != nil {
				t.Fatal(err)
			}
			rep := verifyDir(t, dir, verify.StoreScope{})
			onlyFailure(t, rep, ks[0], 1, bc, 3, tc.want)
			if !strings.Contains(rep.Failures[0].Reason, tcid.String()) {
				t.Fatalf("the failure does not name transcript %s: %s", tcid, rep.Failures[0].Reason)
			}
		})
	}

	// Controls. Drawn at block 0's anchor, which the chain recorded: the
	// seed passes, and only re-execution sees that the conversation is of
	// another challenge.
	dir := copyStore(t, base)
	bc, _, err := ledgertest.ReplaceTranscript(dir, ks[0], 1, 3, func(t *record.Transcript) { redraw(t, verifytest.BlockAnchor(0), 7) })
	if err != nil {
		t.Fatal(err)
	}
	onlyFailure(t, verifyDir(t, dir, verify.StoreScope{}), ks[0], 1, bc, 3, "prompt")
	// A harmless edit: block 1 passes, block 2 links the old block. The
	// leaf table and the stored nodes are the old log's, and leaf 7 is
	// the first block 1 changes: the store's damage too.
	dir = copyStore(t, base)
	if _, _, err := ledgertest.ReplaceTranscript(dir, ks[0], 1, 3, func(t *record.Transcript) { t.LatencyMS++ }); err != nil {
		t.Fatal(err)
	}
	rep := withStoreDamage(t, verifyDir(t, dir, verify.StoreScope{}), "leaf 7 ")
	onlyFailure(t, rep, ks[0], 2, cid.Undef, -1, "prev links")
	if rep.SeedsExact != 8 {
		t.Fatalf("seeds exact %d before block 2 failed, want 8", rep.SeedsExact)
	}
}

// TestResignedSeedFormat1: in a format-1 ledger, a seed no recorded anchor
// derives is counted, and fails only in strict mode.
func TestResignedSeedFormat1(t *testing.T) {
	t.Parallel()
	spec := verifytest.Spec{Validators: 1, Blocks: 3, PerBlock: 4, Envs: []string{"mult8"}, Format: record.TranscriptFormatV1}
	dir, ks := build(t, spec)
	bc, _, err := ledgertest.ReplaceTranscript(dir, ks[0], 1, 3, func(t *record.Transcript) { t.Challenge.Seed[0] ^= 1 })
	if err != nil {
		t.Fatal(err)
	}
	onlyFailure(t, verifyDir(t, dir, verify.StoreScope{}), ks[0], 1, bc, 3, "seed of challenge")
	s := open(t, dir)
	defer s.Close()
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, verify.Options{Challenges: verify.NewMemSet()})
	if err != nil {
		t.Fatal(err)
	}
	// Not strict: block 1 passes with one seed unverified, block 2 fails
	// on its link to the block replaced (and the leaf table's leaf 7 is
	// the old log's).
	onlyFailure(t, withStoreDamage(t, rep, "leaf 7 "), ks[0], 2, cid.Undef, -1, "prev links")
	if rep.SeedsUnverified != 1 || rep.SeedsDerived != 7 || rep.SeedsExact != 0 {
		t.Fatalf("seeds derived %d unverified %d exact %d, want 7, 1, 0", rep.SeedsDerived, rep.SeedsUnverified, rep.SeedsExact)
	}
}

// TestSeedsFromHeight: audited from height 2, a duel drawn at block 0's
// anchor is placed by looking below the first block verified; an anchor
// no block records is not.
func TestSeedsFromHeight(t *testing.T) {
	t.Parallel()
	spec := verifytest.Spec{Validators: 1, Blocks: 4, PerBlock: 3, Envs: []string{"mult8"}, Start: func(int) int { return 0 }}
	cleanFrom(t, spec, 2)

	spec.Mutate = func(_, b, i int, t *record.Transcript) {
		if b == 3 && i == 1 {
			redraw(t, forked, 99)
		}
	}
	dir, ks := build(t, spec)
	v := ks[0].Public()
	blk, _ := stored(t, dir, ks[0], 3)
	onlyFailure(t, verifyDir(t, dir, verify.StoreScope{Validator: &v, From: 2}), ks[0], 3, blk.CID, 1, "is not recorded")
}

// TestSeedsFromHeightSearch: audited from height 6, anchors recorded below
// the first block verified are found among blocks that share a number:
// the public chain was reorganised at 3, and the chain recorded both
// hashes of it, the second in a later block.
func TestSeedsFromHeightSearch(t *testing.T) {
	t.Parallel()
	reorged := record.Anchor{Number: 3, Hash: record.Hash{0x3e, 0x09}}
	numbers := []uint64{1, 2, 2, 3, 3, 4, 5, 6}
	spec := verifytest.Spec{Validators: 1, Blocks: len(numbers), PerBlock: 2, Envs: []string{"mult8"},
		Anchor: func(b int) record.Anchor {
			if b == 4 {
				return reorged
			}
			return recordtest.Anchor(numbers[b])
		},
	}
	for _, c := range []struct {
		name   string
		drawAt int // the block whose anchor blocks 6 and 7 draw at
	}{
		{"first of its number", 3},
		{"second of its number", 4},
		{"number shared, hash too", 2},
		{"first block", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := spec
			spec.Start = func(b int) int {
				if b >= 6 {
					return c.drawAt
				}
				return b
			}
			cleanFrom(t, spec, 6)
		})
	}

	// A hash at 3 that no block records is refused, though both blocks
	// at 3 are looked at.
	spec.Mutate = func(_, b, i int, t *record.Transcript) {
		if b == 7 && i == 0 {
			redraw(t, record.Anchor{Number: 3, Hash: record.Hash{0x3e, 0x0a}}, 99)
		}
	}
	dir, ks := build(t, spec)
	v := ks[0].Public()
	blk, _ := stored(t, dir, ks[0], 7)
	onlyFailure(t, verifyDir(t, dir, verify.StoreScope{Validator: &v, From: 6}), ks[0], 7, blk.CID, 0, "is not recorded")
}

// cleanFrom builds spec's one chain and audits it from height from: it
// passes, every transcript from there with its seed's anchor found.
func cleanFrom(t *testing.T, spec verifytest.Spec, from int) {
	t.Helper()
	dir, ks := build(t, spec)
	v := ks[0].Public()
	want := (spec.Blocks - from) * spec.PerBlock
	rep := verifyDir(t, dir, verify.StoreScope{Validator: &v, From: uint64(from)})
	if !rep.OK || rep.Transcripts != want || rep.SeedsExact != want {
		t.Fatalf("from height %d: %+v, want %d transcripts with exact seeds", from, rep, want)
	}
}

// Anchors share a set with challenges without mixing with them.
func TestAnchorSets(t *testing.T) {
	t.Parallel()
	disk, err := verify.NewDiskSet(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	for name, set := range map[string]verify.AnchorSet{"mem": verify.NewMemSet(), "disk": disk} {
		v := verifytest.Key(1).Public()
		a := verifytest.BlockAnchor(4)
		if err := set.AddAnchor(v, a); err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			v    keys.PublicKey
			a    record.Anchor
			want bool
		}{
			{v, a, true},
			{keys.PublicKey{1}, a, false},
			{v, record.Anchor{Number: a.Number, Hash: forked.Hash}, false},
			{v, record.Anchor{Number: a.Number + 1, Hash: a.Hash}, false},
		} {
			if got, err := set.HasAnchor(q.v, q.a); err != nil || got != q.want {
				t.Errorf("%s: HasAnchor(%s, %d %s) = %v, %v; want %v", name, q.v.Short(), q.a.Number, q.a.Hash, got, err, q.want)
			}
		}
	}
}

// TestFormat1SeedSearchReach: a format-1 seed is searched for among the
// anchors of its block and of the 15 distinct ones before it, no
// further. Block 15 draws at block 0's anchor, the 16th of the anchors
// then recorded; block 17 draws at block 1's, the 17th.
func TestFormat1SeedSearchReach(t *testing.T) {
	t.Parallel()
	spec := verifytest.Spec{Validators: 1, Blocks: 18, PerBlock: 1, Envs: []string{"mult8"}, Format: record.TranscriptFormatV1,
		Start: func(b int) int {
			switch b {
			case 15:
				return 0
			case 17:
				return 1
			}
			return b
		},
	}
	dir, ks := build(t, spec)
	blk, _ := stored(t, dir, ks[0], 17)
	rep := verifyDir(t, dir, verify.StoreScope{}) // strict: an unverified seed fails
	if rep.SeedsDerived != 17 {
		t.Fatalf("seeds derived %d before block 17, want 17", rep.SeedsDerived)
	}
	onlyFailure(t, rep, ks[0], 17, blk.CID, 0,
		"is not derived from the anchor of this block or of the 15 before it with a counter in the window")
}

// anchorsFailing is a challenge set whose anchors cannot be written, as a
// scratch store's disk that has filled.
type anchorsFailing struct{ verify.MemSet }

func (anchorsFailing) AddAnchor(keys.PublicKey, record.Anchor) error {
	return errors.New("no space left on device")
}

// TestAnchorSetFailure: an anchor the set failed to keep cannot vouch for
// a seed: the audit fails at the first seed it checks, naming the error,
// rather than pass seeds it could not check.
func TestAnchorSetFailure(t *testing.T) {
	t.Parallel()
	dir, ks := build(t, verifytest.Spec{Validators: 1, Blocks: 2, PerBlock: 2, Envs: []string{"mult8"}})
	rep := verifyWith(t, dir, anchorsFailing{verify.NewMemSet()})
	blk, _ := stored(t, dir, ks[0], 0)
	onlyFailure(t, rep, ks[0], 0, blk.CID, 0, "seed anchor 1: no space left on device")
}

// TestFormat1SeedTrail: at one anchor, a format-1 seed is searched for
// from 64 counters below the lowest one not yet matched (so that a
// challenge's second transcript, for the duel's other miner, is found
// while it is late) to 64 counters past it. 149 transcripts use counters
// 0 to 148, then the last one plays the counter given.
func TestFormat1SeedTrail(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		counter uint64
		found   bool
	}{
		{85, true}, {84, false}, // below 149, the lowest not matched
		{212, true}, {213, false}, // past it
	} {
		t.Run(fmt.Sprint(c.counter), func(t *testing.T) {
			t.Parallel()
			spec := verifytest.Spec{Validators: 1, Blocks: 10, PerBlock: 15, Envs: []string{"mult8"}, Format: record.TranscriptFormatV1,
				Start: func(int) int { return 0 },
				Mutate: func(_, b, i int, tr *record.Transcript) {
					if b != 9 || i != 14 {
						return
					}
					v := tr.Validator
					late, err := verifytest.Transcript(v, verifytest.BlockAnchor(0), "mult8", c.counter, 149, 0)
					if err != nil {
						panic(err)
					}
					late.Format, late.Seed = record.TranscriptFormatV1, nil
					*tr = late
				},
			}
			dir, ks := build(t, spec)
			rep := verifyDir(t, dir, verify.StoreScope{})
			if c.found {
				if !rep.OK || rep.SeedsDerived != 150 {
					t.Fatalf("ok %v, seeds derived %d, want 150: %+v", rep.OK, rep.SeedsDerived, rep.Failures)
				}
				return
			}
			blk, _ := stored(t, dir, ks[0], 9)
			onlyFailure(t, rep, ks[0], 9, blk.CID, 14, "is not derived from the anchor")
		})
	}
}
