package verify

import (
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestCheckKeepsNothingOfRaw checks that what check keeps of a transcript
// for the in-order steps survives its bytes being reused, as a store
// reader's buffer is: the transcript is decoded in place.
func TestCheckKeepsNothingOfRaw(t *testing.T) {
	k := verifytest.Key(1).Public()
	for _, reexec := range []bool{false, true} {
		tr, err := verifytest.Transcript(k, verifytest.BlockAnchor(0), "mult8", 0, 0, 64)
		if err != nil {
			t.Fatal(err)
		}
		raw, c, err := tr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		vf := New(Options{Reexecute: reexec, Challenges: NewMemSet()})
		var it item
		vf.check(&ledger.Block{Header: ledger.Header{Validator: k}}, c, raw, &it)
		if it.err != nil || it.reexecErr != nil {
			t.Fatalf("reexec %v: check: %v %v", reexec, it.err, it.reexecErr)
		}
		clear(raw)
		if it.keys.challenge != tr.Challenge || it.keys.miner != tr.Miner.Hotkey {
			t.Fatalf("reexec %v: keys changed with the bytes: %+v, want %s %s", reexec, it.keys, tr.Challenge, tr.Miner.Hotkey)
		}
	}
}
