package explorer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
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
	trs := oneMinersTranscripts(t, explorer.MaxPointsLimit+1)
	srv := serveTranscripts(t, trs)

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
		{"validator transcripts", "/api/v1/validators/" + trs[0].Validator.String() + "/transcripts", explorer.MaxLimit, pageOf},
		{"miner transcripts", "/api/v1/miners/" + miner.String() + "/transcripts", explorer.MaxPointsLimit, pageOf},
		{"block transcripts", "/api/v1/validators/" + trs[0].Validator.String() + "/blocks/0", explorer.MaxBlockTranscripts, func(t *testing.T, path string) list {
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

// TestMinerTranscriptsScanBound: a page of a miner's transcripts filtered
// by env reads at most MaxScan transcripts. The miner has MaxScan
// transcripts of mult8, then one of sat, then one more of mult8: the first
// sat page stops at the bound with no item and a cursor, the second holds
// the sat one and is the last; mult8 and unfiltered pages list every
// transcript of theirs once, in log order, the last page naming no next.
func TestMinerTranscriptsScanBound(t *testing.T) {
	t.Parallel()
	trs := oneMinersTranscripts(t, explorer.MaxScan+2)
	sat := &trs[explorer.MaxScan]
	id, err := challenge.Derive(recordtest.SeedAnchor.Hash, sat.Validator, "sat", 1, uint64(explorer.MaxScan))
	if err != nil {
		t.Fatal(err)
	}
	sat.Challenge, sat.Env, sat.EnvVersion = id, id.Env, id.Version
	srv := serveTranscripts(t, trs)
	base := "/api/v1/miners/" + trs[0].Miner.Hotkey.String() + "/transcripts?limit=1000"

	var first, second explorer.Page[explorer.TranscriptSummary]
	getJSONAt(t, srv.URL, base+"&env=sat", &first)
	if len(first.Items) != 0 || first.Next == "" {
		t.Fatalf("env=sat: %d items, next %q; want none and a cursor (the bound)", len(first.Items), first.Next)
	}
	getJSONAt(t, srv.URL, base+"&env=sat&cursor="+url.QueryEscape(first.Next), &second)
	if len(second.Items) != 1 || second.Items[0].Leaf != uint64(explorer.MaxScan) || second.Next != "" {
		t.Fatalf("env=sat, second page: %+v, next %q; want leaf %d alone and no next", second.Items, second.Next, explorer.MaxScan)
	}

	for _, tc := range []struct {
		query  string
		leaves []uint64
	}{
		{"&env=mult8", append(seq(0, explorer.MaxScan), explorer.MaxScan+1)},
		{"", seq(0, explorer.MaxScan+2)},
	} {
		var got []uint64
		cursor := ""
		for range 10 {
			p := base + tc.query
			if cursor != "" {
				p += "&cursor=" + url.QueryEscape(cursor)
			}
			var page explorer.Page[explorer.TranscriptSummary]
			getJSONAt(t, srv.URL, p, &page)
			if len(page.Items) == 0 {
				t.Fatalf("%q: an empty page %q", tc.query, p)
			}
			for _, x := range page.Items {
				got = append(got, x.Leaf)
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		if !slices.Equal(got, tc.leaves) || cursor != "" {
			t.Errorf("%q: %d leaves (next %q), want %d in log order ending the list", tc.query, len(got), cursor, len(tc.leaves))
		}
	}
}

// seq is the integers [from, to).
func seq(from, to int) []uint64 {
	out := make([]uint64, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, uint64(i))
	}
	return out
}

// TestMinerTranscriptsEnvLastPage: spec/api.md: "next is \"\" on the last
// page". For every miner and env of the shared fixture, a page of limit n
// filtered by the env holds the miner's n transcripts of it and names no
// next page.
func TestMinerTranscriptsEnvLastPage(t *testing.T) {
	t.Parallel()
	var miners explorer.Page[explorer.MinerRow]
	getJSON(t, "/api/v1/miners?limit=500", &miners)
	checked := 0
	for _, m := range miners.Items {
		all, _ := pages[explorer.TranscriptSummary](t, "/api/v1/miners/"+m.Hotkey.String()+"/transcripts?limit=1000")
		count := map[string]int{}
		for _, x := range all {
			count[x.Env]++
		}
		checked += len(count)
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
	if checked < 2 {
		t.Fatalf("checked %d (miner, env) pairs; the fixture should have several", checked)
	}
}

// oneMinersTranscripts returns n transcripts of Alice's, all put to one
// miner.
func oneMinersTranscripts(t *testing.T, n int) []record.Transcript {
	alice := recordtest.Hotkey(t, "//Alice").Public()
	trs := make([]record.Transcript, n)
	for i := range trs {
		trs[i] = recordtest.Transcript(alice, uint64(i), 0)
		trs[i].Miner.Hotkey = trs[0].Miner.Hotkey
	}
	return trs
}

// serveTranscripts appends trs, in one block of Alice's, to a new store
// and serves the explorer on it until the test ends.
func serveTranscripts(t *testing.T, trs []record.Transcript) *httptest.Server {
	t.Helper()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	a, err := s.NewAppender(recordtest.Hotkey(t, "//Alice"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(context.Background(), recordtest.Anchor(1), trs, nil); err != nil {
		t.Fatal(err)
	}
	h, err := explorer.Handler(s, explorer.Options{Refresh: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}
