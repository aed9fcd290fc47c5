package explorer_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/explorer/explorertest"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// env is one store filled by explorertest.Fill and an explorer over it on
// loopback, shared by the tests of this package (they only read).
type env struct {
	h   http.Handler
	s   *ledger.Store
	f   *explorertest.Fixture
	url string
}

var shared *env

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "explorer-test-")
	if err != nil {
		panic(err)
	}
	code := func() int {
		s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
		if err != nil {
			panic(err)
		}
		defer s.Close()
		f, err := explorertest.Fill(s)
		if err != nil {
			panic(err)
		}
		// Tempo 100 puts the loose transcripts (anchors 40, 41) in epoch
		// 0 and the duels (100..151) in epoch 1.
		h, err := explorer.Handler(s, explorer.Options{Refresh: -1, Tempo: 100})
		if err != nil {
			panic(err)
		}
		srv := httptest.NewServer(h)
		defer srv.Close()
		shared = &env{h: h, s: s, f: f, url: srv.URL}
		return m.Run()
	}()
	os.RemoveAll(dir)
	os.Exit(code)
}

type response struct {
	code   int
	header http.Header
	body   []byte
}

func get(t *testing.T, base, path string) response {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, body}
}

// getJSON fetches path from the shared explorer, wants 200 and JSON, and
// decodes the body into v strictly (an unknown field fails: the types
// below are the documented shapes).
func getJSON(t *testing.T, path string, v any) {
	t.Helper()
	getJSONAt(t, shared.url, path, v)
}

func getJSONAt(t *testing.T, base, path string, v any) {
	t.Helper()
	r := get(t, base, path)
	if r.code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.code, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("GET %s: Content-Type %q", path, ct)
	}
	dec := json.NewDecoder(strings.NewReader(string(r.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, r.body)
	}
}

// pages follows a list's cursors from path (which has a query string)
// and returns every item.
func pages[T any](t *testing.T, path string) (items []T, n int) {
	t.Helper()
	cursor := ""
	for {
		p := path
		if cursor != "" {
			p += "&cursor=" + url.QueryEscape(cursor)
		}
		var page explorer.Page[T]
		getJSON(t, p, &page)
		items = append(items, page.Items...)
		n++
		if page.Next == "" {
			return items, n
		}
		if n > 1000 {
			t.Fatalf("%s: more than 1000 pages", path)
		}
		cursor = page.Next
	}
}
