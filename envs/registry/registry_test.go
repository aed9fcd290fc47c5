package registry

import (
	"errors"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
)

func TestEveryEnvIsReachable(t *testing.T) {
	want := []string{"abd", "coin", "mult8", "sat", "tictactoe"}
	got := Names()
	if len(got) != len(want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("names %v, want %v", got, want)
		}
		f, err := Latest(want[i])
		if err != nil {
			t.Fatal(err)
		}
		id, _ := challenge.New(want[i], f.Spec().Version, [32]byte{1})
		g, err := ForID(id)
		if err != nil || g.Spec() != f.Spec() {
			t.Fatalf("ForID(%s) = %v, %v", id, g, err)
		}
		if _, _, err := g.New().Reset(id); err != nil {
			t.Fatalf("reset %s: %v", id, err)
		}
	}
}

func TestUnknown(t *testing.T) {
	if _, err := Latest("chess"); err == nil {
		t.Fatal("unknown env found")
	}
	if _, err := Get("mult8", 99); err == nil {
		t.Fatal("unknown version found")
	}
}

func TestReferencesMatchCurrent(t *testing.T) {
	refs, cur := References(), Current()
	if len(refs) != len(cur) {
		t.Fatalf("%d references for %d envs", len(refs), len(cur))
	}
	for i := range refs {
		if refs[i].Factory.Spec() != cur[i].Spec() {
			t.Fatalf("reference %d is %s, env %d is %s", i, refs[i].Factory.Spec().Name, i, cur[i].Spec().Name)
		}
	}
}

// TestRefusedResetEndsTheEpisode: a Reset refused (another env's ID) left
// the previous challenge in place, and a Step meant for the refused ID was
// scored against it.
func TestRefusedResetEndsTheEpisode(t *testing.T) {
	for _, f := range Current() {
		e := f.New()
		own, _ := challenge.New(f.Spec().Name, f.Spec().Version, [32]byte{2})
		if _, _, err := e.Reset(own); err != nil {
			t.Fatalf("%s: reset %s: %v", f.Spec().Name, own, err)
		}
		other, _ := challenge.New(f.Spec().Name, f.Spec().Version+1, [32]byte{3})
		if _, _, err := e.Reset(other); err == nil {
			t.Fatalf("%s: reset of %s accepted", f.Spec().Name, other)
		}
		if _, err := e.Step("<answer>1</answer>"); !errors.Is(err, envs.ErrNotStarted) {
			t.Errorf("%s: step after a refused reset: %v, want %v", f.Spec().Name, err, envs.ErrNotStarted)
		}
	}
}
