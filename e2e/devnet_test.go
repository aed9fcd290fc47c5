package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/devnet"
	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/validator"
)

// TestExplorerOnDevnet runs a short devnet (two validators; the first,
// strong and faulty miners of the roster), serves validator 0's store
// through the explorer and walks it in the browser as a user would: the
// miners list, the strong miner's page and score plot, its richest
// transcript (every message, the score and reason as recorded), that
// transcript's inclusion proof downloaded and verified offline, and the
// faulty miner's transcripts, every one scored 0.
func TestExplorerOnDevnet(t *testing.T) {
	exe := chromium(t)
	if testing.Short() {
		t.Skip("runs a devnet and a browser for tens of seconds")
	}
	artifacts := artifactDir(t, "devnet")

	dir := filepath.Join(t.TempDir(), "net")
	rctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// Warnings (a miner's failures above all) go to the test log.
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	var hist history
	cfg := devnet.Config{Dir: dir, Validators: 2, Miners: 3, Duration: 90 * time.Second, Logger: log, Events: hist.record}
	if raceDetector {
		// Several times slower: the chain slows down too, so that epochs
		// do not outrun the validators.
		cfg.BlockTime, cfg.Tempo = time.Second, 16
	}
	sum, err := devnet.Run(rctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("devnet ran %.1f s", sum.Seconds)
	if !sum.Goal {
		t.Logf("duels and epochs:\n%s", hist.String())
		t.Fatalf("goal not reached in %.0f s: champion %+v, epoch %d, problems %v", sum.Seconds, sum.Champion, sum.Epoch, sum.Problems)
	}
	if len(sum.Stores) == 0 || !sum.Stores[0].OK {
		t.Fatalf("validator 0's store does not verify: %+v", sum.Stores)
	}
	strong, faulty := roleMiner(t, sum, devnet.RoleStrong), roleMiner(t, sum, devnet.RoleFaulty)

	s, err := ledger.Open(node.StoreDir(devnet.ValidatorDir(dir, 0)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	strongRefs, faultyRefs := minerRefs(t, s, strong), minerRefs(t, s, faulty)
	if len(strongRefs) == 0 || len(faultyRefs) == 0 {
		t.Fatalf("validator 0's store holds %d transcripts of the strong miner and %d of the faulty one; the devnet should have dueled both",
			len(strongRefs), len(faultyRefs))
	}
	h, err := explorer.Handler(s, explorer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h) // 127.0.0.1
	defer srv.Close()

	ctx := browserSession(t, exe)
	sh := &shooter{t: t, dir: artifacts}

	// The miners list, then the strong miner's page by clicking its link.
	step(t, ctx, "open the miners list", 20*time.Second, chromedp.Navigate(srv.URL+"/#/miners"), ready("#miners"))
	sh.shot(ctx, "miners")
	step(t, ctx, "open the strong miner", 20*time.Second,
		chromedp.Click(chromedp.CSS(minerLink(strong))), ready("#miner-plot"), ready("#miner-transcript-table"))
	if n := eval[int](t, ctx, `document.querySelectorAll("#miner-plot circle").length`); n != min(len(strongRefs), 5000) {
		t.Errorf("the strong miner's score plot has %d points, the store %d transcripts", n, len(strongRefs))
	}
	rows := tableRows(t, ctx)
	if len(rows) != min(len(strongRefs), 200) {
		t.Fatalf("%d transcripts listed for the strong miner, the store holds %d", len(rows), len(strongRefs))
	}
	sh.shot(ctx, "strong-miner")

	// Its transcript with the longest conversation (a multi-turn env's, if
	// it played one), by clicking its row.
	var st ledger.StoredTranscript
	for _, r := range rows {
		t2 := storedTranscript(t, s, r.cid)
		if t2.Miner.Hotkey != strong {
			t.Fatalf("transcript %s of miner %s listed on the strong miner's page", r.cid, t2.Miner.Hotkey)
		}
		if st.Transcript == nil || len(t2.Conversation) > len(st.Conversation) {
			st = t2
		}
	}
	c := st.Ref.CID.String()
	step(t, ctx, "open a transcript of the strong miner", 20*time.Second,
		chromedp.Click(chromedp.CSS(`#miner-transcript-table a[href="#/transcript/`+c+`"]`)), ready("#conversation"), ready("#proof-link"))
	sh.shot(ctx, "transcript")
	if title := eval[string](t, ctx, `document.querySelector("h1").textContent`); !strings.Contains(title, c) {
		t.Errorf("transcript page titled %q, want transcript %s", title, c)
	}
	checkConversation(t, ctx, st)
	score := eval[string](t, ctx, `document.getElementById("score").textContent`)
	reason := eval[string](t, ctx, `document.getElementById("reason").textContent`)
	if want := shownScore(t, st, 3); score != want || reason != st.Reason {
		t.Errorf("score %q reason %q shown, want %q and %q", score, reason, want, st.Reason)
	}
	t.Logf("transcript %s: %s, %d messages, score %s", c, st.Env, len(st.Conversation), score)

	// The proof downloads through the browser and verifies offline.
	proved := checkProofFile(t, download(t, ctx, "#proof-link"), artifacts, st)
	if !isValidator(sum, dir, proved.Validator) {
		t.Errorf("the proof names %s, not a devnet validator", proved.Validator)
	}

	// The faulty miner: every transcript scored 0, its error shown.
	step(t, ctx, "back to the miners list", 20*time.Second, chromedp.Navigate(srv.URL+"/#/miners"), ready("#miners"))
	step(t, ctx, "open the faulty miner", 20*time.Second,
		chromedp.Click(chromedp.CSS(minerLink(faulty))), ready("#miner-plot"), ready("#miner-transcript-table"))
	sh.shot(ctx, "faulty-miner")
	rows = tableRows(t, ctx)
	if len(rows) != min(len(faultyRefs), 200) {
		t.Fatalf("%d transcripts listed for the faulty miner, the store holds %d", len(rows), len(faultyRefs))
	}
	for _, r := range rows {
		ft := storedTranscript(t, s, r.cid)
		if r.score != "0.00" || r.score != shownScore(t, ft, 2) {
			t.Errorf("faulty miner's transcript %s shown with score %q, recorded reward %d", r.cid, r.score, ft.Reward)
		}
		want := ft.Reason
		if ft.Error != "" {
			want = ft.Error
		}
		if r.reason != want {
			t.Errorf("faulty miner's transcript %s shows %q, recorded error %q reason %q", r.cid, r.reason, ft.Error, ft.Reason)
		}
	}
	if mean := eval[string](t, ctx, `[...document.querySelectorAll("dl.kv dt")].find(e => e.textContent === "mean score").nextElementSibling.textContent`); mean != "0.000" {
		t.Errorf("faulty miner's mean score shown as %q, want 0.000", mean)
	}
}

// history keeps the devnet's duel stages and epochs, to show why a run
// missed its goal.
type history struct {
	mu    sync.Mutex
	lines []string
}

func (h *history) record(e devnet.Event) {
	var line string
	switch {
	case e.Kind == devnet.KindDuel && e.Duel.Stage != validator.StageOutcome:
		d := e.Duel
		line = fmt.Sprintf("%5.1f s v%d duel %s: %s vs champion %s, winner %s %s",
			e.Elapsed.Seconds(), e.Validator, d.Stage, d.Contender.Short(), d.Champion.Short(), d.Winner, d.Reason)
	case e.Kind == devnet.KindEpoch:
		r := e.Epoch
		line = fmt.Sprintf("%5.1f s v%d epoch %d, window %+v: champion %s, %d changes, weights set %v",
			e.Elapsed.Seconds(), e.Validator, r.Epoch, r.Window, r.Output.Champion.Hotkey.Short(), len(r.Output.Changes), r.Weights != nil)
	default:
		return
	}
	h.mu.Lock()
	h.lines = append(h.lines, line)
	h.mu.Unlock()
}

func (h *history) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.lines, "\n")
}

func roleMiner(t *testing.T, sum *devnet.Summary, r devnet.Role) keys.PublicKey {
	t.Helper()
	for _, m := range sum.Miners {
		if m.Role == r {
			return m.Hotkey
		}
	}
	t.Fatalf("the devnet has no %s miner", r)
	return keys.PublicKey{}
}

func isValidator(sum *devnet.Summary, dir string, k keys.PublicKey) bool {
	for i := range sum.Stores {
		kf, err := keys.ReadKeyFile(filepath.Join(devnet.ValidatorDir(dir, i), "hotkey.json"))
		if err == nil && kf.Public() == k {
			return true
		}
	}
	return false
}

func minerLink(k keys.PublicKey) string {
	return `#miners a[href="#/miner/` + k.String() + `"]`
}

func minerRefs(t *testing.T, s *ledger.Store, k keys.PublicKey) []ledger.TranscriptRef {
	t.Helper()
	var out []ledger.TranscriptRef
	for ref, err := range s.TranscriptsByMiner(k) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ref)
	}
	return out
}

