package explorer

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/affine-ledger/ledger/ledger"
)

// apiError is an error with the HTTP status it answers with.
type apiError struct {
	code int
	msg  string
}

func (e *apiError) Error() string { return e.msg }

func errBadRequest(msg string) error { return &apiError{http.StatusBadRequest, msg} }
func errNotFound(msg string) error   { return &apiError{http.StatusNotFound, msg} }
func errUnavailable(msg string) error {
	return &apiError{http.StatusServiceUnavailable, msg}
}

// apiHandler turns an error into a JSON error response: its own status for
// an apiError, 404 for ledger.ErrNotFound, 500 otherwise.
type apiHandler func(w http.ResponseWriter, r *http.Request) error

func (h apiHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	err := h(w, r)
	if err == nil {
		return
	}
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		writeError(w, ae.code, ae.msg)
	case errors.Is(err, ledger.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// getOnly answers a method other than GET and HEAD on the API and
// /healthz with a JSON 405 (spec/api.md, "Errors"); the mux's own 405 is
// text/plain. It wraps the mux rather than adding method-less patterns,
// which would conflict with "GET /".
func getOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api := strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/healthz"
		if api && r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %q not allowed: the API answers GET and HEAD", clip(r.Method)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// errorBody is every error response (spec/api.md, "Errors").
type errorBody struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSONStatus(w, code, errorBody{Error: msg, Status: code})
}

func writeJSON(w http.ResponseWriter, v any) error {
	writeJSONStatus(w, http.StatusOK, v)
	return nil
}

// writeJSONStatus writes v as JSON. encoding/json escapes <, > and & in
// strings, so even a client that sniffs the body as HTML finds no markup.
func writeJSONStatus(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		body, _ = json.Marshal(errorBody{Error: "encoding the response: " + err.Error(), Status: code})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(append(body, '\n'))
}

// Page is the envelope of every list (spec/api.md, "Pagination"): the
// items and the cursor of the next page, "" on the last.
type Page[T any] struct {
	Items []T    `json:"items"`
	Next  string `json:"next"`
}
