package node

import (
	"encoding/json"
	"net/http"
)

// healthz answers GET /healthz as spec/api.md specifies it for the
// explorer the status endpoint also serves, so that one probe reads
// either: {"ok": true, "validators": n}, n the chains the store holds,
// and a 503 with the API's error body when the store cannot be read or
// one of the node's services has stopped (Err), which a probe must see
// although the store still reads.
func (n *Node) healthz(w http.ResponseWriter, _ *http.Request) {
	if err := n.Err(); err != nil {
		writeHealth(w, http.StatusServiceUnavailable, healthError{Error: "a service stopped: " + err.Error(), Status: http.StatusServiceUnavailable})
		return
	}
	count := 0
	for _, err := range n.store.Heads() {
		if err != nil {
			writeHealth(w, http.StatusServiceUnavailable, healthError{Error: "store: " + err.Error(), Status: http.StatusServiceUnavailable})
			return
		}
		count++
	}
	writeHealth(w, http.StatusOK, Health{OK: true, Validators: count})
}

// Health is the body of a healthy node's /healthz (spec/api.md).
type Health struct {
	OK         bool `json:"ok"`
	Validators int  `json:"validators"`
}

// healthError is spec/api.md's error body.
type healthError struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

func writeHealth(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
