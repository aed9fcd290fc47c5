package validator_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/miner"
	"github.com/affine-ledger/ledger/miner/minertest"
	"github.com/affine-ledger/ledger/validator"
	"github.com/affine-ledger/ledger/verify"
)

// fixedMiner answers every chat completion with content and counts the
// requests it got.
type fixedMiner struct {
	content  string
	requests atomic.Int64
}

func (m *fixedMiner) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.requests.Add(1)
	body, _ := json.Marshal(map[string]any{
		"model":   "fixed",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": m.content}}},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// fixedNet is a local chain with a perfect reference miner "Champ"
// committed first (the first champion) and a miner "Fixed" that answers
// every request with content.
func fixedNet(t *testing.T, content string) (*testNet, *fixedMiner) {
	t.Helper()
	n := chainWith(t, []string{"Champ", "Fixed"})
	_, champEP := minertest.Start(t, miner.Config{Strategy: miner.Strategy{Kind: miner.Perfect}, Model: "test/Champ", Solvers: miner.EnvSolvers()})
	fm := &fixedMiner{content: content}
	hs := httptest.NewServer(fm)
	t.Cleanup(hs.Close)
	eps := map[string]inference.Endpoint{"Champ": champEP, "Fixed": {BaseURL: hs.URL + "/v1"}}
	for _, name := range []string{"Champ", "Fixed"} {
		hash := sha256.Sum256([]byte(name))
		mc := chain.MinerCommitment{Model: "test/" + name, Revision: "r1", Endpoint: eps[name].BaseURL, ModelHash: hash[:]}
		fields, err := mc.Fields()
		if err != nil {
			t.Fatalf("miner %s: %v", name, err)
		}
		if err := n.chain.SetCommitment(context.Background(), n.keys[name], fields); err != nil {
			t.Fatalf("miner %s: commit: %v", name, err)
		}
		n.advance(t)
	}
	q, err := validator.Queue(context.Background(), n.chain)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range q {
		for name, k := range n.keys {
			if k.Public() == m.Hotkey {
				n.miners[name] = m
			}
		}
	}
	return n, fm
}

// A sat answer naming an out-of-range variable of 5,000 digits scores 0
// with the reason "variable 999...9 out of range" (spec/envs/sat.md quotes
// the digits "of any length"), over the transcript's 4,096-byte limit. The
// transcript records the reason cut (record.RecordedReason), so the pair
// is recorded and the duel is decided: lost by the contender at the first
// look (8 losses against a perfect champion). Before the cut, the ledger
// refused every pair and the validator drew counter after counter
// forever; the test gives up once the miner was asked 400 times.
func TestOverlongReasonDoesNotStallTheDuel(t *testing.T) {
	t.Parallel()
	n, fm := fixedNet(t, "<answer>x"+strings.Repeat("9", 5000)+"=1</answer>")
	s := openStore(t, t.TempDir())
	defer s.Close()
	cfg := n.config(s, nil)
	sat, err := registry.Latest("sat")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Envs = []envs.Factory{sat}
	cfg.Rule = shortRule()
	v := newValidator(t, cfg)
	defer v.Close()

	ctx, cancel := context.WithCancel(testCtx(t, 120*time.Second))
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := v.RunDuel(ctx, n.miners["Champ"], n.miners["Fixed"])
		done <- err
	}()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("RunDuel: %v", err)
			}
			if h := v.History(); len(h.Entries) != 1 || h.Entries[0].Winner != "champion" {
				t.Fatalf("history %+v", h.Entries)
			}
			// The contender's transcripts hold the reason cut, and an
			// auditor's re-execution cuts its replay's alike.
			cut := 0
			for ref, err := range s.TranscriptsByMiner(n.miners["Fixed"].Hotkey) {
				if err != nil {
					t.Fatal(err)
				}
				st, err := s.Transcript(ref.CID)
				if err != nil {
					t.Fatal(err)
				}
				if len(st.Transcript.Reason) > 4096 || !strings.HasSuffix(st.Transcript.Reason, "...") {
					t.Fatalf("a reason of %d bytes: %.40q", len(st.Transcript.Reason), st.Transcript.Reason)
				}
				cut++
			}
			vk := n.key.Public()
			scope := verify.StoreScope{Validator: &vk}
			heads, err := verify.StoreHeads(s, scope)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := verify.VerifyStore(s, heads, scope, verify.Options{Reexecute: true, Challenges: verify.NewMemSet()})
			if err != nil || !rep.OK || cut == 0 || rep.Reexecuted < cut {
				t.Fatalf("verify of %d cut reasons: %v: %+v", cut, err, rep)
			}
			return
		default:
		}
		if fm.requests.Load() > 400 {
			cancel()
			<-done
			t.Fatalf("the miner was asked %d times and the duel is not decided (%d transcripts stored): every pair is refused and passed over",
				fm.requests.Load(), countTranscripts(t, s, n.miners["Fixed"]))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// countTranscripts counts the store's transcripts of m.
func countTranscripts(t *testing.T, s *ledger.Store, m chain.Contender) int {
	t.Helper()
	return countOf(t, s, m.Hotkey)
}

func countOf(t *testing.T, s *ledger.Store, hk keys.PublicKey) int {
	t.Helper()
	n := 0
	for _, err := range s.TranscriptsByMiner(hk) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}
