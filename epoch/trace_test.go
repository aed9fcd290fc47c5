package epoch

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/internal/syncbuf"
	"github.com/affine-ledger/ledger/metrics"
	"github.com/affine-ledger/ledger/metrics/metricstest"
)

// logLines is a JSON log a test reads back.
type logLines struct{ syncbuf.Buffer }

func (l *logLines) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// find returns the first line whose message is msg.
func (l *logLines) find(t *testing.T, msg string) map[string]any {
	t.Helper()
	text := l.String()
	for line := range strings.SplitSeq(text, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == msg {
			return rec
		}
	}
	t.Errorf("no log line %q in:\n%s", msg, text)
	return map[string]any{}
}

// metricValue is the value of the series name{labels}, -1 if absent.
func metricValue(t *testing.T, m *metrics.Metrics, name string, labels ...string) float64 {
	t.Helper()
	if v, ok := metricstest.Value(t, m, name, labels...); ok {
		return v
	}
	return -1
}

// TestEpochTrace: an epoch left no trace: no log line and no metric said
// that the checkpoint was committed, who won, or that weights were set for
// which uid. Each is logged at INFO and counted.
func TestEpochTrace(t *testing.T) {
	w, d, logs, m := tracedDriver(t)
	ctx := context.Background()
	if _, err := d.Step(ctx, 1); err != nil {
		t.Fatal(err)
	}
	con, uid := w.con.Public().String(), float64(w.uid(t, w.con.Public()))
	h, err := w.store.Head(w.keys[0].Public())
	if err != nil {
		t.Fatal(err)
	}
	if l := logs.find(t, "epoch: checkpoint committed on-chain"); l["level"] != "INFO" || l["epoch"] != 1.0 || l["height"] != float64(h.Block.Height) || l["transcripts"] != float64(h.Checkpoint.Size) {
		t.Errorf("commitment logged as %v; want height %d, %d transcripts", l, h.Block.Height, h.Checkpoint.Size)
	}
	if l := logs.find(t, "epoch: consensus winner"); l["level"] != "INFO" || l["winner"] != con || l["uid"] != uid || l["champion_held"] != false || l["dethrones"] != 1.0 || l["standing_votes"] != 0.0 {
		t.Errorf("winner logged as %v; want %s, uid %v, dethroning", l, con, uid)
	}
	if l := logs.find(t, "epoch: weights set"); l["level"] != "INFO" || l["uid"] != uid || l["winner"] != con {
		t.Errorf("weights logged as %v; want uid %v of %s", l, uid, con)
	}
	// The next epoch's checkpoint is unchanged: not committed again, nor
	// counted.
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Step(ctx, 2); err != nil {
		t.Fatal(err)
	}
	logs.find(t, "epoch: checkpoint already committed on-chain")
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"ledger_epoch", nil, 2},
		{"ledger_epochs_total", []string{"result", metrics.EpochWinner}, 2},
		{"ledger_epochs_total", []string{"result", metrics.EpochFailed}, 0},
		{"ledger_epoch_commitments_total", nil, 1},
		{"ledger_epoch_weights_total", []string{"mode", metrics.WeightsSet}, 2},
		{"ledger_epoch_weights_total", []string{"mode", metrics.WeightsCommitted}, 0},
	} {
		if got := metricValue(t, m, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

// TestEpochTraceNoWinner: an epoch with no champion says so, and why,
// and is counted as one without a winner.
func TestEpochTraceNoWinner(t *testing.T) {
	w := newWorld(t, false)
	ctx := context.Background()
	// A chain of the same validators on which no miner committed: the
	// queue gives no first champion.
	g := local.DefaultGenesis()
	g.Seed, g.Tempo, g.BlockTime = t.Name(), tempo, local.Duration(time.Second)
	for i, k := range w.keys {
		g.Neurons = append(g.Neurons, local.GenesisNeuron{Hotkey: k.Public(), Stake: stakes[i], Validator: true})
	}
	c, err := local.New(local.Options{Genesis: &g, Manual: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	var logs logLines
	m := metrics.New()
	d, err := New(Config{Chain: c, Store: w.store, Key: w.keys[0], Logger: logs.logger(), Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := d.Step(ctx, 1)
	if err != nil || rep.Weights != nil {
		t.Fatalf("epoch 1: %v, weights %+v; want none", err, rep.Weights)
	}
	if l := logs.find(t, "epoch: no consensus winner"); l["level"] != "INFO" || !strings.Contains(fmt.Sprint(l["why"]), "no miner was queued") {
		t.Errorf("logged %v; want why there is no winner", l)
	}
	if got := metricValue(t, m, "ledger_epochs_total", "result", metrics.EpochNoWinner); got != 1 {
		t.Errorf("ledger_epochs_total{result=no_winner} = %v, want 1", got)
	}
}

// TestEpochLogsWhoseBlocksAreMissing: "computing with blocks missing"
// named the epoch only; it names the validators whose blocks the store
// lacks, and where their heads stand, and counts the epoch.
func TestEpochLogsWhoseBlocksAreMissing(t *testing.T) {
	w, d, logs, m := tracedDriver(t)
	ctx := context.Background()
	p, err := w.chain.Params(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Epoch 1 is due (the head is past its boundary and the settle), and
	// the loop has waited its longest for it: every other validator's
	// head is anchored at block 3, before the boundary.
	l := &loop{p: p, sched: p.Schedule(), settle: 1, next: 1, waitFrom: 1}
	d.tick(ctx, l)
	if l.next != 2 {
		t.Fatalf("the tick did not run epoch 1: next %d", l.next)
	}
	rec := logs.find(t, "epoch: computing with blocks missing")
	missing, _ := rec["missing"].(string)
	if rec["epoch"] != 1.0 || rec["validators"] != 3.0 {
		t.Errorf("logged %v; want epoch 1, 3 validators", rec)
	}
	for _, k := range w.keys[1:] {
		if !strings.Contains(missing, k.Public().String()+": head anchored at block 3") {
			t.Errorf("missing %q does not name %s and its head's anchor", missing, k.Public())
		}
	}
	if strings.Contains(missing, w.keys[0].Public().String()) {
		t.Errorf("missing %q names the validator itself", missing)
	}
	if got := metricValue(t, m, "ledger_epochs_incomplete_total"); got != 1 {
		t.Errorf("ledger_epochs_incomplete_total = %v, want 1", got)
	}
}

// tracedDriver is validator 0's driver in a new world a tempo on, its logs
// and metrics kept for the test to read.
func tracedDriver(t *testing.T) (*world, *Driver, *logLines, *metrics.Metrics) {
	t.Helper()
	w := newWorld(t, false)
	if err := w.chain.Advance(tempo); err != nil {
		t.Fatal(err)
	}
	logs := &logLines{}
	m := metrics.New()
	d, err := New(Config{Chain: w.chain, Store: w.store, Key: w.keys[0], Champion: duel.Side{Hotkey: w.champ.Public()}, Logger: logs.logger(), Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	return w, d, logs, m
}
