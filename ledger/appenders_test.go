package ledger_test

import (
	"context"
	"errors"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestClosedAppendersAreForgotten: the store kept every appender ever
// made until it closed; now a closed one is dropped, and those still open
// are closed with the store.
func TestClosedAppendersAreForgotten(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	for range 20 {
		appender(t, s, alice(t)).Close()
	}
	if n := ledger.AppendersHeld(s); n != 0 {
		t.Fatalf("%d closed appenders held", n)
	}
	a, b := appender(t, s, alice(t)), appender(t, s, bob(t))
	if n := ledger.AppendersHeld(s); n != 2 {
		t.Fatalf("%d appenders held, want 2", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, x := range []*ledger.Appender{a, b} {
		if _, err := x.Append(context.Background(), recordtest.Anchor(1), nil, nil); !errors.Is(err, ledger.ErrClosed) {
			t.Fatalf("append after the store closed: %v", err)
		}
	}
}
