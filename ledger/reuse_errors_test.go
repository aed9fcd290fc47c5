package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestChallengeReusedNamesTheMiner: spec/ledger.md rule 6 forbids a
// challenge twice with the same miner; the same challenge with another
// miner is allowed (a duel). The refusal must name the miner, or whoever
// reads it cannot tell which pair was reused. Put says "challenge X is
// already in the validator's log" (put.go, linkedObjects), which is not
// the rule and names no miner; Append names no miner either (append.go,
// reserve and prepare).
func TestChallengeReusedNamesTheMiner(t *testing.T) {
	k := alice(t)
	v := k.Public()
	again := recordtest.Transcript(v, 0, 0)
	again.Invocation = record.InvocationID{9}
	miner := again.Miner.Hotkey.String()

	// A peer's block reusing a challenge of its block 0 with the same miner.
	p := &peerChain{t: t, key: k}
	b0 := p.build(1, nil)
	p.accept(b0)
	b1 := p.build(0, func(h *record.Header, objs map[cid.Cid][]byte) {
		raw, c, _ := again.Encode()
		objs[c] = raw
		h.Transcripts = append(h.Transcripts, codec.LinkTo(c))
		h.Checkpoint = record.CheckpointOf(append(append([]cid.Cid(nil), p.leaves...), c))
	})
	s := open(t, t.TempDir())
	defer s.Close()
	if _, err := s.Put(b0.raw, b0.objs); err != nil {
		t.Fatal(err)
	}
	_, err := s.Put(b1.raw, b1.objs)
	if !errors.Is(err, ledger.ErrChallengeReused) {
		t.Fatalf("Put: %v", err)
	}
	if !strings.Contains(err.Error(), miner) {
		t.Errorf("Put's refusal does not name the miner %s: %v", miner, err)
	}

	// The local appender reusing a challenge of its log with the same miner.
	s2 := open(t, t.TempDir())
	defer s2.Close()
	a := appender(t, s2, k)
	appendRange(t, a, v, 0, 1)
	_, err = a.Append(context.Background(), recordtest.Anchor(0), []record.Transcript{again}, nil)
	if !errors.Is(err, ledger.ErrChallengeReused) {
		t.Fatalf("Append: %v", err)
	}
	if !strings.Contains(err.Error(), miner) {
		t.Errorf("Append's refusal does not name the miner %s: %v", miner, err)
	}
}
