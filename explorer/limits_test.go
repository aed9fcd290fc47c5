package explorer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestPageSizeBounds: a page of exactly the bound is served whole, with a
// cursor to the rest, and a limit one past it is a 400 naming the bound,
// for each of the three bounds (MaxLimit, MaxPointsLimit,
// MaxBlockTranscripts). The store holds one block of 1,001 transcripts of
// one miner, so each list has more items than its bound.
func TestPageSizeBounds(t *testing.T) {
	s, err := ledger.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	alice := recordtest.Hotkey(t, "//Alice")
	a, err := s.NewAppender(alice)
	if err != nil {
		t.Fatal(err)
	}
	trs := make([]record.Transcript, explorer.MaxPointsLimit+1)
	for i := range trs {
		trs[i] = recordtest.Transcript(alice.Public(), uint64(i), 0)
		trs[i].Miner.Hotkey = trs[0].Miner.Hotkey
	}
	if _, err := a.Append(context.Background(), recordtest.Anchor(1), trs, nil); err != nil {
		t.Fatal(err)
	}
	h, err := explorer.Handler(s, explorer.Options{Refresh: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	miner := trs[0].Miner.Hotkey
	type list = explorer.Page[explorer.TranscriptSummary]
	pageOf := func(t *testing.T, path string) (p list) {
		getJSONAt(t, srv.URL, path, &p)
		return p
	}
	for _, tc := range []struct {
		name  string
		path  string
		bound int
		page  func(t *testing.T, path string) list
	}{
		{"validator transcripts", "/api/v1/validators/" + alice.Public().String() + "/transcripts", explorer.MaxLimit, pageOf},
		{"miner transcripts", "/api/v1/miners/" + miner.String() + "/transcripts", explorer.MaxPointsLimit, pageOf},
		{"block transcripts", "/api/v1/validators/" + alice.Public().String() + "/blocks/0", explorer.MaxBlockTranscripts, func(t *testing.T, path string) list {
			var v explorer.BlockView
			getJSONAt(t, srv.URL, path, &v)
			return v.TranscriptList
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.page(t, fmt.Sprintf("%s?limit=%d", tc.path, tc.bound))
			if len(p.Items) != tc.bound || p.Next == "" {
				t.Fatalf("limit %d: %d items, next %q; want %d and a cursor", tc.bound, len(p.Items), p.Next, tc.bound)
			}
			wantRefused(t, srv.URL, fmt.Sprintf("%s?limit=%d", tc.path, tc.bound+1), tc.bound)
		})
	}
}

// wantRefused fails t unless path is a 400 whose message names the range
// from 1 to bound.
func wantRefused(t *testing.T, base, path string, bound int) {
	t.Helper()
	r := get(t, base, path)
	if want := fmt.Sprintf("from 1 to %d", bound); r.code != http.StatusBadRequest || !strings.Contains(string(r.body), want) {
		t.Fatalf("GET %s: %d %s, want 400 naming %q", path, r.code, r.body, want)
	}
}

// TestEveryListTakesMaxLimit: every list endpoint of the shared fixture
// serves a page of limit MaxLimit and refuses MaxLimit+1, naming it.
func TestEveryListTakesMaxLimit(t *testing.T) {
	f := shared.f
	v := f.Validators[0].Public().String()
	for name, path := range map[string]string{
		"validators":            "/api/v1/validators",
		"validator blocks":      "/api/v1/validators/" + v + "/blocks",
		"validator transcripts": "/api/v1/validators/" + v + "/transcripts",
		"miners":                "/api/v1/miners",
		"duels":                 "/api/v1/duels",
		"duel transcripts":      "/api/v1/duels/" + f.Duels[0].String() + "/transcripts",
		"leaderboard":           "/api/v1/leaderboard",
		"forks":                 "/api/v1/forks",
	} {
		t.Run(name, func(t *testing.T) {
			if r := get(t, shared.url, fmt.Sprintf("%s?limit=%d", path, explorer.MaxLimit)); r.code != http.StatusOK {
				t.Fatalf("limit %d: %d %s", explorer.MaxLimit, r.code, r.body)
			}
			wantRefused(t, shared.url, fmt.Sprintf("%s?limit=%d", path, explorer.MaxLimit+1), explorer.MaxLimit)
		})
	}
}
