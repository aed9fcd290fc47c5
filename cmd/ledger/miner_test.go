package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/internal/syncbuf"
)

var servingURL = regexp.MustCompile(`serving (http://127\.0\.0\.1:\d+/v1)`)

// startMiner runs `ledger miner serve` in-process on a free loopback port
// and returns its base URL and a function that stops it and returns the
// command's error.
func startMiner(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncbuf.Buffer
	root := newRootCmd()
	root.SetArgs(append([]string{"miner", "serve", "--listen", "127.0.0.1:0"}, args...))
	root.SetOut(&out)
	root.SetErr(&out)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if m := servingURL.FindStringSubmatch(out.String()); m != nil {
			stop := func() error {
				cancel()
				select {
				case err := <-done:
					return err
				case <-time.After(10 * time.Second):
					t.Fatal("miner serve did not stop")
					return nil
				}
			}
			t.Cleanup(func() { cancel() })
			return m[1], stop
		}
		select {
		case err := <-done:
			t.Fatalf("miner serve exited early: %v; output %q", err, out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("miner serve printed no address: %q", out.String())
	return "", nil
}

func TestMinerServeSolvesEveryEnv(t *testing.T) {
	url, stop := startMiner(t, "--strategy", "perfect", "--model", "org/m", "--model-hash", "feed")
	resp, err := http.Get(url + "/models")
	if err != nil {
		t.Fatal(err)
	}
	var models struct {
		Data []struct{ ID, Revision string } `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if len(models.Data) != 1 || models.Data[0].ID != "org/m" || models.Data[0].Revision != "feed" {
		t.Fatalf("models %+v", models)
	}
	c := inference.New(inference.Options{Timeout: 10 * time.Second})
	ep := inference.Endpoint{BaseURL: url, Model: "org/m"}
	for _, f := range registry.Current() {
		id := envtest.IDs(f, 1)[0]
		rec, err := inference.Play(context.Background(), c, ep, f, id)
		if err != nil || rec.Error != "" || rec.Calls[0].Fingerprint != "feed" {
			t.Fatalf("%s: %v %q %+v", id, err, rec.Error, rec.Calls)
		}
		if f.Spec().Name != "coin" && f.Spec().Name != "tictactoe" && rec.Reward != f.Spec().MaxReward {
			t.Errorf("%s: perfect miner scored %d (%s)", id, rec.Reward, rec.Reason)
		}
	}
	if err := stop(); err != nil {
		t.Fatalf("serve returned %v after interrupt, want nil", err)
	}
}

func TestMinerServeStopsWhileHanging(t *testing.T) {
	url, stop := startMiner(t, "--strategy", "hang")
	c := inference.New(inference.Options{MaxAttempts: 1})
	f := registry.Current()[0]
	errs := make(chan error, 1)
	go func() {
		_, err := inference.Play(context.Background(), c, inference.Endpoint{BaseURL: url}, f, envtest.IDs(f, 1)[0])
		errs <- err
	}()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("shutdown took %v with a hanging request", d)
	}
	if err := <-errs; err != nil {
		t.Fatalf("play: %v", err)
	}
}

func TestMinerServeRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"miner", "serve", "--strategy", "noisy:2"},
		{"miner", "serve", "--strategy", "psychic"},
		{"miner", "serve", "--listen", "not-an-address"},
		{"miner", "serve", "extra"},
	} {
		if _, code := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
