package validator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Miners that are slow, fail with HTTP errors, send garbage or hang lose
// their challenges: their transcripts record the error and reward 0, and
// the loop goes on to the next contender.
func TestFailingMinersLoseAndLoopGoesOn(t *testing.T) {
	t.Parallel()
	n := newNet(t,
		minerSpec{name: "Champ", strategy: "perfect"},
		minerSpec{name: "Slow", strategy: "slow:10s"},
		minerSpec{name: "Flaky", strategy: "flaky:1"},
		minerSpec{name: "Garbage", strategy: "garbage"},
		minerSpec{name: "Hang", strategy: "hang"},
	)
	s := openStore(t, t.TempDir())
	defer s.Close()
	cfg := n.config(s, nil)
	cfg.Envs = fastEnvs(t)
	cfg.Rule = shortRule()
	// One attempt of at most a second: slow and hang time out, flaky's 500
	// and garbage's body are not retried.
	cfg.Client = inference.New(inference.Options{Timeout: time.Second, MaxAttempts: 1, PerMiner: 16, Overall: 128})
	v := newValidator(t, cfg)
	defer v.Close()

	n.autoAdvance(t, 5*time.Millisecond)
	runDuels(t, testCtx(t, 40*time.Second), v, 4)
	h := v.History()
	for _, e := range h.Entries {
		if e.Winner != "champion" || e.Champion.Hotkey != n.miners["Champ"].Hotkey {
			t.Fatalf("duel %+v", e)
		}
	}
	// What each failure looks like in a transcript: the HTTP status of
	// the last attempt and a word of the error.
	want := map[string]struct {
		status uint16
		err    string
	}{
		"Slow": {0, "timed out"}, "Hang": {0, "timed out"},
		"Flaky": {500, "HTTP 500"}, "Garbage": {200, ""},
	}
	for name, w := range want {
		m := n.miners[name]
		asked, unasked := 0, 0
		for ref, err := range s.TranscriptsByMiner(m.Hotkey) {
			if err != nil {
				t.Fatal(err)
			}
			st, err := s.Transcript(ref.CID)
			if err != nil {
				t.Fatal(err)
			}
			if tr := st.Transcript; tr.Attempts == 0 {
				// Past unansweredLimit challenges without an answer the
				// duel stops asking: lost, with no call.
				if !strings.HasPrefix(tr.Error, "not asked: ") || tr.Reward != 0 || tr.HTTPStatus != 0 || tr.Usage != nil {
					t.Fatalf("%s: unasked transcript of %s: error %q, reward %d, status %d", name, tr.Challenge, tr.Error, tr.Reward, tr.HTTPStatus)
				}
				unasked++
				continue
			}
			checkFailed(t, name, st.Transcript, w.status, w.err)
			asked++
		}
		// Miners that answer, if only with an error, are asked every
		// time (TestHangingMinerIsNotAskedAllDuel: those that never do).
		switch {
		case asked == 0:
			t.Fatalf("%s: no transcripts", name)
		case w.status != 0 && unasked != 0:
			t.Fatalf("%s, which answers with errors, was not asked %d times", name, unasked)
		}
	}
	v.Close()
	audit(t, s, n.key.Public(), h)
}

func checkFailed(t *testing.T, name string, tr *record.Transcript, status uint16, word string) {
	t.Helper()
	if tr.Error == "" || !strings.Contains(tr.Error, word) || tr.Reward != 0 || tr.HTTPStatus != status || tr.Attempts != 1 || tr.Usage != nil {
		t.Fatalf("%s: transcript of %s: error %q, reward %d, status %d, attempts %d, usage %v", name, tr.Challenge, tr.Error, tr.Reward, tr.HTTPStatus, tr.Attempts, tr.Usage)
	}
	if tr.Miner.Model != "test/"+name || tr.Miner.Revision != "r1" || len(tr.Miner.ModelHash) != 32 || !strings.HasPrefix(tr.Miner.Endpoint, "http://127.0.0.1:") {
		t.Fatalf("%s: miner identity %+v", name, tr.Miner)
	}
	if tr.StartedMS <= 0 || tr.FinishedMS < tr.StartedMS || tr.Invocation == (record.InvocationID{}) {
		t.Fatalf("%s: times %d..%d, invocation %s", name, tr.StartedMS, tr.FinishedMS, tr.Invocation)
	}
}

// TestHangingMinerIsNotAskedAllDuel: a contender that never answers is
// asked until 8 of its challenges in a row got nothing (and those out by
// then), not for every challenge of a duel whose first look comes late:
// at the network's timeouts each one would take half an hour.
func TestHangingMinerIsNotAskedAllDuel(t *testing.T) {
	t.Parallel()
	n := newNet(t, minerSpec{name: "Champ", strategy: "perfect"}, minerSpec{name: "Hang", strategy: "hang"})
	s := openStore(t, t.TempDir())
	defer s.Close()
	cfg := n.config(s, nil)
	mult8, err := registry.Latest("mult8")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Envs = []envs.Factory{mult8}
	// First look at 48 decisive outcomes, 2 challenges out at a time.
	cfg.Rule = duel.Rule{ZMilli: 1960, Looks: []uint32{48, 96}, MaxChallenges: 200}
	cfg.InFlight = 2
	cfg.Client = inference.New(inference.Options{Timeout: 100 * time.Millisecond, MaxAttempts: 1, PerMiner: 16, Overall: 128})
	v := newValidator(t, cfg)
	defer v.Close()
	n.autoAdvance(t, 5*time.Millisecond)
	runDuels(t, testCtx(t, 60*time.Second), v, 1)
	if e := v.History().Entries; len(e) != 1 || e[0].Winner != "champion" {
		t.Fatalf("duels %+v, want the champion's win", e)
	}
	asked, unasked := 0, 0
	for ref, err := range s.TranscriptsByMiner(n.miners["Hang"].Hotkey) {
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Transcript(ref.CID)
		if err != nil {
			t.Fatal(err)
		}
		if st.Attempts == 0 {
			unasked++
		} else {
			asked++
		}
	}
	if asked > 8+cfg.InFlight || asked+unasked < 48 {
		t.Fatalf("the hanging miner was asked %d times and not asked %d: want at most %d asked of at least 48", asked, unasked, 8+cfg.InFlight)
	}
	v.Close()
	audit(t, s, n.key.Public(), v.History())
}
