package validator

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// A miner reports usage of its own choosing; inference accepts any count
// that fits an int64. Summed in int64, two calls of 2^63-1 prompt tokens
// wrapped to -2 and the transcript recorded usage null ("no call reported
// any", spec/validator.md), and three to 2^63-3, less than a single call
// reported. The sum stops at 2^64-1 instead.
func TestUsageSumDoesNotWrap(t *testing.T) {
	t.Parallel()
	var ttt registry.Reference
	for _, r := range registry.References() {
		if r.Factory.Spec().Name == "tictactoe" {
			ttt = r
		}
	}
	if ttt.Factory == nil {
		t.Fatal("no tictactoe reference")
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []envs.Message `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answer, _ := ttt.Solve(req.Messages)
		body, _ := json.Marshal(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": answer}}},
			"usage":   map[string]any{"prompt_tokens": int64(math.MaxInt64), "completion_tokens": 0},
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer hs.Close()
	client := inference.New(inference.Options{Timeout: 10 * time.Second, MaxAttempts: 1})
	ep := inference.Endpoint{BaseURL: hs.URL + "/v1", Model: "m"}
	v := keys.PublicKey{9}
	m := record.Miner{Hotkey: keys.PublicKey{3}, UID: 4, Model: "m", Revision: "r", ModelHash: make([]byte, 32), Endpoint: ep.BaseURL}
	for counter := uint64(0); counter < 16; counter++ {
		seed := record.Seed{Anchor: record.Anchor{Number: 1, Hash: record.Hash{1}}, Counter: counter}
		id, err := seed.Derive(v, "tictactoe", ttt.Factory.Spec().Version)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := inference.Play(context.Background(), client, ep, ttt.Factory, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Calls) < 2 {
			continue
		}
		now := time.Now()
		tr := newTranscript(v, m, record.DuelID{5}, seed, rec, now, now)
		if tr.Usage == nil || tr.Usage.PromptTokens != math.MaxUint64 {
			t.Fatalf("%d calls each reporting %d prompt tokens: transcript usage %+v", len(rec.Calls), int64(math.MaxInt64), tr.Usage)
		}
	}
}
