package duel_test

import (
	"fmt"

	"github.com/affine-ledger/ledger/duel"
)

// A validator's loop: each round, one challenge for every env the duel
// still needs, until the winner is known.
func ExampleDuel() {
	d, err := duel.NewDuel(duel.DefaultRule(), duel.DefaultFrontierParams().Floor(), []string{"mult8", "sat", "tictactoe"})
	if err != nil {
		panic(err)
	}
	// A contender that always wins mult8 and sat and always loses
	// tictactoe (rewards champion, contender).
	rewards := map[string][2]int64{"mult8": {0, 1}, "sat": {0, 1}, "tictactoe": {1, -1}}
	for !d.Done() {
		for _, env := range d.Need() {
			r := rewards[env]
			if err := d.Add(env, duel.Judge(r[0], r[1])); err != nil {
				panic(err)
			}
		}
	}
	won, kept, open := d.Tally()
	lower, _ := d.State(d.Index("mult8")).Bounds()
	fmt.Printf("%v wins after %d challenges: %d envs taken, %d kept, %d open\n", d.Winner(), d.Challenges(), won, kept, open)
	fmt.Printf("mult8 lower bound %s > ratio %s\n", duel.FormatPPM(lower), duel.FormatPPM(duel.DefaultFrontierParams().Floor()))
	// Output:
	// contender wins after 96 challenges: 2 envs taken, 1 kept, 0 open
	// mult8 lower bound 0.892817 > ratio 0.520
}
