package validator_test

import (
	"strings"
	"testing"
	"time"

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
		count := 0
		for ref, err := range s.TranscriptsByMiner(m.Hotkey) {
			if err != nil {
				t.Fatal(err)
			}
			st, err := s.Transcript(ref.CID)
			if err != nil {
				t.Fatal(err)
			}
			checkFailed(t, name, st.Transcript, w.status, w.err)
			count++
		}
		if count == 0 {
			t.Fatalf("%s: no transcripts", name)
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
