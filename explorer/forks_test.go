package explorer_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/explorer/explorertest"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestForks stores a second block of Alice at height 0 in a store of its
// own: the store keeps a fork proof, which the explorer lists and marks on
// her head.
func TestForks(t *testing.T) {
	t.Parallel()
	s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := explorertest.Fill(s)
	if err != nil {
		t.Fatal(err)
	}
	alice := f.Validators[0]
	_, raw, c, err := record.Sign(record.Header{Format: record.BlockFormat, Net: recordtest.Network, Validator: alice.Public(), TimeMS: 1,
		Anchor: explorertest.Anchor(1), Checkpoint: record.Checkpoint{Root: record.EmptyRoot()}}, alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(raw, nil); !errors.Is(err, ledger.ErrEquivocation) {
		t.Fatalf("put a second block at height 0: %v, want equivocation", err)
	}
	h, err := explorer.Handler(s, explorer.Options{Refresh: -1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	var forks explorer.Page[explorer.ForkRow]
	getJSONAt(t, srv.URL, "/api/v1/forks", &forks)
	b0, _ := s.BlockAt(alice.Public(), 0)
	if len(forks.Items) != 1 || forks.Next != "" {
		t.Fatalf("forks %+v", forks)
	}
	fr := forks.Items[0]
	got := map[string]bool{fr.A: true, fr.B: true}
	if !fr.Valid || fr.Format != record.ForkProofFormat || !fr.ProvesEquivocation || fr.Validator != alice.Public() || fr.Height != 0 || !got[c.String()] || !got[b0.CID.String()] {
		t.Errorf("fork row %+v: want Alice's blocks %s and %s at height 0", fr, b0.CID, c)
	}
	forkProofDownload(t, srv.URL, fr.CID, b0.CID.String())

	var v explorer.ValidatorView
	getJSONAt(t, srv.URL, "/api/v1/validators/"+alice.Public().String(), &v)
	var st explorer.StatusView
	getJSONAt(t, srv.URL, "/api/v1/status", &st)
	if !v.Head.Equivocating || st.ForkProofs != 1 {
		t.Errorf("equivocating %v, status fork proofs %d", v.Head.Equivocating, st.ForkProofs)
	}
}

// forkProofDownload: /api/v1/forks/{cid} serves the proof's own bytes,
// which hash to its CID and decode as a verified fork proof; another
// record's CID (a block's) is a 404 and no CID a 400.
func forkProofDownload(t *testing.T, base, fork, block string) {
	t.Helper()
	r := get(t, base, "/api/v1/forks/"+fork)
	if r.code != http.StatusOK || r.header.Get("Content-Type") != "application/vnd.ipld.dag-cbor" ||
		!strings.Contains(r.header.Get("Content-Disposition"), `attachment; filename="fork-proof-`+fork+`.cbor"`) {
		t.Fatalf("GET fork proof: %d %v %.200q", r.code, r.header, r.body)
	}
	if got := codec.Sum(r.body).String(); got != fork {
		t.Errorf("the download hashes to %s, want %s", got, fork)
	}
	p, err := record.DecodeForkProof(r.body)
	if err != nil || !p.ProvesEquivocation() {
		t.Errorf("the download: %v", err)
	}
	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/api/v1/forks/" + block, http.StatusNotFound, "fork proof " + block + " is not in this store"},
		{"/api/v1/forks/bafy-nope", http.StatusBadRequest, "is not a CID"},
		{"/api/v1/forks/" + fork + "?x=1", http.StatusBadRequest, ""},
	} {
		r := get(t, base, tc.path)
		if r.code != tc.code || r.header.Get("Content-Type") != "application/json; charset=utf-8" || !strings.Contains(string(r.body), tc.want) {
			t.Errorf("GET %s: %d %q %s; want %d saying %q", tc.path, r.code, r.header.Get("Content-Type"), r.body, tc.code, tc.want)
		}
	}
}
