package verify

import (
	"testing"

	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestCheckKeepsNothingOfRaw checks that what check keeps of a transcript
// for the in-order steps survives its bytes being reused, as a store
// reader's buffer is (the transcript is decoded in place), and the
// worker's decoder decoding the next transcript.
func TestCheckKeepsNothingOfRaw(t *testing.T) {
	k := verifytest.Key(1).Public()
	for _, reexec := range []bool{false, true} {
		var dec record.TranscriptDecoder
		vf := New(Options{Reexecute: reexec, Challenges: NewMemSet()})
		blk := &record.Block{Header: record.Header{Validator: k}}
		var its [2]item
		var trs [2]record.Transcript
		for i := range its {
			anchor := verifytest.BlockAnchor(i)
			tr, err := verifytest.Transcript(k, anchor, "mult8", uint64(i), i, 64)
			if err != nil {
				t.Fatal(err)
			}
			raw, c, err := tr.Encode()
			if err != nil {
				t.Fatal(err)
			}
			vf.check(blk, c, raw, &its[i], &dec)
			if its[i].err != nil || its[i].reexecErr != nil {
				t.Fatalf("reexec %v: check: %v %v", reexec, its[i].err, its[i].reexecErr)
			}
			clear(raw)
			trs[i] = tr
		}
		for i := range its {
			it, tr := &its[i], trs[i]
			if it.keys.challenge != tr.Challenge || it.keys.miner != tr.Miner.Hotkey || !it.keys.seeded || it.keys.seedAnchor != tr.Seed.Anchor {
				t.Fatalf("reexec %v: transcript %d's keys changed with the bytes or the decoder: %+v, want %s %s %+v",
					reexec, i, it.keys, tr.Challenge, tr.Miner.Hotkey, tr.Seed.Anchor)
			}
		}
		if trs[0].Seed.Anchor == trs[1].Seed.Anchor || trs[0].Miner.Hotkey == trs[1].Miner.Hotkey && trs[0].Challenge == trs[1].Challenge {
			t.Fatal("the two transcripts must differ for the test to tell")
		}
	}
}
