package explorer_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzAPI sends arbitrary paths and query strings to the API: the handler
// answers every one with a JSON body and a status the spec lists for bad
// or unknown input (200, 400, 404, or a redirect for unclean paths),
// never a 500 or a panic.
func FuzzAPI(f *testing.F) {
	alice := shared.f.Validators[0].Public().String()
	for _, s := range []string{
		"validators?limit=1", "validators/" + alice + "/blocks?cursor=AQ", "miners?cursor=Bg", "duels?limit=2&miner=" + alice,
		"transcripts/" + shared.f.XSS.String(), "blocks/bafy", "leaderboard?min_samples=3&cursor=", "vtrust?epoch=18446744073709551615",
		"validators/" + alice + "/blocks/18446744073709551615", "miners/" + alice + "/transcripts?env=mult8&limit=1000",
		"duels/" + shared.f.Duels[0].String() + "/transcripts?cursor=CQAAAAAAAAAA",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := url.Parse("/api/v1/" + s)
		if err != nil || strings.Contains(s, "#") {
			return
		}
		req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1"+u.RequestURI(), nil)
		if err != nil {
			return
		}
		rec := httptest.NewRecorder()
		shared.h.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound:
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("GET %s: %d with a body that is not JSON: %q", u, rec.Code, rec.Body.Bytes())
			}
		case http.StatusMovedPermanently, http.StatusTemporaryRedirect:
		default:
			t.Fatalf("GET %s: %d %s", u, rec.Code, rec.Body.Bytes())
		}
	})
}
