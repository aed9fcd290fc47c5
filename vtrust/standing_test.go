package vtrust

import (
	"errors"
	"strings"
	"testing"
)

// TestStandingVotesDethroneAcrossEpochs is the stall standing votes
// remove: two validators of equal stake run the same duel, one just before
// an epoch boundary and one just after. Counted only in the epoch it was
// cast in, neither vote has more than half of the stake, so the champion
// stays in both epochs, and the validators, having moved on to the
// contender in their own ledgers, never duel the old champion again.
func TestStandingVotesDethroneAcrossEpochs(t *testing.T) {
	t.Parallel()
	first := newWorld("A").miners("A", "B").validator("v1", 100).validator("v2", 100).
		vote("v1", "A", "B", "ccc").run(t)
	if !first.Champion.Equal(side("A")) {
		t.Fatalf("one vote of half the stake dethroned: champion %s", nameOf(first.Champion, "A", "B"))
	}

	second := newWorld("A").miners("A", "B").validator("v1", 100).validator("v2", 100).
		standing("v1", "A", "B", "ccc").vote("v2", "A", "B", "cch").run(t)
	if !second.Champion.Equal(side("B")) || len(second.Changes) != 1 {
		t.Fatalf("both votes together did not dethrone: champion %s, changes %+v", nameOf(second.Champion, "A", "B"), second.Changes)
	}
	if d := second.Duels[0]; d.Votes != 2 || d.Standing != 1 || d.Winner != contender {
		t.Fatalf("duel %+v, want 2 votes, 1 standing, won by the contender", d)
	}
	v1, v2 := trustOf(t, second, "v1"), trustOf(t, second, "v2")
	if v1.Votes != 0 || v1.Standing != 1 || v2.Votes != 1 || v2.Standing != 0 {
		t.Fatalf("counts: v1 %+v, v2 %+v", v1, v2)
	}

	alone := newWorld("A").miners("A", "B").validator("v1", 100).validator("v2", 100).
		vote("v2", "A", "B", "cch").run(t)
	if !alone.Champion.Equal(side("A")) {
		t.Fatal("the second vote dethroned without the standing one: the test shows nothing")
	}
}

// TestStandingVotesAreNotScoredAgain: a standing vote weighs in the pair's
// majority, but the validator was scored on it in its own epoch; scoring
// it again would cost a validator trust for every epoch the vote stands.
func TestStandingVotesAreNotScoredAgain(t *testing.T) {
	t.Parallel()
	out := newWorld("A").miners("A", "B").validator("v1", 100).validator("v2", 300).
		standing("v1", "A", "B", "ccc").vote("v2", "A", "B", "hhh").run(t)
	v1 := trustOf(t, out, "v1")
	if v1.Scored != 0 || v1.DecisionPPM != PPM || v1.VTrustPPM != PPM {
		t.Fatalf("v1's standing vote against the majority was scored: %+v", v1)
	}
	d := out.Duels[0]
	if d.Majority != champion || d.For.Cmp(weightOf(100, PPM)) != 0 || d.Against.Cmp(weightOf(300, PPM)) != 0 {
		t.Fatalf("duel %+v: the standing vote should count for the contender with v1's full weight", d)
	}

	// The same vote cast in the epoch is scored, and loses v1 its trust.
	cast := newWorld("A").miners("A", "B").validator("v1", 100).validator("v2", 300).
		vote("v1", "A", "B", "ccc").vote("v2", "A", "B", "hhh").run(t)
	if v1 := trustOf(t, cast, "v1"); v1.Scored != 1 || v1.VTrustPPM != 0 {
		t.Fatalf("v1's vote of the epoch against the majority: %+v", v1)
	}
}

