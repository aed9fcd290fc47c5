package explorer_test

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/explorer"
)

func TestVTrust(t *testing.T) {
	t.Parallel()
	f := shared.f
	var v explorer.VTrustView
	getJSON(t, "/api/v1/vtrust", &v)
	if v.Source != explorer.SourceLedger || len(v.Validators) != 2 || len(v.Epochs) != 2 {
		t.Fatalf("source %s, %d validators, epochs %+v", v.Source, len(v.Validators), v.Epochs)
	}
	// Epoch 1 (blocks 0 to tempo-1, as the node numbers epochs) holds no
	// duel result but Bob's outcomes about Alice's block 0 (anchor 40),
	// recorded in his block anchored 151 (epoch 2). Epoch 2 holds the
	// duel results, and Bob's one outcome, about Alice's.
	onBlock0 := len(f.Outcomes) - 1
	e0, e1 := v.Epochs[0], v.Epochs[1]
	if e0.Epoch != 1 || e0.Votes != 0 || e0.Outcomes != onBlock0 || e1.Epoch != 2 || e1.Votes != 2 || e1.Outcomes != 1 {
		t.Errorf("epochs %+v", v.Epochs)
	}
	if e0.Winner == nil || e0.Winner.Hotkey != f.Champion.Key.Public() || e1.Winner == nil || e1.Winner.Hotkey != f.Contender.Key.Public() {
		t.Errorf("winners: epoch 1 %+v, epoch 2 %+v; want the champion then the contender", e0.Winner, e1.Winner)
	}
	ep := v.Epoch
	if ep == nil || ep.Epoch != 2 || ep.Output == nil || ep.Error != "" || ep.FirstBlock != v.Tempo || ep.LastBlock != 2*v.Tempo-1 {
		t.Fatalf("default epoch %+v", ep)
	}
	if w := ep.Output.Weights; len(w.UIDs) != 1 || w.UIDs[0] != f.Contender.UID || w.Values[0] != 65535 {
		t.Errorf("weights %+v, want all to uid %d", w, f.Contender.UID)
	}

	var e explorer.VTrustView
	getJSON(t, "/api/v1/vtrust?epoch=1", &e)
	if e.Epoch == nil || e.Epoch.Output == nil || e.Epoch.FirstBlock != 0 {
		t.Fatalf("epoch 1: %+v", e.Epoch)
	}
	alice := f.Validators[0].Public()
	n := uint64(onBlock0)
	for _, tr := range e.Epoch.Output.Validators {
		if tr.Hotkey != alice {
			continue
		}
		// One disagreement among Bob's verdicts on her block 0.
		if tr.Agreed != n-1 || tr.Disagreed != 1 || tr.ReexecPPM != uint32(1_000_000*(n-1)/n) {
			t.Errorf("Alice in epoch 1: %+v", tr)
		}
	}
}

func TestLeaderboard(t *testing.T) {
	t.Parallel()
	f := shared.f
	var lb explorer.LeaderboardView
	getJSON(t, "/api/v1/leaderboard", &lb)
	if lb.Credit != "ledger" || len(lb.Items) != 3 || strings.Join(lb.Envs, ",") != "mult8,sat,tictactoe" {
		t.Fatalf("leaderboard %+v", lb)
	}
	for i, row := range lb.Items {
		if row.Rank != i+1 || (i > 0 && row.Score > lb.Items[i-1].Score) {
			t.Errorf("row %d out of order: %+v", i, row)
		}
	}
	var contender *explorer.LeaderRow
	for i := range lb.Items {
		if lb.Items[i].Miner == f.Contender.Key.Public() {
			contender = &lb.Items[i]
		}
	}
	if contender == nil || len(contender.Miners) != 2 || contender.Miners[1].Hotkey != f.Copy.Key.Public() || !contender.Miners[1].Copy || contender.Miners[0].Copy {
		t.Fatalf("the contender's model should list the contender first and the later copy as a copy: %+v", contender)
	}
	// min_samples above every count empties the ranked envs.
	var none explorer.LeaderboardView
	getJSON(t, "/api/v1/leaderboard?min_samples=1000000", &none)
	if len(none.Envs) != 0 || none.Items[0].Complete {
		t.Errorf("min_samples=1000000: envs %v, first row %+v", none.Envs, none.Items[0])
	}
}

