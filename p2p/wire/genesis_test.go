package wire

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// statusWith is a status request whose genesis key holds v, encoded by
// hand so that it can hold what a Genesis cannot.
func statusWith(t *testing.T, v any) []byte {
	t.Helper()
	return mustMarshal(t, map[string]any{"status": map[string]any{
		"netuid": 1, "genesis": v, "heads": []any{}, "forks": []any{}, "binding": nil,
	}})
}

// A status names its sender's chain by 32 bytes, or by null while its
// store has no network; both round-trip, in requests and in responses.
func TestStatusGenesisRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		net  record.Network
		want any // the genesis key's value
	}{
		{"bound", recordtest.Network, recordtest.Network.Genesis[:]},
		{"no network yet", record.Network{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &Status{NetUID: 1, Genesis: GenesisOf(tc.net), Heads: []Head{}, Forks: []codec.Link{}}
			req := mustMarshal(t, Request{Status: st})
			if want := statusWith(t, tc.want); !bytes.Equal(req, want) {
				t.Fatalf("encoded %x, want %x", req, want)
			}
			r, err := DecodeRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := DecodeResponse(mustMarshal(t, Response{Status: st}))
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []*Genesis{r.Status.Genesis, resp.Status.Genesis} {
				if (got == nil) != tc.net.IsZero() || (got != nil && record.Hash(*got) != tc.net.Genesis) {
					t.Fatalf("genesis of %v decoded as %v", tc.net, got)
				}
			}
		})
	}
}

// A genesis that is not 32 bytes, or is 32 zeros (no chain: a node of no
// network says null), is a bad message, and the error says what is wrong
// with it.
func TestStatusGenesisRejects(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value any
		want  string
	}{
		{"31 bytes", make([]byte, 31), "genesis: 31 bytes, want 32"},
		{"33 bytes", make([]byte, 33), "genesis: 33 bytes, want 32"},
		{"empty", []byte{}, "genesis: 0 bytes, want 32"},
		{"text", strings.Repeat("a", 32), "genesis"},
		{"integer", 7, "genesis"},
		{"zeros", make([]byte, 32), "genesis is all zeros"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := statusWith(t, tc.value)
			_, err := DecodeRequest(data)
			if !errors.Is(err, ErrBadMessage) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("request: err = %v, want ErrBadMessage mentioning %q", err, tc.want)
			}
			// The same status as a response ("status" is its key there too).
			_, err = DecodeResponse(data)
			if !errors.Is(err, ErrBadMessage) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("response: err = %v, want ErrBadMessage mentioning %q", err, tc.want)
			}
		})
	}
	// Without the key at all (a status of /ledger/sync/1): no unknown or
	// missing keys.
	old := mustMarshal(t, map[string]any{"status": map[string]any{"netuid": 1, "heads": []any{}, "forks": []any{}, "binding": nil}})
	if _, err := DecodeRequest(old); !errors.Is(err, ErrBadMessage) {
		t.Fatalf("a status without genesis decoded: %v", err)
	}
}
