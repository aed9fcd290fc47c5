package miner

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/inference"
)

func FuzzChatRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"seed":1,"temperature":0}`,
		`{"messages":[{"role":"tool","content":"x"}]}`,
		`{"messages":[],"stream":true}`,
		`{`, `null`, `[]`,
	} {
		f.Add(s)
	}
	srv := NewServer(Config{Strategy: Strategy{Kind: Noisy, PPM: ppmScale / 2}, Model: "m"})
	f.Fuzz(func(t *testing.T, body string) {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body)))
		switch w.Code {
		case http.StatusOK:
			var resp inference.ChatResponse
			if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || len(resp.Choices) != 1 {
				t.Fatalf("200 with body %q", w.Body.String())
			}
		case http.StatusBadRequest, http.StatusNotFound:
			var e inference.ErrorBody
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error.Message == "" {
				t.Fatalf("%d without an error message: %q", w.Code, w.Body.String())
			}
		default:
			t.Fatalf("status %d for %q", w.Code, body)
		}
	})
}
