package miner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/miner"
	"github.com/affine-ledger/ledger/miner/minertest"
)

func strategy(t testing.TB, s string) miner.Strategy {
	t.Helper()
	st, err := miner.ParseStrategy(s)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// client is a validator's client with short waits; attempts 1 unless said.
func client(o inference.Options) *inference.Client {
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 1
	}
	o.BaseBackoff, o.MaxBackoff = time.Millisecond, 5*time.Millisecond
	o.PerMiner, o.Overall = 8, 8
	return inference.New(o)
}

// playAll plays n episodes of f and returns the rewards.
func playAll(t *testing.T, c *inference.Client, ep inference.Endpoint, f envs.Factory, n int) []inference.EpisodeRecord {
	t.Helper()
	var out []inference.EpisodeRecord
	for _, id := range envtest.IDs(f, n) {
		rec, err := inference.Play(context.Background(), c, ep, f, id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

func rate(recs []inference.EpisodeRecord, pred func(inference.EpisodeRecord) bool) float64 {
	n := 0
	for _, r := range recs {
		if pred(r) {
			n++
		}
	}
	return float64(n) / float64(len(recs))
}

func won(r inference.EpisodeRecord) bool    { return r.Reward == 1 }
func failed(r inference.EpisodeRecord) bool { return r.Error != "" }

func TestPerfectSolvesEverything(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: strategy(t, "perfect")})
	c := client(inference.Options{})
	for _, f := range []envs.Factory{minertest.Add, minertest.Guess} {
		recs := playAll(t, c, ep, f, 40)
		if r := rate(recs, won); r != 1 {
			t.Fatalf("%s: perfect won %.2f of episodes", f.Spec().Name, r)
		}
		if recs[0].Calls[0].Fingerprint != miner.DefaultModelHash(strategy(t, "perfect"), 0) || recs[0].Calls[0].ServedModel != "ledger-miner/perfect" {
			t.Fatalf("identity: %+v", recs[0].Calls[0])
		}
	}
}

// Rates below are measured over 400 episodes. With a fixed seed they are
// exact, reproducible figures; the tolerance of 0.07 (about 3 standard
// deviations of a binomial at P=0.3, n=400) is what a correct
// implementation with any seed would meet almost always.
const n, tolerance = 400, 0.07

func TestNoisyIsRightAtRateP(t *testing.T) {
	for _, p := range []float64{0.3, 0.8} {
		_, ep := minertest.Start(t, miner.Config{Strategy: strategy(t, fmt.Sprintf("noisy:%g", p)), Seed: 11})
		recs := playAll(t, client(inference.Options{}), ep, minertest.Add, n)
		r := rate(recs, won)
		t.Logf("noisy:%g right on %.3f of %d", p, r, n)
		if r < p-tolerance || r > p+tolerance {
			t.Errorf("noisy:%g right on %.3f of %d episodes", p, r, n)
		}
		if rate(recs, failed) != 0 {
			t.Errorf("noisy:%g had failed calls", p)
		}
	}
}

func TestNoisyIsDeterministic(t *testing.T) {
	cfg := miner.Config{Strategy: strategy(t, "noisy:0.5"), Seed: 3}
	_, a := minertest.Start(t, cfg)
	_, b := minertest.Start(t, cfg)
	cfg.Seed = 4
	_, other := minertest.Start(t, cfg)
	c := client(inference.Options{})
	ra, rb, ro := playAll(t, c, a, minertest.Add, 60), playAll(t, c, b, minertest.Add, 60), playAll(t, c, other, minertest.Add, 60)
	differs := false
	for i := range ra {
		if ra[i].Messages[2].Content != rb[i].Messages[2].Content {
			t.Fatalf("episode %d: two miners with the same seed answered %q and %q", i, ra[i].Messages[2].Content, rb[i].Messages[2].Content)
		}
		differs = differs || ra[i].Messages[2].Content != ro[i].Messages[2].Content
	}
	if !differs {
		t.Fatal("a different --seed changed no answer in 60")
	}
}

func TestRandomIgnoresTheQuestion(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: strategy(t, "random")})
	recs := playAll(t, client(inference.Options{}), ep, minertest.Add, 50)
	answers := map[string]bool{}
	for _, r := range recs {
		if r.Reward != 0 || r.Error != "" {
			t.Fatalf("random scored %d (%s), error %q", r.Reward, r.Reason, r.Error)
		}
		answers[r.Messages[2].Content] = true
	}
	if len(answers) < 45 {
		t.Fatalf("only %d distinct random answers in 50", len(answers))
	}
}

