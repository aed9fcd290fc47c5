package local

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// FuzzDecodeCall: no panic; an accepted call re-encodes to the same bytes.
func FuzzDecodeCall(f *testing.F) {
	for _, c := range []Call{
		{Kind: CallSetCommitment, Netuid: 1, Fields: []chain.Data{chain.Raw([]byte("x")), chain.Sha256Field([32]byte{1})}},
		{Kind: CallSetWeights, Netuid: 1, Weights: chain.Weights{UIDs: []uint16{1, 2}, Values: []uint16{3, 4}, VersionKey: 9}},
		{Kind: CallCommitWeights, Netuid: 1, Hash: chain.Hash{7}},
		{Kind: CallRevealWeights, Netuid: 1, Weights: chain.Weights{UIDs: []uint16{1}, Values: []uint16{3}}, Salt: []uint16{5}},
	} {
		b, err := c.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeCall(data)
		if err != nil {
			return
		}
		again, err := c.Encode()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("%x decoded to %+v which encodes as %x (%v)", data, c, again, err)
		}
	})
}

// FuzzTxJSON: no panic on any transaction body.
func FuzzTxJSON(f *testing.F) {
	f.Add([]byte(`{"hotkey":"5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY","nonce":0,"call":"00","signature":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var tx Tx
		if tx.UnmarshalJSON(data) != nil {
			return
		}
		out, err := tx.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var back Tx
		if err := back.UnmarshalJSON(out); err != nil || back.Hotkey != tx.Hotkey || back.Nonce != tx.Nonce || !bytes.Equal(back.Call, tx.Call) || back.Signature != tx.Signature {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// FuzzServerRequests: the server answers every body with a JSON status,
// never panics, and never accepts an unsigned write.
func FuzzServerRequests(f *testing.F) {
	d := newDevnet(f)
	c := newManual(f, d.genesis, "", nil)
	h := NewServer(c, testToken)
	f.Add("/v1/tx", []byte(`{"hotkey":"5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY","nonce":0,"call":"000100040461","signature":"`+string(bytes.Repeat([]byte("00"), 64))+`"}`))
	f.Add("/v1/admin/register", []byte(`{"hotkey":"5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY","stake":1,"validator":true}`))
	f.Add("/v1/admin/advance", []byte(`{"blocks":1}`))
	f.Fuzz(func(t *testing.T, path string, body []byte) {
		if path != "/v1/tx" && path != "/v1/admin/register" && path != "/v1/admin/advance" {
			return
		}
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer nope")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK {
			t.Fatalf("%s accepted %q", path, body)
		}
	})
}
