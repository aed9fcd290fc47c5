package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestGroupCommitSharedDecision: two requests, each valid on its own,
// carry the same decision record. Each alone is appended; grouped into one
// block (WithMaxBatch(2) and a long WithMaxWait make the grouping
// deterministic), the block links the decision twice, Header.Check refuses
// it at signing time and both requests fail. prepare checks transcripts
// for duplicates but not decisions, and applyGroup fails every request of
// the group for one request's content: a valid request is refused because
// of what another caller queued beside it. Now the second waits for the
// next block.
func TestGroupCommitSharedDecision(t *testing.T) {
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

// TestGroupCommitOneBadRequestFailsAlone: a request that links one
// decision twice passed Add and was refused only when its block was signed,
// failing the valid request grouped with it. Add now refuses it, naming
// both decisions, and the valid requests around it are stored.
func TestGroupCommitOneBadRequestFailsAlone(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	k := alice(t)
	v := k.Public()
	a := appender(t, s, k, ledger.WithMaxBatch(2), ledger.WithMaxWait(time.Hour))
	decision := []byte{0xa1, 0x61, 'x', 0x01}
	ctx := context.Background()
	good := a.Add(ctx, recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, 0, 0)}, nil)
	bad := a.Add(ctx, recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, 1, 0)}, [][]byte{decision, decision})
	if _, err := bad(); !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), "decisions 0 and 1") {
		t.Fatalf("a request linking one decision twice: %v, want refused naming both", err)
	}
	// The batch of two fills with a third request.
	also := a.Add(ctx, recordtest.Anchor(1), []record.Transcript{recordtest.Transcript(v, 2, 0)}, nil)
	for i, f := range []ledger.Future{good, also} {
		if _, err := f(); err != nil {
			t.Fatalf("valid request %d beside a refused one: %v", i, err)
		}
	}
}
