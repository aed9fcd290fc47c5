package explorer_test

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/metrics"
)

func TestStaticPages(t *testing.T) {
	t.Parallel()
	for path, ctype := range map[string]string{
		"/":           "text/html; charset=utf-8",
		"/validators": "text/html; charset=utf-8", // not a file: the app
		"/style.css":  "text/css; charset=utf-8",
		"/js/app.js":  "text/javascript; charset=utf-8",
		"/js/dom.js":  "text/javascript; charset=utf-8",
		"/js/plot.js": "text/javascript; charset=utf-8",
		"/js/api.js":  "text/javascript; charset=utf-8",
		"/index.html": "",
	} {
		r := get(t, shared.url, path)
		if path == "/index.html" {
			// FileServer redirects index.html to its directory.
			if r.code != http.StatusOK && r.code != http.StatusMovedPermanently {
				t.Errorf("GET %s: %d", path, r.code)
			}
			continue
		}
		if r.code != http.StatusOK || r.header.Get("Content-Type") != ctype {
			t.Errorf("GET %s: %d %q, want 200 %q", path, r.code, r.header.Get("Content-Type"), ctype)
		}
		if r.header.Get("Content-Security-Policy") != explorer.ContentSecurityPolicy || r.header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: security headers %v", path, r.header)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, shared.url+"/api/v1/status", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}

// TestStaticNoHTMLSinks: the page code never hands a string to the HTML
// parser, has no inline handlers, and index.html has no inline script or
// style (the CSP would block them anyway).
func TestStaticNoHTMLSinks(t *testing.T) {
	t.Parallel()
	sinks := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setAttribute\(\s*["']on|\.on[a-z]+\s*=`)
	n := 0
	err := filepath.WalkDir("static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		text := string(data)
		for i, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			if m := sinks.FindString(line); m != "" {
				t.Errorf("%s:%d uses %s", path, i+1, m)
			}
		}
		if strings.HasSuffix(path, ".html") {
			if regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]+</script>|<style|\sstyle=|\son[a-z]+=`).MatchString(text) {
				t.Errorf("%s has inline script, style or handlers", path)
			}
		}
		return nil
	})
	if err != nil || n < 5 {
		t.Fatalf("walked %d static files: %v", n, err)
	}
}

func TestMetricsAndPprof(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	h, err := explorer.Handler(shared.s, explorer.Options{Refresh: -1, Metrics: m, Pprof: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	get(t, srv.URL, "/api/v1/validators")
	get(t, srv.URL, "/api/v1/validators?limit=0")
	r := get(t, srv.URL, "/metrics")
	body := string(r.body)
	for _, want := range []string{
		`ledger_http_requests_total{code="200",route="GET /api/v1/validators"} 1`,
		`ledger_http_requests_total{code="400",route="GET /api/v1/validators"} 1`,
		"ledger_store_chains 2",
		"ledger_blocks_rejected_total",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if r := get(t, srv.URL, "/debug/pprof/"); r.code != http.StatusOK || !strings.Contains(string(r.body), "goroutine") {
		t.Errorf("pprof with Pprof set: %d", r.code)
	}
	// A second handler on the same registry does not fail on the store
	// collector registered twice.
	if _, err := explorer.Handler(shared.s, explorer.Options{Metrics: m}); err != nil {
		t.Errorf("second handler on one registry: %v", err)
	}
}
