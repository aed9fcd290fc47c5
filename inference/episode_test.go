package inference_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/miner"
	"github.com/affine-ledger/ledger/miner/minertest"
)

// replays checks that an episode record is what the env says its actions
// score, as an auditor would.
func replays(t *testing.T, f envs.Factory, rec inference.EpisodeRecord) {
	t.Helper()
	again, err := envs.Replay(f, rec.ID, envtest.Actions(rec.Messages))
	if err != nil {
		t.Fatalf("%s: replay: %v", rec.ID, err)
	}
	if !reflect.DeepEqual(again.Messages, rec.Messages) || !reflect.DeepEqual(again.Rewards, rec.Rewards) || again.Reward != rec.Reward || again.Reason != rec.Reason || !again.Done {
		t.Fatalf("%s: replay differs from the record", rec.ID)
	}
}

func TestPlaySingleTurn(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: miner.Strategy{Kind: miner.Perfect}})
	c := inference.New(fast(inference.Options{}))
	for _, id := range envtest.IDs(minertest.Add, 10) {
		rec, err := inference.Play(context.Background(), c, ep, minertest.Add, id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Reward != 1 || len(rec.Calls) != 1 || rec.Error != "" || rec.Calls[0].Attempts != 1 || len(rec.Messages) != 3 {
			t.Fatalf("%s: %+v", id, rec)
		}
		replays(t, minertest.Add, rec)
	}
}

// recorder wraps a handler and remembers how many messages each request
// carried.
type recorder struct {
	mu     sync.Mutex
	counts []int
	next   http.Handler
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var in inference.ChatRequest
	raw, _ := io.ReadAll(http.MaxBytesReader(w, req.Body, 1<<20))
	if err := json.Unmarshal(raw, &in); err == nil {
		r.mu.Lock()
		r.counts = append(r.counts, len(in.Messages))
		r.mu.Unlock()
	}
	req.Body = io.NopCloser(bytes.NewReader(raw))
	r.next.ServeHTTP(w, req)
}

func TestPlayMultiTurnSendsWholeConversation(t *testing.T) {
	srv := miner.NewServer(miner.Config{Strategy: miner.Strategy{Kind: miner.Perfect}, Solvers: minertest.Solvers()})
	rec := &recorder{next: srv}
	hs := httptest.NewServer(rec)
	defer hs.Close()
	ep := inference.Endpoint{BaseURL: hs.URL + "/v1"}
	c := inference.New(fast(inference.Options{}))
	for _, id := range envtest.IDs(minertest.Guess, 10) {
		rec.counts = nil
		r, err := inference.Play(context.Background(), c, ep, minertest.Guess, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Reward != 1 || r.Error != "" || len(r.Calls) != len(r.Rewards) {
			t.Fatalf("%s: reward %d (%s), %d calls for %d turns", id, r.Reward, r.Reason, len(r.Calls), len(r.Rewards))
		}
		// Turn k sends the first prompt, then k-1 pairs of guess and hint.
		for k, n := range rec.counts {
			if n != 1+2*k {
				t.Fatalf("%s: request %d carried %d messages, want %d", id, k, n, 1+2*k)
			}
		}
		if len(rec.counts) != len(r.Calls) {
			t.Fatalf("%s: %d requests for %d calls", id, len(rec.counts), len(r.Calls))
		}
		replays(t, minertest.Guess, r)
	}
}

func TestPlayFailureScoresTheEmptyAnswer(t *testing.T) {
	cases := []struct {
		strategy string
		kind     string
		attempts int64 // a 200 with garbage is an answer, not retried
	}{
		{"flaky:1", inference.KindStatus, 2},
		{"garbage", inference.KindDecode, 1},
		{"hang", inference.KindTimeout, 2},
	}
	for _, tc := range cases {
		st, err := miner.ParseStrategy(tc.strategy)
		if err != nil {
			t.Fatal(err)
		}
		_, ep := minertest.Start(t, miner.Config{Strategy: st})
		c := inference.New(fast(inference.Options{Timeout: 100 * time.Millisecond, MaxAttempts: 2}))
		for _, f := range []struct {
			factory envs.Factory
			want    int
		}{{minertest.Add, 0}, {minertest.Guess, -1}} {
			id := envtest.IDs(f.factory, 1)[0]
			r, err := inference.Play(context.Background(), c, ep, f.factory, id)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.strategy, id, err)
			}
			if r.Reward != f.want || r.Error == "" || len(r.Calls) != 1 || r.Calls[0].ErrorKind != tc.kind || r.Calls[0].Attempts != tc.attempts {
				t.Fatalf("%s %s: reward %d (%s), error %q, calls %+v", tc.strategy, id, r.Reward, r.Reason, r.Error, r.Calls)
			}
			if got := envtest.Actions(r.Messages); len(got) != 1 || got[0] != "" {
				t.Fatalf("%s: actions %q, want the one empty answer", tc.strategy, got)
			}
			replays(t, f.factory, r)
		}
	}
}

func TestPlayStopsOnCancel(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: miner.Strategy{Kind: miner.Hang}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := inference.Play(ctx, inference.New(inference.Options{}), ep, minertest.Guess, envtest.IDs(minertest.Guess, 1)[0])
	if !errors.Is(err, inference.ErrCanceled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a cancellation, not a score", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Play took %v after its context ended", d)
	}
}

func TestPlayRefusesAnotherEnvsID(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: miner.Strategy{Kind: miner.Perfect}})
	_, err := inference.Play(context.Background(), inference.New(fast(inference.Options{})), ep, minertest.Add, envtest.IDs(minertest.Guess, 1)[0])
	if !errors.Is(err, envs.ErrWrongEnv) {
		t.Fatalf("err = %v, want ErrWrongEnv", err)
	}
}