// TestRank checks the leaderboard arithmetic on numbers worked by hand.
func TestRank(t *testing.T) {
	t.Parallel()
	models := []explorer.ModelInput{
		{Hash: []byte{1}, N: map[string]uint64{"a": 10, "b": 10}, Mean: map[string]float64{"a": 0.8, "b": 0.4}},
		{Hash: []byte{2}, N: map[string]uint64{"a": 10, "b": 10}, Mean: map[string]float64{"a": 0.4, "b": 0.4}},
		{Hash: []byte{3}, N: map[string]uint64{"a": 10, "b": 1}, Mean: map[string]float64{"a": 0.9, "b": 0.9}},
	}
	envs, rows := explorer.Rank(models, 5)
	if strings.Join(envs, ",") != "a,b" {
		t.Fatalf("envs %v", envs)
	}
	// Group means: a = (0.8+0.4+0.9)/3 = 0.7, b = (0.4+0.4)/2 = 0.4
	// (model 3 has too few b samples). Model 1: rel 8/7 and 1; min 1,
	// mean 15/14, sd 1/14, cv 1/15, score 15/16. Model 2: rel 4/7 and 1;
	// min 4/7, mean 11/14, sd 3/14, cv 3/11, score (4/7)(11/14).
	// Model 3: rel 9/7 and 0 (b not counted): score 0, incomplete.
	want := map[string]float64{"01": 15.0 / 16, "02": (4.0 / 7) * (11.0 / 14), "03": 0}
	order := []string{"01", "02", "03"}
	for i, row := range rows {
		if row.ModelHash != order[i] || math.Abs(row.Score-want[row.ModelHash]) > 1e-12 {
			t.Errorf("rank %d: model %s score %v, want model %s score %v", i+1, row.ModelHash, row.Score, order[i], want[order[i]])
		}
	}
	if rows[2].Complete || !rows[0].Complete {
		t.Errorf("completeness: %v %v", rows[0].Complete, rows[2].Complete)
	}
}

// TestBadRequests: every malformed parameter is a 400 with a message.
func TestBadRequests(t *testing.T) {
	t.Parallel()
	alice := shared.f.Validators[0].Public().String()
	var validatorsCursor explorer.Page[explorer.ValidatorRow]
	getJSON(t, "/api/v1/validators?limit=1", &validatorsCursor)
	for _, c := range []struct{ path, says string }{
		{"/api/v1/validators?limit=0", "limit"},
		{"/api/v1/validators?limit=501", "limit"},
		{"/api/v1/validators?limit=ten", "limit"},
		{"/api/v1/validators?limit=1&limit=2", "given 2 times"},
		{"/api/v1/validators?sort=height", "unknown query parameter"},
		{"/api/v1/status?x=1", "takes none"},
		{"/api/v1/status?bogus=%zz", `malformed query string: invalid URL escape "%zz"`},
		{"/api/v1/validators?limit=%zz", `malformed query string: invalid URL escape "%zz"`},
		{"/api/v1/validators?limit=1;cursor=x", "malformed query string: invalid semicolon separator"},
		{"/api/v1/validators?cursor=!!!", "cursor"},
		{"/api/v1/miners?cursor=" + validatorsCursor.Next, "not a cursor of this list"},
		{"/api/v1/validators/5NotAnAddress", "SS58"},
		{"/api/v1/validators/" + alice + "/blocks/-1", "height"},
		{"/api/v1/validators/" + alice + "/blocks/01", "height"},
		{"/api/v1/blocks/not-a-cid", "not a CID"},
		{"/api/v1/transcripts/QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG", "not a ledger address"},
		// A ledger address in base58, not its canonical base32: one record,
		// one URL.
		{"/api/v1/blocks/zdpuAyvkgEDQm9TenwGkd5eNaosSxjgEYd8QatfPetgB1CdEZ", "canonical text"},
		{"/api/v1/miners/" + alice + "/transcripts?env=Bad-Env", "env"},
		{"/api/v1/miners/" + alice + "/transcripts?limit=1001", "limit"},
		{"/api/v1/duels?validator=nobody", "SS58"},
		{"/api/v1/vtrust?epoch=-3", "epoch"},
		{"/api/v1/leaderboard?min_samples=0", "at least 1"},
		{"/api/v1/leaderboard?min_samples=1.5", "min_samples"},
	} {
		r := get(t, shared.url, c.path)
		var e struct {
			Error  string `json:"error"`
			Status int    `json:"status"`
		}
		if err := json.Unmarshal(r.body, &e); err != nil || r.code != http.StatusBadRequest || e.Status != 400 || !strings.Contains(e.Error, c.says) {
			t.Errorf("GET %s: %d %s, want 400 saying %q", c.path, r.code, r.body, c.says)
		}
	}
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	alice := shared.f.Validators[0].Public().String()
	nobody := shared.f.Weak.Key.Public().String() // a miner, not a validator
	validCID := "bafyreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"
	for _, path := range []string{
		"/api/v1/validators/" + nobody,
		"/api/v1/validators/" + nobody + "/blocks",
		"/api/v1/validators/" + alice + "/blocks/999",
		"/api/v1/blocks/" + validCID,
		"/api/v1/blocks/" + shared.f.XSS.String(),
		"/api/v1/transcripts/" + shared.f.Duels[0].String(),
		"/api/v1/duels/" + shared.f.XSS.String(),
		"/api/v1/transcripts/" + validCID,
		"/api/v1/transcripts/" + validCID + "/proof",
		"/api/v1/miners/" + alice,
		"/api/v1/miners/" + alice + "/transcripts",
		"/api/v1/duels/" + validCID,
		"/api/v1/vtrust?epoch=7",
		"/api/v1/chain",
		"/api/v1/nothing",
		"/debug/pprof/",
		"/missing.js",
	} {
		r := get(t, shared.url, path)
		if r.code != http.StatusNotFound {
			t.Errorf("GET %s: %d %s, want 404", path, r.code, r.body)
		}
	}
}

