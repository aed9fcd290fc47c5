package duel

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// feedEnv adds the outcomes of seq to env.
func feedEnv(t *testing.T, d *Duel, env, seq string) {
	t.Helper()
	for _, o := range []byte(seq) {
		if err := d.Add(env, Outcome(o)); err != nil {
			t.Fatalf("%s: %v", env, err)
		}
	}
}

func newSmallDuel(t *testing.T, envs ...string) *Duel {
	t.Helper()
	d, err := NewDuel(smallRule, 520000, envs)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDuelContenderWinsEarly(t *testing.T) {
	d := newSmallDuel(t, "abd", "mult8", "sat")
	if got := d.Need(); !slices.Equal(got, []string{"abd", "mult8", "sat"}) {
		t.Fatalf("Need() = %v before any outcome", got)
	}
	feedEnv(t, d, "abd", "WWWWWWWW")
	if d.Done() || !slices.Equal(d.Need(), []string{"mult8", "sat"}) {
		t.Fatalf("one env of three decided: done %v, need %v", d.Done(), d.Need())
	}
	feedEnv(t, d, "sat", "WWWWWWWW")
	if d.Winner() != Contender || len(d.Need()) != 0 {
		t.Fatalf("two envs of three taken: winner %v, need %v", d.Winner(), d.Need())
	}
	// An answer that was in flight may still land in the open env; it
	// cannot change the winner.
	feedEnv(t, d, "mult8", "LLLL")
	if d.Winner() != Contender {
		t.Fatalf("a late outcome changed the winner to %v", d.Winner())
	}
	if won, kept, open := d.Tally(); won != 2 || kept != 1 || open != 0 {
		t.Fatalf("tally %d/%d/%d", won, kept, open)
	}
	if err := d.Add("abd", Win); !errors.Is(err, ErrDecided) {
		t.Fatalf("outcome for a decided env: %v", err)
	}
}

func TestDuelEarlyAbort(t *testing.T) {
	d := newSmallDuel(t, "abd", "mult8", "sat")
	feedEnv(t, d, "abd", "LLLL")
	feedEnv(t, d, "mult8", "WWWWWWW") // still open
	if d.Done() {
		t.Fatal("done with one env kept and one open")
	}
	feedEnv(t, d, "sat", "WLWLWLWLWLWL") // last look: champion
	if d.Winner() != Champion || d.Need() != nil {
		t.Fatalf("champion holds two of three: winner %v, need %v", d.Winner(), d.Need())
	}
}

// With four envs the contender needs three, and two kept envs end it.
func TestDuelEvenEnvCount(t *testing.T) {
	d := newSmallDuel(t, "a", "b", "c", "d")
	feedEnv(t, d, "a", "WWWWWWWW")
	feedEnv(t, d, "b", "WWWWWWWW")
	if d.Done() {
		t.Fatal("two of four is not more than half")
	}
	feedEnv(t, d, "c", "LLLL")
	if d.Done() {
		t.Fatal("contender can still reach three of four")
	}
	feedEnv(t, d, "d", "LLLL")
	if d.Winner() != Champion {
		t.Fatalf("2-2: winner %v, want champion", d.Winner())
	}
}

func TestDuelSingleEnv(t *testing.T) {
	d := newSmallDuel(t, "sat")
	feedEnv(t, d, "sat", "WWWWWWWW")
	if d.Winner() != Contender {
		t.Fatalf("winner %v", d.Winner())
	}
}

func TestNewDuelRejects(t *testing.T) {
	bad := map[string][]string{
		"no envs":     nil,
		"unsorted":    {"sat", "abd"},
		"duplicate":   {"sat", "sat"},
		"bad name":    {"Sat"},
		"too many":    make([]string, MaxEnvs+1),
		"empty name":  {""},
		"digit first": {"8mult"},
	}
	for name, envs := range bad {
		if _, err := NewDuel(smallRule, 520000, envs); !errors.Is(err, ErrBadEnvs) {
			t.Errorf("%s: err %v, want ErrBadEnvs", name, err)
		}
	}
	// The default rule fits 3 envs with the longest names, not 32.
	long := func(n int) []string {
		var envs []string
		for i := range n {
			envs = append(envs, fmt.Sprintf("env%02d_%s", i, strings.Repeat("x", 26)))
		}
		return envs
	}
	if _, err := NewDuel(DefaultRule(), 520000, long(3)); err != nil {
		t.Errorf("3 envs with 32-character names: %v", err)
	}
	if _, err := NewDuel(DefaultRule(), 520000, long(MaxEnvs)); !errors.Is(err, ErrBadEnvs) {
		t.Errorf("a record too large for MaxResultBytes: %v", err)
	}
	d := newSmallDuel(t, "a")
	if err := d.Add("b", Win); err == nil {
		t.Error("outcome for an env not in the duel accepted")
	}
}
