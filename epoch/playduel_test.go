package epoch

import (
	"errors"
	"testing"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/mult8"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/rng"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// playedDuel is a duel as one validator records it: both sides'
// transcripts of every challenge, and the result their rewards decide.
type playedDuel struct {
	transcripts []record.Transcript
	result      duel.Result
	raw         []byte // the result's encoding
}

// playDuel plays a duel of champion and contender started at start, as
// validator v draws it (mult8 challenges from counter from on), in which
// every challenge has outcome o for the contender: the side that is to
// lose a challenge answers it wrong, the other right (both right for a
// draw). Challenges are fed until the duel decides.
func playDuel(t *testing.T, v keys.PublicKey, champion, contender duel.Side, start record.Anchor, from uint64, o duel.Outcome) playedDuel {
	t.Helper()
	right := func(c []envs.Message) string { a, _ := mult8.Solve(c); return a }
	wrong := func(c []envs.Message) string { a, _ := mult8.Wrong(c, rng.New([32]byte{1})); return a }
	replies := map[duel.Outcome][2]func([]envs.Message) string{
		duel.Win: {wrong, right}, duel.Loss: {right, wrong}, duel.Draw: {right, right},
	}[o]
	id := record.Duel{Champion: champion.Hotkey, Contender: contender.Hotkey, Start: start}.ID()
	var p playedDuel
	var samples []duel.Sample
	for i := range uint64(24) {
		var rewards [2]int64
		for j, side := range []duel.Side{champion, contender} {
			m := record.Miner{Hotkey: side.Hotkey, Model: "org/model", Revision: "main", ModelHash: record.Bytes(side.ModelHash), Endpoint: "chute"}
			tr, err := verifytest.Play(v, record.Seed{Anchor: start, Counter: from + i}, mult8.Name, m, id, replies[j])
			if err != nil {
				t.Fatal(err)
			}
			rewards[j] = tr.Reward
			p.transcripts = append(p.transcripts, tr)
		}
		if got := duel.Judge(rewards[0], rewards[1]); got != o {
			t.Fatalf("challenge %d played as %c, want %c", i, got, o)
		}
		samples = append(samples, duel.Sample{ID: p.transcripts[len(p.transcripts)-1].Challenge, Outcome: o})
		r, err := duel.Recompute(duel.Input{
			Start:    duel.Anchor{Number: start.Number, Hash: duel.Hash(start.Hash)},
			Champion: champion, Contender: contender,
			Rule: duel.EverySampleRule(1960, 12, 24), RatioPPM: 500_000,
			Envs: []duel.EnvInput{{Env: mult8.Name, Samples: samples}},
		})
		if errors.Is(err, duel.ErrUndecided) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		p.result = r
		if p.raw, _, err = duel.Encode(r); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Fatal("duel undecided after 24 challenges")
	return p
}
