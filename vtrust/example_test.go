package vtrust_test

import (
	"crypto/sha256"
	"fmt"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/vtrust"
)

// Three validators judge one duel. The largest one records a transcript
// whose reward does not reproduce: its vTrust is 0, its vote counts for
// nothing, and the two honest validators' verdict stands.
func ExampleEpoch() {
	key := func(name string) keys.PublicKey { return sha256.Sum256([]byte(name)) }
	champion, contender := duel.Side{Hotkey: key("champion")}, duel.Side{Hotkey: key("contender")}
	vote := func(validator, winner string, envs ...string) vtrust.Vote {
		v := vtrust.Vote{
			Validator: key(validator), Record: codec.LinkTo(codec.Sum([]byte("result of " + validator))),
			Start: 4_200_000, Champion: champion, Contender: contender, Winner: winner,
		}
		for i, d := range envs {
			v.Envs = append(v.Envs, vtrust.EnvVote{Env: []string{"mult8", "sat", "tictactoe"}[i], Decision: d})
		}
		return v
	}
	fault, err := vtrust.NewOutcome(key("alice"), key("mallory"), codec.Sum([]byte("mallory's block")),
		codec.Sum([]byte("mallory's transcript")), vtrust.Fault, "reward: recorded 1, replay gives 0")
	if err != nil {
		panic(err)
	}
	out, err := vtrust.Epoch(vtrust.Input{
		Validators: []vtrust.Validator{{Hotkey: key("alice"), Stake: 300}, {Hotkey: key("bob"), Stake: 300}, {Hotkey: key("mallory"), Stake: 1000}},
		Miners:     []vtrust.Miner{{Hotkey: key("champion"), UID: 7, CommitBlock: 100}, {Hotkey: key("contender"), UID: 9, CommitBlock: 200}},
		Champion:   champion,
		Outcomes:   []vtrust.Outcome{fault},
		Votes: []vtrust.Vote{
			vote("alice", "contender", "contender", "contender", "champion"),
			vote("bob", "contender", "contender", "open", "contender"),
			vote("mallory", "champion", "champion", "champion", "champion"),
		},
	})
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"alice", "bob", "mallory"} {
		for _, t := range out.Validators {
			if t.Hotkey == key(name) {
				fmt.Printf("%s: vtrust %s, hard fault %v\n", name, duel.FormatPPM(t.VTrustPPM), t.HardFault)
			}
		}
	}
	fmt.Printf("winner: %s, weights %v -> %v\n", out.Duels[0].Winner, out.Weights.UIDs, out.Weights.Values)
	// Output:
	// alice: vtrust 1.000, hard fault false
	// bob: vtrust 1.000, hard fault false
	// mallory: vtrust 0.000, hard fault true
	// winner: contender, weights [9] -> [65535]
}
