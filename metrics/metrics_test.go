package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/metrics"
	"github.com/affine-ledger/ledger/metrics/metricstest"
)

func TestUpdates(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	m.Appended(3, 2*time.Millisecond, nil)
	m.Appended(5, time.Millisecond, errors.New("disk full"))
	m.Gossiped()
	m.Received(metrics.SourceSync)
	m.Received("carrier pigeon")
	m.Rejected(metrics.RejectSignature)
	m.Rejected("<script>")
	m.SetPeers(4)
	m.SetSyncBacklog(17)
	m.DuelStarted()
	m.DuelStarted()
	m.DuelEnded(metrics.WinnerContender)
	m.DuelOutcome("mult8", metrics.OutcomeWin)
	m.DuelOutcome("mult8", metrics.OutcomeWin)
	m.DuelOutcome("Not An Env!", "tie")
	m.VerifyFailed(metrics.VerifyReexec)
	m.MinerError("timeout")
	m.MinerError("")
	m.MinerError("exploded")
	m.HTTPRequest("GET /api/v1/validators", 200, time.Millisecond)

	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"ledger_appended_transcripts_total", nil, 3},
		{"ledger_append_requests_total", nil, 2},
		{"ledger_append_failures_total", nil, 1},
		{"ledger_append_seconds", nil, 2},
		{"ledger_blocks_gossiped_total", nil, 1},
		{"ledger_blocks_received_total", []string{"source", "sync"}, 1},
		{"ledger_blocks_received_total", []string{"source", "gossip"}, 0},
		{"ledger_blocks_received_total", []string{"source", "other"}, 1},
		{"ledger_blocks_rejected_total", []string{"reason", "signature"}, 1},
		{"ledger_blocks_rejected_total", []string{"reason", "other"}, 1},
		{"ledger_peers", nil, 4},
		{"ledger_sync_backlog_blocks", nil, 17},
		{"ledger_duels_active", nil, 1},
		{"ledger_duels_decided_total", []string{"winner", "contender"}, 1},
		{"ledger_duels_decided_total", []string{"winner", "champion"}, 0},
		{"ledger_duel_challenges_total", []string{"env", "mult8", "outcome", "win"}, 2},
		{"ledger_duel_challenges_total", []string{"env", "other", "outcome", "other"}, 1},
		{"ledger_verify_failures_total", []string{"kind", "reexec"}, 1},
		{"ledger_miner_errors_total", []string{"kind", "timeout"}, 1},
		{"ledger_miner_errors_total", []string{"kind", "other"}, 1},
		{"ledger_http_requests_total", []string{"code", "200", "route", "GET /api/v1/validators"}, 1},
	} {
		got, ok := metricstest.Value(t, m, c.name, c.labels...)
		if !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if _, ok := metricstest.Value(t, m, "ledger_blocks_rejected_total", "reason", "<script>"); ok {
		t.Error("a reason outside the fixed set got its own series")
	}
}

func TestEnvLabelsBounded(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	for i := range 200 {
		m.DuelOutcome("env"+strings.Repeat("x", i%100)+string(rune('a'+i%26)), metrics.OutcomeDraw)
	}
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "ledger_duel_challenges_total" && len(f.GetMetric()) > 65 {
			t.Fatalf("%d env series, want at most 64 plus other", len(f.GetMetric()))
		}
	}
	if v, _ := metricstest.Value(t, m, "ledger_duel_challenges_total", "env", "other", "outcome", "draw"); v == 0 {
		t.Error("env names past the bound were not counted as other")
	}
}

func TestNilMetrics(t *testing.T) {
	t.Parallel()
	var m *metrics.Metrics
	m.Appended(1, time.Second, nil)
	m.Gossiped()
	m.Received(metrics.SourceGossip)
	m.Rejected(metrics.RejectParent)
	m.SetPeers(1)
	m.SetSyncBacklog(1)
	m.DuelStarted()
	m.DuelEnded("")
	m.DuelOutcome("mult8", metrics.OutcomeLoss)
	m.VerifyFailed(metrics.VerifyBlock)
	m.MinerError("status")
	m.HTTPRequest("x", 500, 0)
}

// TestStoreCollectorAndHandler appends to a real store and scrapes it over
// loopback.
func TestStoreCollectorAndHandler(t *testing.T) {
	t.Parallel()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key, err := keys.FromURI("//Alice")
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.NewAppender(key)
	if err != nil {
		t.Fatal(err)
	}
	for b := range 3 {
		var ts []record.Transcript
		for i := range 4 {
			ts = append(ts, recordtest.Transcript(key.Public(), uint64(b*4+i), 0))
		}
		if _, err := a.Append(context.Background(), recordtest.Anchor(uint64(b)), ts, nil); err != nil {
			t.Fatal(err)
		}
	}
	m := metrics.New()
	m.Registry().MustRegister(metrics.NewStoreCollector(s))
	for name, want := range map[string]float64{
		"ledger_store_chains": 1, "ledger_store_transcripts": 12, "ledger_store_blocks": 3, "ledger_store_equivocating_validators": 0,
	} {
		if got, ok := metricstest.Value(t, m, name); !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}

	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"ledger_store_transcripts 12", "ledger_peers 0", "go_goroutines", "process_"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("scrape lacks %q", want)
		}
	}
}