func storedTranscript(t *testing.T, s *ledger.Store, c string) ledger.StoredTranscript {
	t.Helper()
	id, err := cid.Decode(c)
	if err != nil {
		t.Fatalf("transcript link %q: %v", c, err)
	}
	st, err := s.Transcript(id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// transcriptRow is a row of a transcript table as the page shows it.
type transcriptRow struct {
	cid, score, reason string
}

// tableRows reads #miner-transcript-table, finding its columns by their
// headers.
func tableRows(t *testing.T, ctx context.Context) []transcriptRow {
	t.Helper()
	raw := eval[[][]string](t, ctx, `(() => {
		const tb = document.getElementById("miner-transcript-table");
		const head = [...tb.querySelectorAll("thead th")].map(e => e.textContent);
		const col = (name) => head.indexOf(name);
		return [...tb.querySelectorAll("tbody tr")].map(tr => [
			tr.querySelector("a.transcript-link").getAttribute("href").replace("#/transcript/", ""),
			tr.cells[col("Score")].textContent, tr.cells[col("Reason")].textContent]);
	})()`)
	out := make([]transcriptRow, len(raw))
	for i, r := range raw {
		if len(r) != 3 {
			t.Fatalf("transcript table row %d: %q", i, r)
		}
		out[i] = transcriptRow{r[0], r[1], r[2]}
	}
	return out
}