func TestGarbageParsesToNothing(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: strategy(t, "garbage")})
	c := client(inference.Options{})
	id := envtest.IDs(minertest.Add, 1)[0]
	bodies := map[string]bool{}
	for i := 0; i < 50; i++ {
		msgs := []envs.Message{{Role: envs.RoleUser, Content: fmt.Sprint("question ", i)}}
		reply, err := c.Complete(context.Background(), ep, id, msgs)
		if !errors.Is(err, inference.ErrDecode) || reply.Content != "" || reply.Call.Status != 200 {
			t.Fatalf("request %d: err %v, content %q", i, err, reply.Content)
		}
		bodies[string(reply.Call.Raw)] = true
	}
	if len(bodies) < 4 {
		t.Fatalf("only %d distinct garbage bodies", len(bodies))
	}
}

func TestFlakyFailsAtRateP(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: strategy(t, "flaky:0.3"), Seed: 5})
	recs := playAll(t, client(inference.Options{MaxAttempts: 1}), ep, minertest.Add, n)
	r := rate(recs, failed)
	t.Logf("flaky:0.3 failed %.3f of %d single attempts", r, n)
	if r < 0.3-tolerance || r > 0.3+tolerance {
		t.Errorf("flaky:0.3 failed %.3f of %d single attempts", r, n)
	}
	for _, rec := range recs {
		if rec.Error != "" && rec.Calls[0].Status != 500 {
			t.Fatalf("flaky failure with status %d", rec.Calls[0].Status)
		}
		if rec.Error == "" && rec.Reward != 1 {
			t.Fatalf("flaky answered wrong when it answered: %s", rec.Reason)
		}
	}
}

func TestFlakyFaultsAreTransient(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: strategy(t, "flaky:0.5"), Seed: 5})
	recs := playAll(t, client(inference.Options{MaxAttempts: 4}), ep, minertest.Add, 200)
	retried := rate(recs, func(r inference.EpisodeRecord) bool { return r.Calls[0].Attempts > 1 && r.Error == "" })
	// Each attempt fails with P=0.5, so four fail together with 1/16.
	if f := rate(recs, failed); f > 0.15 || retried < 0.3 {
		t.Fatalf("with 4 attempts: %.3f failed, %.3f succeeded on a retry", f, retried)
	}
}

func TestHangIsCutByTheClientTimeout(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: strategy(t, "hang")})
	start := time.Now()
	reply, err := client(inference.Options{Timeout: 150 * time.Millisecond}).Complete(context.Background(), ep, envtest.IDs(minertest.Add, 1)[0],
		[]envs.Message{{Role: envs.RoleUser, Content: "hello"}})
	if !errors.Is(err, inference.ErrTimeout) || reply.Call.ErrorKind != inference.KindTimeout {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 2*time.Second {
		t.Fatalf("hang cut after %v, want about 150ms", d)
	}
}

func TestSlowDelays(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: strategy(t, "slow:300ms")})
	id := envtest.IDs(minertest.Add, 1)[0]
	rec, err := inference.Play(context.Background(), client(inference.Options{}), ep, minertest.Add, id)
	if err != nil || rec.Reward != 1 {
		t.Fatalf("slow: %v, reward %d", err, rec.Reward)
	}
	if l := rec.Calls[0].LatencyMS; l < 300 || l > 3000 {
		t.Fatalf("slow:300ms answered in %dms", l)
	}
	rec, err = inference.Play(context.Background(), client(inference.Options{Timeout: 100 * time.Millisecond}), ep, minertest.Add, id)
	if err != nil || rec.Reward != 0 || rec.Calls[0].ErrorKind != inference.KindTimeout {
		t.Fatalf("slow past the timeout: %v, %+v", err, rec.Calls)
	}
}

