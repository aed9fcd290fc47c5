package explorer_test

// Failing tests from an adversarial review of the explorer's API, one per
// bug, each named for what it shows.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/affine-ledger/ledger/explorer"
)

// TestReviewMinerTranscriptsEnvLastPage: spec/api.md: "next is \"\" on
// the last page". With env=, a page holding the miner's last transcripts
// of that env still names a next page, which is empty.
func TestReviewMinerTranscriptsEnvLastPage(t *testing.T) {
	t.Parallel()
	var miners explorer.Page[explorer.MinerRow]
	getJSON(t, "/api/v1/miners?limit=500", &miners)
	for _, m := range miners.Items {
		all, _ := pages[explorer.TranscriptSummary](t, "/api/v1/miners/"+m.Hotkey.String()+"/transcripts?limit=1000")
		count := map[string]int{}
		for _, x := range all {
			count[x.Env]++
		}
		for env, n := range count {
			path := fmt.Sprintf("/api/v1/miners/%s/transcripts?env=%s&limit=%d", m.Hotkey, env, n)
			var p explorer.Page[explorer.TranscriptSummary]
			getJSON(t, path, &p)
			if len(p.Items) != n {
				t.Fatalf("%s: %d items, want %d", path, len(p.Items), n)
			}
			if p.Next != "" {
				var q explorer.Page[explorer.TranscriptSummary]
				getJSON(t, path+"&cursor="+url.QueryEscape(p.Next), &q)
				t.Errorf("%s: all %d items of env %s, but next %q (a page of %d items)", path, n, env, p.Next, len(q.Items))
			}
		}
	}
}

// TestReviewUndecodableQueryIs400: a query string Go cannot decode is
// dropped whole by URL.Query, so an unknown parameter or a malformed limit
// is served as if absent (200) instead of the 400 spec/api.md names.
func TestReviewUndecodableQueryIs400(t *testing.T) {
	t.Parallel()
	for _, path := range []string{
		"/api/v1/status?bogus=%zz",
		"/api/v1/validators?limit=%zz",
	} {
		if r := get(t, shared.url, path); r.code != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400: %.200s", path, r.code, r.body)
		}
	}
}

// TestReviewMethodNotAllowedIsJSONError: spec/api.md: other methods get
// 405, and an error is {"error", "status"} as JSON; the mux answers 405
// in text/plain.
func TestReviewMethodNotAllowedIsJSONError(t *testing.T) {
	t.Parallel()
	req, _ := http.NewRequest(http.MethodPost, shared.url+"/api/v1/status", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error  string `json:"error"`
		Status int    `json:"status"`
	}
	derr := json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || derr != nil || body.Status != 405 {
		t.Fatalf("POST /api/v1/status: %d %q, body decodes: %v %+v", resp.StatusCode, resp.Header.Get("Content-Type"), derr, body)
	}
}
