package verify_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// transcriptAt reads v's transcript at leaf from the closed store at dir.
func transcriptAt(t *testing.T, dir string, v keys.PublicKey, leaf uint64) ledger.StoredTranscript {
	t.Helper()
	s := open(t, dir)
	defer s.Close()
	for ref, err := range s.Leaves(v, leaf) {
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Transcript(ref.CID)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	t.Fatalf("no leaf %d of %s", leaf, v)
	return ledger.StoredTranscript{}
}

// TestIndexesChecked damages, adds or removes one entry of a transcript
// index of validator 0's log (spec/store.md 'c', 'm' and 'd' keys): a
// full audit must report it as the store's damage, naming the entry, and
// still check every chain (B10).
func TestIndexesChecked(t *testing.T) {
	t.Parallel()
	base, ks := build(t, small)
	v := ks[0].Public()
	six, seven := transcriptAt(t, base, v, 6), transcriptAt(t, base, v, 7)
	if six.Duel.IsZero() {
		t.Fatal("the fixture's transcripts belong to no duel")
	}
	cKey := ledgertest.ChallengeKey(six.Challenge, six.Miner.Hotkey, v)
	mKey := ledgertest.MinerKey(six.Miner.Hotkey, v, 6)
	dKey := ledgertest.DuelKey(six.Duel, v, 6)
	refOf := func(key []byte) []byte {
		raw, ok, err := ledgertest.Get(base, key)
		if err != nil || !ok {
			t.Fatalf("key %x: %v %v", key, ok, err)
		}
		return raw
	}
	sixRef, sevenRef := refOf(mKey), refOf(ledgertest.MinerKey(seven.Miner.Hotkey, v, 7))
	otherChallenge := six.Challenge
	otherChallenge.Seed[0] ^= 1
	stranger := verifytest.Key(9).Public()
	where := fmt.Sprintf("in validator %s's log, leaf 6", v)
	cases := []damageCase{
		{"challenge entry deleted", func(dir string) error { return ledgertest.Delete(dir, cKey) },
			[]string{"the store has no challenge index's entry for challenge " + six.Challenge.String() + " put to miner " + six.Miner.Hotkey.String(), where, "(transcript " + six.Ref.CID.String() + ", linked at height 1)"}},
		{"miner entry deleted", func(dir string) error { return ledgertest.Delete(dir, mKey) },
			[]string{"the store has no miner index's entry for miner " + six.Miner.Hotkey.String(), where}},
		{"duel entry deleted", func(dir string) error { return ledgertest.Delete(dir, dKey) },
			[]string{"the store has no duel index's entry for duel " + six.Duel.String(), where}},
		{"miner entry naming another transcript", func(dir string) error { return ledgertest.Set(dir, mKey, sevenRef) },
			[]string{"the store's miner index's entry", where, "holds leaf 7 at height 1, transcript " + seven.Ref.CID.String(), "not the transcript's place (leaf 6 at height 1, transcript " + six.Ref.CID.String()}},
		{"challenge entry at another height", func(dir string) error {
			ref := append([]byte(nil), sixRef...)
			ref[15] ^= 2 // the height's last byte: 1 becomes 3
			return ledgertest.Set(dir, cKey, ref)
		}, []string{"the store's challenge index's entry", where, "holds leaf 6 at height 3"}},
		{"duel entry that is no place", func(dir string) error { return ledgertest.Set(dir, dKey, []byte{1, 2, 3}) },
			[]string{"the store's duel index's entry for duel " + six.Duel.String(), where, "holds 010203, which is no transcript's place"}},
		{"miner entry naming no CID", func(dir string) error {
			return ledgertest.Set(dir, mKey, append(append([]byte(nil), sixRef[:16]...), 0xff, 0xff))
		}, []string{"the store's miner index's entry", where, "holds leaf 6 at height 1, with ffff, which is no CID"}},
		// Entries no transcript has: each is compared with the
		// transcript at the leaf its value names.
		{"extra challenge entry", func(dir string) error {
			return ledgertest.Set(dir, ledgertest.ChallengeKey(otherChallenge, six.Miner.Hotkey, v), sixRef)
		}, []string{"the store's challenge index holds an entry of validator " + v.String() + "'s log (key ", "naming leaf 6, which is none of the entries of the log's transcript there"}},
		{"extra miner entry", func(dir string) error {
			return ledgertest.Set(dir, ledgertest.MinerKey(six.Miner.Hotkey, v, 99), sixRef)
		},
			[]string{"the store's miner index holds an entry of validator " + v.String() + "'s log (key ", "naming leaf 6, which is none"}},
		{"extra duel entry", func(dir string) error { return ledgertest.Set(dir, ledgertest.DuelKey(six.Duel, v, 99), sixRef) },
			[]string{"the store's duel index holds an entry of validator " + v.String() + "'s log (key ", "naming leaf 6, which is none"}},
		{"entry past the log", func(dir string) error {
			ref := append([]byte(nil), sixRef...)
			binary.BigEndian.PutUint64(ref, 40) // the leaf
			return ledgertest.Set(dir, ledgertest.MinerKey(six.Miner.Hotkey, v, 40), ref)
		}, []string{"the store's miner index holds an entry of validator " + v.String() + "'s log (key ", "naming leaf 40, past the log's 15 transcripts"}},
		{"entries of no chain", func(dir string) error {
			return ledgertest.Set(dir, ledgertest.MinerKey(six.Miner.Hotkey, stranger, 0), sixRef)
		}, []string{"the store's indexes hold entries of validator " + stranger.String() + " (challenge 0, miner 1, duel 0), of which it has no chain"}},
		{"key of no entry", func(dir string) error {
			return ledgertest.Set(dir, append(ledgertest.DuelKey(six.Duel, v, 6), 0), sixRef)
		},
			[]string{"in the duel index, which is no entry's"}},
	}
	checkDamage(t, base, cases)
}

// TestIndexesFromHeight: an audit from a later height compares the
// entries of the leaves it appends, and counts the challenge and miner
// entries of the leaves below; the duel entries below the first leaf are
// not known, so not checked.
func TestIndexesFromHeight(t *testing.T) {
	t.Parallel()
	base, ks := build(t, small)
	v := ks[0].Public()
	scope := verify.StoreScope{Validator: &v, From: 2}
	three := transcriptAt(t, base, v, 3)

	dir := copyStore(t, base)
	if err := ledgertest.Delete(dir, ledgertest.MinerKey(three.Miner.Hotkey, v, 3)); err != nil {
		t.Fatal(err)
	}
	onlyStoreDamage(t, verifyDir(t, dir, scope), "the store's miner index holds 9 entries of validator "+v.String()+"'s log below leaf 10, where the audit began")

	dir = copyStore(t, base)
	if err := ledgertest.Delete(dir, ledgertest.DuelKey(three.Duel, v, 3)); err != nil {
		t.Fatal(err)
	}
	if rep := verifyDir(t, dir, scope); !rep.OK {
		t.Fatalf("a duel entry below --from is not audited, yet: %+v", rep.Failures)
	}
	onlyStoreDamage(t, verifyDir(t, dir, verify.StoreScope{Validator: &v}), "the store has no duel index's entry for duel "+three.Duel.String())
}

// TestIndexesOfAGrowingChain: a block stored after the audit read its
// heads adds index entries of transcripts the audit does not reach; they
// are no stray entries.
func TestIndexesOfAGrowingChain(t *testing.T) {
	t.Parallel()
	longer, ks := build(t, verifytest.Spec{Validators: 1, Blocks: 4, PerBlock: 4, Envs: []string{"mult8"}})
	v := ks[0].Public()
	src := open(t, longer)
	defer src.Close()
	s := open(t, t.TempDir())
	defer s.Close()
	put := func(height uint64) {
		t.Helper()
		b, err := src.BlockAt(v, height)
		if err != nil {
			t.Fatal(err)
		}
		objects := map[cid.Cid][]byte{}
		for _, c := range b.TranscriptCIDs() {
			if objects[c], err = src.Object(c); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Put(b.Raw, objects); err != nil {
			t.Fatal(err)
		}
	}
	for h := range uint64(3) {
		put(h)
	}
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		t.Fatal(err)
	}
	put(3)
	rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, verify.Options{Challenges: verify.NewMemSet()})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Transcripts != 12 {
		t.Fatalf("audit of the chain as it was: ok=%v transcripts %d, failures %+v", rep.OK, rep.Transcripts, rep.Failures)
	}
}

// TestIndexRecordsRemoved: the index records live in a scratch directory
// of their own beside a set kept in memory, and in the challenge set's
// directory beside one on disk (which a command stopped by a signal
// removes); either way nothing is left once the audit returns.
func TestIndexRecordsRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	base, _ := build(t, small)
	s := open(t, base)
	defer s.Close()
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		t.Fatal(err)
	}
	disk, err := verify.NewDiskSet("")
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	for _, set := range []verify.ChallengeSet{verify.NewMemSet(), disk} {
		rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, verify.Options{Challenges: set})
		if err != nil || !rep.OK {
			t.Fatalf("%T: %v %+v", set, err, rep.Failures)
		}
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Join(tmp, e.Name()) != disk.Dir() {
			t.Errorf("left in the temporary directory: %s", e.Name())
		}
	}
	left, err := filepath.Glob(filepath.Join(disk.Dir(), "indexes-*"))
	if err != nil || len(left) != 0 {
		t.Errorf("left in the challenge set's directory: %v %v", left, err)
	}
}