func TestCloseReleasesHeldRequests(t *testing.T) {
	for _, s := range []string{"hang", "slow:1h"} {
		srv, ep := minertest.Start(t, miner.Config{Strategy: strategy(t, s)})
		time.AfterFunc(100*time.Millisecond, srv.Close)
		start := time.Now()
		reply, err := client(inference.Options{}).Complete(context.Background(), ep, envtest.IDs(minertest.Add, 1)[0],
			[]envs.Message{{Role: envs.RoleUser, Content: "hello"}})
		if !errors.Is(err, inference.ErrStatus) || reply.Call.Status != http.StatusServiceUnavailable || time.Since(start) > 2*time.Second {
			t.Fatalf("%s after Close: err %v status %d after %v", s, err, reply.Call.Status, time.Since(start))
		}
	}
}

func TestUnknownConversationGetsFallback(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: strategy(t, "perfect")})
	reply, err := client(inference.Options{}).Complete(context.Background(), ep, envtest.IDs(minertest.Add, 1)[0],
		[]envs.Message{{Role: envs.RoleUser, Content: "Write a poem."}})
	if err != nil || reply.Content != miner.Fallback {
		t.Fatalf("reply %q, %v", reply.Content, err)
	}
}

func TestModelsAndCopies(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	_, a := minertest.Start(t, miner.Config{Strategy: strategy(t, "perfect"), Model: "org/model-a", ModelHash: hash})
	_, b := minertest.Start(t, miner.Config{Strategy: strategy(t, "noisy:0.9"), Model: "org/model-b", ModelHash: hash})
	for _, ep := range []inference.Endpoint{a, b} {
		resp, err := http.Get(ep.BaseURL + "/models")
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Data []struct {
				ID       string `json:"id"`
				Revision string `json:"revision"`
			} `json:"data"`
		}
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil || len(list.Data) != 1 || list.Data[0].ID != ep.Model || list.Data[0].Revision != hash {
			t.Fatalf("%s models: %+v, %v", ep.BaseURL, list, err)
		}
		reply, err := client(inference.Options{}).Complete(context.Background(), ep, envtest.IDs(minertest.Add, 1)[0],
			[]envs.Message{{Role: envs.RoleUser, Content: "hi"}})
		if err != nil || reply.Call.Fingerprint != hash {
			t.Fatalf("fingerprint %q, %v", reply.Call.Fingerprint, err)
		}
	}
}

func TestRefusedRequests(t *testing.T) {
	_, ep := minertest.Start(t, miner.Config{Strategy: strategy(t, "perfect"), Model: "org/m"})
	id, _ := challenge.New("addtest", 1, [32]byte{})
	other := ep
	other.Model = "org/other"
	if reply, err := client(inference.Options{MaxAttempts: 3}).Complete(context.Background(), other, id, []envs.Message{{Role: "user", Content: "x"}}); reply.Call.Status != 404 || reply.Call.Attempts != 1 || !strings.Contains(err.Error(), "not served") {
		t.Errorf("wrong model: status %d attempts %d err %v", reply.Call.Status, reply.Call.Attempts, err)
	}
	for name, body := range map[string]string{
		"not json":   `{`,
		"no message": `{"model":"org/m","messages":[]}`,
		"bad role":   `{"messages":[{"role":"tool","content":"x"}]}`,
		"stream":     `{"messages":[{"role":"user","content":"x"}],"stream":true}`,
	} {
		resp, err := http.Post(ep.BaseURL+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !bytes.Contains(msg, []byte(`"error"`)) {
			t.Errorf("%s: %d %s", name, resp.StatusCode, msg)
		}
	}
	resp, err := http.Post(ep.BaseURL+"/chat/completions", "application/json", bytes.NewReader(make([]byte, miner.MaxRequestBytes+1)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized request: %d", resp.StatusCode)
	}
	resp, err = http.Get(ep.BaseURL + "/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 && resp.StatusCode != 405 {
		t.Errorf("GET chat/completions: %d", resp.StatusCode)
	}
}

// BenchmarkRoundTrip measures one validator call to a perfect miner over
// loopback HTTP: the overhead the client and server add to a model's time.
func BenchmarkRoundTrip(b *testing.B) {
	_, ep := minertest.Start(b, miner.Config{Strategy: strategy(b, "perfect")})
	c := client(inference.Options{})
	ids := envtest.IDs(minertest.Add, 64)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := ids[i%len(ids)]
		obs, _, _ := minertest.Add.New().Reset(id)
		if _, err := c.Complete(context.Background(), ep, id, obs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
