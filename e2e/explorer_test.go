package e2e

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/explorer/explorertest"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestExplorerInBrowser walks the explorer over the explorertest fixture:
// a miner, its hostile transcript (shown as text, never as HTML), the
// proof download, a duel's curves and the overview pages.
func TestExplorerInBrowser(t *testing.T) {
	exe := chromium(t)
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	artifacts := artifactDir(t, "")

	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := explorertest.Fill(s)
	if err != nil {
		t.Fatal(err)
	}
	h, err := explorer.Handler(s, explorer.Options{Tempo: 100})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h) // 127.0.0.1
	defer srv.Close()

	ctx := browserSession(t, exe)
	sh := &shooter{t: t, dir: artifacts}

	// The miners list, then the weak miner's page by clicking its link.
	weak := f.Weak.Key.Public().String()
	step(t, ctx, "open the miners list", 20*time.Second, chromedp.Navigate(srv.URL+"/#/miners"), ready("#miners"))
	sh.shot(ctx, "miners")
	step(t, ctx, "open the weak miner", 20*time.Second,
		chromedp.Click(chromedp.CSS(`#miners a[href="#/miner/`+weak+`"]`)), ready("#miner-plot"), ready("#miner-transcript-table"))
	if n := eval[int](t, ctx, `document.querySelectorAll("#miner-plot circle").length`); n == 0 {
		t.Error("the miner's score plot has no points")
	}
	sh.shot(ctx, "miner")

	// The hostile transcript, by clicking its row.
	xss := f.XSS.String()
	step(t, ctx, "open the hostile transcript", 20*time.Second,
		chromedp.Click(chromedp.CSS(`#miner-transcript-table a[href="#/transcript/`+xss+`"]`)), ready("#conversation"), ready("#proof-link"))
	sh.shot(ctx, "transcript")
	st, err := s.Transcript(f.XSS)
	if err != nil {
		t.Fatal(err)
	}
	contents := checkConversation(t, ctx, st)
	if !strings.Contains(strings.Join(contents, "\n"), explorertest.XSSReply) {
		t.Error("the hostile reply is not shown as text")
	}
	if eval[bool](t, ctx, `window.__xss !== undefined || document.querySelector("#conversation img, #conversation script, #conversation b") !== null`) {
		t.Fatal("model output was interpreted as HTML")
	}
	score := eval[string](t, ctx, `document.getElementById("score").textContent`)
	reason := eval[string](t, ctx, `document.getElementById("reason").textContent`)
	if want := shownScore(t, st, 3); score != want || reason != st.Reason {
		t.Errorf("score %q reason %q shown, want %q and %q", score, reason, want, st.Reason)
	}

	// The proof downloads through the browser and verifies offline.
	checkProofFile(t, download(t, ctx, "#proof-link"), artifacts, st)

	// A duel: the contender's win-rate curves with their bands.
	step(t, ctx, "open a duel", 20*time.Second, chromedp.Navigate(srv.URL+"/#/duel/"+f.Duels[0].String()), ready("#curve-mult8"))
	if n := eval[int](t, ctx, `document.querySelectorAll("svg.plot polygon.band").length`); n != len(f.Results[0].Envs) {
		t.Errorf("%d Wilson bands drawn, the duel has %d envs", n, len(f.Results[0].Envs))
	}
	sh.shot(ctx, "duel")
	for _, page := range []struct{ name, hash, sel string }{
		{"overview", "#/", "#validators"},
		{"vtrust", "#/vtrust", "#vtrust-table"},
		{"leaderboard", "#/leaderboard", "#leaderboard"},
		{"validators", "#/validators", "#validators"},
	} {
		step(t, ctx, "open "+page.name, 20*time.Second, chromedp.Navigate(srv.URL+"/"+page.hash), ready(page.sel))
		sh.shot(ctx, page.name)
	}
}
