package devnet_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/devnet"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/verify"
)

// TestDevnet runs a short devnet (three validators, four miners: the
// first champion, a perfect solver, a faulty one and a copy) and checks
// what the issue asks of it: a champion was crowned (the perfect solver
// dethroned the first), every validator set weights for it, every
// validator holds every chain, and every store verifies with
// re-execution.
func TestDevnet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a network for tens of seconds")
	}
	dir := filepath.Join(t.TempDir(), "net")
	var mu sync.Mutex
	kinds := map[devnet.Kind]int{}
	var url, scraped string
	var healthz int
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cfg := devnet.Config{Dir: dir, Validators: 3, Miners: 4, Duration: 100 * time.Second}
	if raceDetector {
		cfg.BlockTime, cfg.Tempo, cfg.Duration = time.Second, 16, 200*time.Second
	}
	cfg.Explorer = "127.0.0.1:0"
	cfg.Events = func(e devnet.Event) {
		mu.Lock()
		defer mu.Unlock()
		kinds[e.Kind]++
		switch e.Kind {
		case devnet.KindStarted:
			url = e.URL
		case devnet.KindStopping:
			// The nodes still run: read validator 0's metrics.
			scraped, healthz = get(t, url+"metrics"), status(t, url+"healthz")
		}
	}
	sum, err := devnet.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("devnet ran %.1f s; events %v", sum.Seconds, kinds)
	if healthz != http.StatusOK {
		t.Fatalf("/healthz answered %d", healthz)
	}
	for _, m := range []string{
		"ledger_appended_transcripts_total", `ledger_duels_decided_total{winner="contender"}`,
		"ledger_blocks_gossiped_total", "ledger_p2p_blocks_published_total",
	} {
		if v := metric(scraped, m); v <= 0 {
			t.Errorf("metric %s = %v, want > 0", m, v)
		}
	}
	// Peers' blocks arrive by gossip or, when a node is behind, by sync.
	gossip, sync := metric(scraped, `ledger_blocks_received_total{source="gossip"}`), metric(scraped, `ledger_blocks_received_total{source="sync"}`)
	if gossip < 0 || sync < 0 || gossip+sync <= 0 {
		t.Errorf("blocks received: %v by gossip, %v by sync", gossip, sync)
	}
	if v := metric(scraped, "ledger_peers"); v != 2 {
		t.Errorf("ledger_peers = %v, want 2", v)
	}
	if !sum.Goal {
		t.Fatalf("goal not reached in %.0f s: champion %+v, epoch %d, weights %+v, problems %v", sum.Seconds, sum.Champion, sum.Epoch, sum.Weights, sum.Problems)
	}
	if sum.Champion == nil || sum.Champion.Role != devnet.RoleStrong {
		t.Fatalf("champion %+v, want the strong miner", sum.Champion)
	}
	if len(sum.Weights) != 3 {
		t.Fatalf("%d validators have weights on the chain, want 3", len(sum.Weights))
	}
	for _, w := range sum.Weights {
		if len(w.UIDs) != 1 || w.UIDs[0] != sum.Weights[0].UIDs[0] {
			t.Fatalf("weights disagree: %+v", sum.Weights)
		}
	}
	for _, du := range sum.Duels {
		if sum.Miners[du.Contender].Role == devnet.RoleCopy {
			t.Fatalf("validator %d dueled the copy", du.Validator)
		}
	}
	for _, st := range sum.Stores {
		if !st.OK || st.Chains != 3 {
			t.Fatalf("store of validator %d: ok %v, %d chains, failures %v", st.Validator, st.OK, st.Chains, st.Failures)
		}
	}
	for _, r := range sum.VTrust {
		if r.HardFault || r.VTrustPPM < 900_000 {
			t.Fatalf("honest validator %d at vTrust %d ppm", r.Validator, r.VTrustPPM)
		}
	}
	// Every store holds every chain, each to the same head.
	var first map[string]uint64
	for i := range 3 {
		s, err := verify.OpenStore(node.StoreDir(devnet.ValidatorDir(dir, i)))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]uint64{}
		for h, err := range s.Heads() {
			if err != nil {
				t.Fatal(err)
			}
			got[h.Block.Validator.String()] = h.Block.Height
		}
		s.Close()
		if len(got) != 3 {
			t.Fatalf("store %d holds %d chains, want 3", i, len(got))
		}
		if first == nil {
			first = got
		} else if fmt.Sprint(got) != fmt.Sprint(first) {
			t.Fatalf("store %d heads %v, store 0 heads %v", i, got, first)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, url string) string {
	resp, err := http.Get(url)
	if err != nil {
		t.Errorf("GET %s: %v", url, err)
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func status(t *testing.T, url string) int {
	resp, err := http.Get(url)
	if err != nil {
		t.Errorf("GET %s: %v", url, err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// metric returns the value of the sample named name (with its labels) in
// a Prometheus text exposition, -1 if absent.
func metric(text, name string) float64 {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return f
			}
		}
	}
	return -1
}
