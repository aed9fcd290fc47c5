package ledger_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
)

// FuzzIndexKeys: an audit reads every key of the transcript indexes
// (ScanIndexes) and the leaf a miner or duel key names (LeafOf) from
// whatever the store holds; no key panics, and the keys the store
// writes give back their leaf.
func FuzzIndexKeys(f *testing.F) {
	var v, m keys.PublicKey
	v[0], m[0] = 1, 2
	id, err := challenge.Derive(record.Hash{3}, v, "mult8", 1, 7)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ledgertest.ChallengeKey(id, m, v), uint64(0))
	f.Add(ledgertest.MinerKey(m, v, 9), uint64(9))
	f.Add(ledgertest.DuelKey(record.DuelID{4}, v, 1<<40), uint64(1<<40))
	f.Add([]byte("c\x00"), uint64(0))
	f.Fuzz(func(t *testing.T, key []byte, leaf uint64) {
		for _, k := range []ledger.IndexKind{ledger.ChallengeIndex, ledger.MinerIndex, ledger.DuelIndex} {
			got, ok := k.LeafOf(key)
			if ok && (k == ledger.ChallengeIndex || !bytes.Equal(key[65:], binary.BigEndian.AppendUint64(nil, got))) {
				t.Fatalf("%s key %x: leaf %d", k, key, got)
			}
		}
		for _, built := range [][]byte{ledgertest.MinerKey(m, v, leaf), ledgertest.DuelKey(record.DuelID(v), m, leaf)} {
			if got, ok := ledger.MinerIndex.LeafOf(built); !ok || got != leaf {
				t.Fatalf("key %x gives leaf %d %v, want %d", built, got, ok, leaf)
			}
		}
	})
}