// TestStandingVoteSupersedes: one vote per validator and pair, the latest
// start whichever epoch it was cast in. A later standing result replaces
// an earlier result cast in this epoch (and is not scored); the same
// record given as both counts once, as cast in the epoch.
func TestStandingVoteSupersedes(t *testing.T) {
	t.Parallel()
	out := newWorld("A").miners("A", "B").validator("v1", 100).validator("v2", 100).
		voteAt("v1", "A", "B", "hhh", 800).standingAt("v1", "A", "B", "ccc", 900).
		vote("v2", "A", "B", "ccc").run(t)
	v1 := trustOf(t, out, "v1")
	if v1.Superseded != 1 || v1.Votes != 0 || v1.Standing != 1 || v1.Scored != 0 {
		t.Fatalf("v1 %+v: want its standing result to supersede its earlier one", v1)
	}
	if !out.Champion.Equal(side("B")) {
		t.Fatalf("champion %s: v1's later result (for B) should count", nameOf(out.Champion, "A", "B"))
	}

	w := newWorld("A").miners("A", "B").validator("v1", 100).validator("v2", 100).
		vote("v1", "A", "B", "ccc").vote("v2", "A", "B", "ccc")
	w.in.Standing = append(w.in.Standing, w.in.Votes[0])
	out = w.run(t)
	v1 = trustOf(t, out, "v1")
	if v1.Votes != 1 || v1.Standing != 0 || v1.Superseded != 0 || v1.Scored != 1 {
		t.Fatalf("v1 %+v: a record given as a vote and as standing counts once, as a vote", v1)
	}
}

// TestStandingVotesAreChecked: a standing vote is held to the rules of a
// vote, and one record cannot say two things.
func TestStandingVotesAreChecked(t *testing.T) {
	t.Parallel()
	w := newWorld("A").miners("A", "B").validator("v1", 100).standing("v1", "A", "B", "ccc")
	w.in.Standing[0].Winner = champion
	if _, err := Epoch(w.in); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "standing vote 0") {
		t.Fatalf("a standing vote whose winner contradicts its envs: %v", err)
	}

	w = newWorld("A").miners("A", "B").validator("v1", 100).vote("v1", "A", "B", "ccc")
	changed := w.in.Votes[0]
	changed.Start++
	w.in.Standing = append(w.in.Standing, changed)
	if _, err := Epoch(w.in); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "different contents") {
		t.Fatalf("one record as a vote and, changed, as a standing vote: %v", err)
	}
}

// TestWalkTakesDuelsInTimeOrder: a dethrone (A, B) and its reverse (B, A),
// started later, both stand. Whichever of A and B an epoch starts from,
// its walk replays them in the order they started and ends on A; taken
// in any order, an epoch starting from B would go B, A, B and keep B for
// as long as the dethrone stands.
func TestWalkTakesDuelsInTimeOrder(t *testing.T) {
	t.Parallel()
	for _, start := range []string{"A", "B"} {
		out := newWorld(start).miners("A", "B").validator("v1", 100).validator("v2", 100).
			standingAt("v1", "A", "B", "ccc", 500).standingAt("v2", "A", "B", "ccc", 510).
			voteAt("v1", "B", "A", "ccc", 800).standingAt("v2", "B", "A", "ccc", 790).run(t)
		if !out.Champion.Equal(side("A")) {
			t.Errorf("from %s: champion %s after %d changes, want A", start, nameOf(out.Champion, "A", "B"), len(out.Changes))
		}
	}
	// The order is the duels' start, not the epoch a vote was cast in: the
	// same reverse started first is taken first, and B keeps the title.
	out := newWorld("A").miners("A", "B").validator("v1", 100).validator("v2", 100).
		standingAt("v1", "B", "A", "ccc", 400).standingAt("v2", "B", "A", "ccc", 410).
		voteAt("v1", "A", "B", "ccc", 800).voteAt("v2", "A", "B", "ccc", 790).run(t)
	if !out.Champion.Equal(side("B")) || len(out.Changes) != 1 {
		t.Errorf("champion %s after %d changes, want B after 1", nameOf(out.Champion, "A", "B"), len(out.Changes))
	}
}
