package epoch

import (
	"testing"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// playDuel is verifytest.PlayDuel, failing t.
func playDuel(t *testing.T, v keys.PublicKey, champion, contender duel.Side, start record.Anchor, from uint64, o duel.Outcome) verifytest.Duel {
	t.Helper()
	d, err := verifytest.PlayDuel(v, champion, contender, start, from, o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
