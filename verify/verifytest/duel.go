package verifytest

import (
	"errors"
	"fmt"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/mult8"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/rng"
)

// Duel is a duel as one validator records it: both sides' transcripts of
// every challenge, and the result their rewards decide.
type Duel struct {
	Transcripts []record.Transcript
	Result      duel.Result
	Raw         []byte // the result's encoding
}

// PlayDuel plays a duel of champion and contender started at start, as
// validator v draws it (mult8 challenges from counter from on), in which
// every challenge has outcome o for the contender: the side that is to
// lose a challenge answers it wrong, the other right (both right for a
// draw). Challenges are fed until the duel decides, under a rule that
// looks after every sample from the 12th (at most 24).
func PlayDuel(v keys.PublicKey, champion, contender duel.Side, start record.Anchor, from uint64, o duel.Outcome) (Duel, error) {
	right := func(c []envs.Message) string { a, _ := mult8.Solve(c); return a }
	wrong := func(c []envs.Message) string { a, _ := mult8.Wrong(c, rng.New([32]byte{1})); return a }
	replies, ok := map[duel.Outcome][2]func([]envs.Message) string{
		duel.Win: {wrong, right}, duel.Loss: {right, wrong}, duel.Draw: {right, right},
	}[o]
	if !ok {
		return Duel{}, fmt.Errorf("outcome %q is none of W, L, D", o)
	}
	id := record.Duel{Champion: champion.Hotkey, Contender: contender.Hotkey, Start: start}.ID()
	var d Duel
	var samples []duel.Sample
	for i := range uint64(24) {
		var rewards [2]int64
		for j, side := range []duel.Side{champion, contender} {
			m := record.Miner{Hotkey: side.Hotkey, Model: "org/model", Revision: "main", ModelHash: record.Bytes(side.ModelHash), Endpoint: "chute"}
			tr, err := Play(v, record.Seed{Anchor: start, Counter: from + i}, mult8.Name, m, id, replies[j])
			if err != nil {
				return Duel{}, err
			}
			rewards[j] = tr.Reward
			d.Transcripts = append(d.Transcripts, tr)
		}
		if got := duel.Judge(rewards[0], rewards[1]); got != o {
			return Duel{}, fmt.Errorf("challenge %d played as %c, want %c", i, got, o)
		}
		samples = append(samples, duel.Sample{ID: d.Transcripts[len(d.Transcripts)-1].Challenge, Outcome: o})
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
			return Duel{}, err
		}
		d.Result = r
		if d.Raw, _, err = duel.Encode(r); err != nil {
			return Duel{}, err
		}
		return d, nil
	}
	return Duel{}, errors.New("duel undecided after 24 challenges")
}
