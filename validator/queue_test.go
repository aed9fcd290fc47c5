package validator

import (
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
)

func contender(uid uint16, block uint64, model string, hash byte) chain.Contender {
	var k keys.PublicKey
	k[0], k[31] = byte(uid), 0x77
	c := chain.Contender{UID: uid, Hotkey: k, Block: block, Commitment: chain.MinerCommitment{Model: model, Revision: "r1", Endpoint: "http://127.0.0.1:1/v1"}}
	if hash != 0 {
		c.Commitment.ModelHash = make([]byte, 32)
		c.Commitment.ModelHash[0] = hash
	}
	return c
}

// queueOf marks copies as chain.Contenders does.
func queueOf(cs ...chain.Contender) []chain.Contender {
	first := map[[32]byte]uint16{}
	for i := range cs {
		id := cs[i].Commitment.Identity()
		if uid, ok := first[id]; ok {
			cs[i].CopyOf = &uid
			continue
		}
		first[id] = cs[i].UID
	}
	return cs
}

func historyOf(t *testing.T, p duel.FrontierParams, champion duel.Side, dueled ...duel.Side) *History {
	t.Helper()
	h := &History{Params: p, dueled: map[string]bool{}}
	f := p.Genesis(champion, 1)
	h.Frontier = &f
	h.dueled[sideKey(champion)] = true
	for _, d := range dueled {
		h.dueled[sideKey(d)] = true
	}
	return h
}

func TestNextPair(t *testing.T) {
	p := duel.DefaultFrontierParams()
	a := contender(1, 10, "org/a", 0xa)
	b := contender(2, 11, "org/b", 0xb)
	copyOfA := contender(3, 12, "org/a-copy", 0xa)
	c := contender(4, 13, "org/c", 0)
	sameRevAsC := contender(5, 14, "org/c", 0) // model and revision equal: same identity
	aRecommitted := contender(1, 20, "org/a2", 0xaa)
	cases := []struct {
		name      string
		q         []chain.Contender
		h         *History
		champion  uint16
		contender uint16 // 0: none
	}{
		{"no champion yet: the earliest commitment", queueOf(a, b, c), &History{Params: p, dueled: map[string]bool{}}, 1, 2},
		{"copies of the champion are passed over", queueOf(a, copyOfA, c), historyOf(t, p, Side(a)), 1, 4},
		{"copies by model and revision", queueOf(a, c, sameRevAsC), historyOf(t, p, Side(a), Side(c)), 1, 0},
		{"dueled models are passed over", queueOf(a, b, c), historyOf(t, p, Side(a), Side(b)), 1, 4},
		{"the champion stays while its model is committed", queueOf(a, b, c), historyOf(t, p, Side(b)), 2, 1},
		{"a champion that re-committed is vacated", queueOf(b, c, aRecommitted), historyOf(t, p, Side(a), Side(b)), 2, 4},
		{"nothing left", queueOf(a, copyOfA), historyOf(t, p, Side(a)), 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ch, co, ok := nextPair(tc.q, tc.h)
			if tc.contender == 0 {
				if ok {
					t.Fatalf("got %d against %d, want no duel", co.UID, ch.UID)
				}
				return
			}
			if !ok || ch.UID != tc.champion || co.UID != tc.contender {
				t.Fatalf("got %d against %d (ok %v), want %d against %d", co.UID, ch.UID, ok, tc.contender, tc.champion)
			}
		})
	}
}

func TestIsCopy(t *testing.T) {
	a := contender(1, 10, "org/a", 0xa)
	q := queueOf(a, contender(2, 11, "org/b", 0xa), contender(3, 12, "org/c", 0xc))
	if why := isCopy(a, q[1]); why == "" {
		t.Fatal("a later commitment of the champion's hash is not a copy")
	}
	unmarked := q[1]
	unmarked.CopyOf = nil
	if why := isCopy(a, unmarked); why == "" {
		t.Fatal("the champion's hash without the chain's mark is not a copy")
	}
	if why := isCopy(a, a); why == "" {
		t.Fatal("the champion may challenge itself")
	}
	if why := isCopy(a, q[2]); why != "" {
		t.Fatalf("another model is a copy: %s", why)
	}
}