// TestMethodNotAllowed: a method other than GET and HEAD on the API or
// /healthz is a 405 with the JSON error body and an Allow header, on every
// kind of API path (fixed, with a path value, unknown); HEAD is served.
func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	alice := shared.f.Validators[0].Public().String()
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/status"},
		{http.MethodPut, "/api/v1/validators/" + alice},
		{http.MethodDelete, "/api/v1/nothing"},
		{http.MethodOptions, "/healthz"},
		{http.MethodPatch, "/api/v1/miners?limit=%zz"},
	} {
		req, err := http.NewRequest(c.method, shared.url+c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error  string `json:"error"`
			Status int    `json:"status"`
		}
		derr := json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" ||
			resp.Header.Get("Allow") != "GET, HEAD" || derr != nil || body.Status != 405 || !strings.Contains(body.Error, c.method) {
			t.Errorf("%s %s: %d %q Allow %q, body %+v (decode: %v); want a JSON 405 naming the method",
				c.method, c.path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Allow"), body, derr)
		}
	}
	for _, path := range []string{"/api/v1/status", "/healthz"} {
		resp, err := http.Head(shared.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("HEAD %s: %d, want 200", path, resp.StatusCode)
		}
	}
}

// TestVTrustStandingVotes: with a tempo of 151, Alice's duel result
// (anchored 150) falls in epoch 1 and Bob's (151) in epoch 2. Alone, her
// vote holds half of the stake, not more, and epoch 1 keeps the champion;
// standing in epoch 2 beside his, it makes the dethrone (spec/vtrust.md,
// "Standing votes").
func TestVTrustStandingVotes(t *testing.T) {
	t.Parallel()
	f := shared.f
	h, err := explorer.Handler(shared.s, explorer.Options{Refresh: -1, Tempo: 151})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	var v explorer.VTrustView
	getJSONAt(t, srv.URL, "/api/v1/vtrust", &v)
	if len(v.Epochs) != 2 {
		t.Fatalf("epochs %+v, want 1 and 2", v.Epochs)
	}
	e1, e2 := v.Epochs[0], v.Epochs[1]
	if e1.Epoch != 1 || e1.Votes != 1 || e1.Standing != 0 || e1.Winner == nil || e1.Winner.Hotkey != f.Champion.Key.Public() {
		t.Errorf("epoch 1 %+v, want one vote and the champion kept", e1)
	}
	if e2.Epoch != 2 || e2.Votes != 1 || e2.Standing != 1 || e2.Winner == nil || e2.Winner.Hotkey != f.Contender.Key.Public() {
		t.Errorf("epoch 2 %+v, want one vote, one standing and the contender", e2)
	}
	if ep := v.Epoch; ep == nil || ep.Output == nil || len(ep.Output.Duels) != 1 || ep.Output.Duels[0].Standing != 1 {
		t.Errorf("epoch 2's view %+v", v.Epoch)
	}
}
