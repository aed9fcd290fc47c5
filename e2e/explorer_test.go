// Package e2e drives the explorer in a real browser: headless Chromium over
// the DevTools protocol (chromedp), against a ledger fixture served on
// 127.0.0.1.
//
// The test runs when a Chromium binary is found (LEDGER_CHROMIUM, else
// chromium, chromium-browser or google-chrome on PATH) and is skipped
// otherwise, so `go test ./...` passes on machines without one; with
// LEDGER_E2E=1 a missing browser fails it instead (CI sets it after
// `apt-get install -y chromium`). Screenshots go to the directory named by
// LEDGER_E2E_ARTIFACTS (default: the test's temporary directory).
package e2e

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/explorer/explorertest"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/validator"
	"github.com/affine-ledger/ledger/verify"
)

func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("LEDGER_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("LEDGER_E2E") == "1" {
		t.Fatal("LEDGER_E2E=1 but no Chromium found: apt-get install -y chromium, or set LEDGER_CHROMIUM")
	}
	t.Skip("no Chromium binary (set LEDGER_CHROMIUM or install chromium); skipping the browser test")
	return ""
}

// browserSession starts headless Chromium with a fresh profile.
func browserSession(t *testing.T, exe string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1300, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	// The first run starts the browser; it must not carry a timeout.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

type shooter struct {
	t   *testing.T
	dir string
	n   int
}

func (s *shooter) shot(ctx context.Context, name string) {
	s.t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		s.t.Fatalf("screenshot %s: %v", name, err)
	}
	s.n++
	path := filepath.Join(s.dir, fmt.Sprintf("%02d-%s.png", s.n, name))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		s.t.Fatal(err)
	}
	s.t.Logf("screenshot %s", path)
}

// step runs fn with a bounded context.
func step(t *testing.T, ctx context.Context, what string, d time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		// Show where the page was.
		if png, serr := chromedp.Run(ctx, chromedp.FullScreenshot(100)); serr == nil {
			path := filepath.Join(t.TempDir(), "failed.png")
			if dir := os.Getenv("LEDGER_E2E_ARTIFACTS"); dir != "" {
				path = filepath.Join(dir, "failed.png")
			}
			os.WriteFile(path, png, 0o644)
			t.Logf("screenshot of the failure: %s", path)
		}
		t.Fatalf("%s: %v", what, err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(sctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func TestExplorerInBrowser(t *testing.T) {
	exe := chromium(t)
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	artifacts := os.Getenv("LEDGER_E2E_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}

	s, err := ledger.Open(t.TempDir(), ledger.WithDecisionCheck(validator.CheckDecision))
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
	ready := func(sel string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(chromedp.CSS(sel))
	}

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
	contents := eval[[]string](t, ctx, `[...document.querySelectorAll("#conversation pre.content")].map(e => e.textContent)`)
	if len(contents) != len(st.Conversation) {
		t.Fatalf("%d messages shown, the transcript has %d", len(contents), len(st.Conversation))
	}
	for i, m := range st.Conversation {
		if contents[i] != m.Content {
			t.Errorf("message %d shown as %q, recorded %q", i, contents[i], m.Content)
		}
	}
	if !strings.Contains(strings.Join(contents, "\n"), explorertest.XSSReply) {
		t.Error("the hostile reply is not shown as text")
	}
	if eval[bool](t, ctx, `window.__xss !== undefined || document.querySelector("#conversation img, #conversation script, #conversation b") !== null`) {
		t.Fatal("model output was interpreted as HTML")
	}
	score := eval[string](t, ctx, `document.getElementById("score").textContent`)
	reason := eval[string](t, ctx, `document.getElementById("reason").textContent`)
	lo, hi := 0.0, 1.0
	if st.Env == "mult8" {
		lo, hi = 0, 1
	}
	if want := fmt.Sprintf("%.3f", (float64(st.Reward)-lo)/(hi-lo)); score != want || reason != st.Reason {
		t.Errorf("score %q reason %q shown, want %q and %q", score, reason, want, st.Reason)
	}

	// The proof downloads through the browser and verifies offline.
	dl := t.TempDir()
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	progress := chromedp.Events(dctx, browser.DownloadProgress)
	if err := chromedp.Do(dctx,
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
				Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dl, EventsEnabled: ptr(true),
			})
			return err
		}),
		chromedp.Click(chromedp.CSS("#proof-link")),
	); err != nil {
		t.Fatalf("download the proof: %v", err)
	}
	var file string
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("waiting for the download: %v", err)
		}
		if ev.State == browser.DownloadProgressStateCanceled {
			t.Fatal("download canceled")
		}
		if ev.State == browser.DownloadProgressStateCompleted {
			file = filepath.Join(dl, ev.GUID)
			break
		}
	}
	pf, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := verify.ReadProof(pf)
	pf.Close()
	if err != nil {
		t.Fatalf("downloaded proof: %v", err)
	}
	proved, err := verify.VerifyProof(p)
	if err != nil || proved.Transcript != xss || proved.Validator != st.Validator {
		t.Fatalf("downloaded proof: %+v, %v", proved, err)
	}
	if artifacts != "" {
		raw, _ := os.ReadFile(file)
		os.WriteFile(filepath.Join(artifacts, "inclusion-proof.json"), raw, 0o644)
	}

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

func ptr[T any](v T) *T { return &v }
