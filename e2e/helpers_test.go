// Package e2e drives the explorer in a real browser: headless Chromium over
// the DevTools protocol (chromedp), against ledgers served on 127.0.0.1 —
// the explorertest fixture (explorer_test.go) and the store a short devnet
// run leaves behind (devnet_test.go).
//
// The tests run when a Chromium binary is found (LEDGER_CHROMIUM, else
// chromium, chromium-browser or google-chrome on PATH) and are skipped
// otherwise, so `go test ./...` passes on machines without one; with
// LEDGER_E2E=1 a missing browser fails them instead (CI sets it after
// `apt-get install -y chromium`). Screenshots go to the directory named by
// LEDGER_E2E_ARTIFACTS (default: the test's temporary directory), the
// devnet test's under devnet/ there.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/verify/proofs"
)

// chromium returns the browser to drive, or skips the test (fails it
// under LEDGER_E2E=1) when there is none.
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

// artifactDir is where a test keeps its screenshots: sub under
// LEDGER_E2E_ARTIFACTS, else a temporary directory.
func artifactDir(t *testing.T, sub string) string {
	t.Helper()
	dir := os.Getenv("LEDGER_E2E_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	dir = filepath.Join(dir, sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
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

// shooter numbers the screenshots of one test in dir.
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

// step runs actions with a bounded context; on failure it keeps a
// screenshot of where the page was, named for the test.
func step(t *testing.T, ctx context.Context, what string, d time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		if png, serr := chromedp.Run(ctx, chromedp.FullScreenshot(100)); serr == nil {
			dir := os.Getenv("LEDGER_E2E_ARTIFACTS")
			if dir == "" {
				dir = t.TempDir()
			}
			path := filepath.Join(dir, "failed-"+strings.ReplaceAll(t.Name(), "/", "-")+".png")
			os.WriteFile(path, png, 0o644)
			t.Logf("screenshot of the failure: %s", path)
		}
		t.Fatalf("%s: %v", what, err)
	}
}

func ready(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(sel))
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

// download clicks the link sel with downloads allowed and returns the
// path of the file the browser saved.
func download(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
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
		chromedp.Click(chromedp.CSS(sel)),
	); err != nil {
		t.Fatalf("download %s: %v", sel, err)
	}
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("waiting for the download of %s: %v", sel, err)
		}
		switch ev.State {
		case browser.DownloadProgressStateCanceled:
			t.Fatalf("download of %s canceled", sel)
		case browser.DownloadProgressStateCompleted:
			return filepath.Join(dl, ev.GUID)
		}
	}
	t.Fatalf("download of %s: no completion event", sel)
	return ""
}

// checkProofFile reads and verifies a downloaded inclusion proof and
// checks that it proves transcript of validator; it copies the file into
// artifacts.
func checkProofFile(t *testing.T, file, artifacts string, st ledger.StoredTranscript) proofs.Proved {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := proofs.ReadProof(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("downloaded proof: %v", err)
	}
	proved, err := proofs.VerifyProof(p)
	if err != nil {
		t.Fatalf("downloaded proof does not verify: %v", err)
	}
	if proved.Leaf == nil {
		t.Fatalf("downloaded proof proves no leaf: %+v", proved)
	}
	if proved.Transcript != st.Ref.CID.String() || proved.Validator != st.Validator || *proved.Leaf != st.Ref.Leaf {
		t.Fatalf("downloaded proof proves transcript %s leaf %d of %s, want %s leaf %d of %s",
			proved.Transcript, *proved.Leaf, proved.Validator, st.Ref.CID, st.Ref.Leaf, st.Validator)
	}
	os.WriteFile(filepath.Join(artifacts, "inclusion-proof.json"), raw, 0o644)
	return proved
}

// shownScore is the score the explorer must show for a transcript: the
// reward scaled by its env version's bounds (spec/api.md, "Scores"),
// with three decimals.
func shownScore(t *testing.T, st ledger.StoredTranscript, digits int) string {
	t.Helper()
	f, err := registry.Get(st.Env, st.EnvVersion)
	if err != nil {
		t.Fatalf("transcript %s: %v", st.Ref.CID, err)
	}
	spec := f.Spec()
	lo, hi := float64(spec.MinReward), float64(spec.MaxReward)
	v := min(max((float64(st.Reward)-lo)/(hi-lo), 0), 1)
	return fmt.Sprintf("%.*f", digits, v)
}

// checkConversation compares the conversation the transcript page shows
// with the stored one, message by message.
func checkConversation(t *testing.T, ctx context.Context, st ledger.StoredTranscript) []string {
	t.Helper()
	roles := eval[[]string](t, ctx, `[...document.querySelectorAll("#conversation .msg .role")].map(e => e.textContent)`)
	contents := eval[[]string](t, ctx, `[...document.querySelectorAll("#conversation pre.content")].map(e => e.textContent)`)
	if len(contents) != len(st.Conversation) || len(roles) != len(st.Conversation) {
		t.Fatalf("%d messages (%d roles) shown, the transcript has %d", len(contents), len(roles), len(st.Conversation))
	}
	for i, m := range st.Conversation {
		if contents[i] != m.Content || roles[i] != m.Role {
			t.Errorf("message %d shown as %s %q, recorded %s %q", i, roles[i], contents[i], m.Role, m.Content)
		}
	}
	return contents
}

func ptr[T any](v T) *T { return &v }
