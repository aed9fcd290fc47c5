package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestReviewGroupCommitSharedDecision: two requests, each valid on its own,
// carry the same decision record. Each alone is appended; grouped into one
// block (WithMaxBatch(2) and a long WithMaxWait make the grouping
// deterministic), the block links the decision twice, Header.Check refuses
// it at signing time and both requests fail. prepare checks transcripts
// for duplicates but not decisions, and applyGroup fails every request of
// the group for one request's content: a valid request is refused because
// of what another caller queued beside it.
func TestReviewGroupCommitSharedDecision(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k, ledger.WithMaxBatch(2), ledger.WithMaxWait(time.Hour))
	decision := []byte{0xa1, 0x61, 'x', 0x01} // {"x": 1}
	ctx := context.Background()
	one := a.Add(ctx, recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, 0, 0)}, [][]byte{decision})
	two := a.Add(ctx, recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, 1, 0)}, [][]byte{decision})
	_, err1 := one()
	_, err2 := two()
	if err1 != nil || err2 != nil {
		t.Fatalf("two valid requests grouped into one block: first: %v; second: %v", err1, err2)
	}
}

// TestReviewGroupCommitOneBadRequestFailsItsGroup: a request that links one
// decision twice passes Add (prepare does not look for duplicate
// decisions) and is refused only when its block is signed; the valid
// request grouped with it fails with the same error.
func TestReviewGroupCommitOneBadRequestFailsItsGroup(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k, ledger.WithMaxBatch(2), ledger.WithMaxWait(time.Hour))
	decision := []byte{0xa1, 0x61, 'x', 0x01}
	ctx := context.Background()
	bad := a.Add(ctx, recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, 0, 0)}, [][]byte{decision, decision})
	good := a.Add(ctx, recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, 1, 0)}, nil)
	_, errBad := bad()
	_, errGood := good()
	if errGood != nil {
		t.Fatalf("a valid request failed because of the request grouped with it (%v): %v", errBad, errGood)
	}
}
