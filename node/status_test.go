package node_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/p2p"
)

// statusReaders are the two ways `ledger peers` reads a status: each reads
// data as the node would serve it.
var statusReaders = []struct {
	name string
	read func(t *testing.T, data []byte) (node.Status, error)
}{
	{"file", func(t *testing.T, data []byte) (node.Status, error) {
		dir := t.TempDir()
		if err := os.WriteFile(node.StatusFile(dir), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return node.ReadStatusFile(dir)
	}},
	{"endpoint", func(t *testing.T, data []byte) (node.Status, error) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/status" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(data)
		}))
		defer srv.Close()
		return node.FetchStatus(context.Background(), strings.TrimPrefix(srv.URL, "http://"))
	}},
}

// sampleStatus is a status as a validator's node writes it: indented, with
// a peer and a head.
func sampleStatus(t *testing.T) (node.Status, []byte) {
	t.Helper()
	alice, _ := keys.FromURI("//Alice")
	v := alice.Public()
	id, err := peer.Decode("12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA")
	if err != nil {
		t.Fatal(err)
	}
	st := node.Status{
		PeerID: id.String(), Addrs: []string{"/ip4/127.0.0.1/udp/4001/quic-v1/p2p/" + id.String()}, NetUID: 120, Validator: &v,
		Peers:     []p2p.PeerInfo{{ID: id, Addrs: []string{"/ip4/127.0.0.1/tcp/4002"}, Validator: &v, Chains: 3}},
		Heads:     []node.HeadInfo{{Validator: v, Height: 7, CID: codec.Sum([]byte("head")).String(), Transcripts: 21, TimeMS: 1_700_000_000_000}},
		UpdatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return st, append(data, '\n')
}

// TestStatusSizeBound: a status of exactly MaxStatusBytes (padded with
// JSON white space) is read from the file and from the endpoint; one of a
// byte more is refused by both, naming the bound.
func TestStatusSizeBound(t *testing.T) {
	want, data := sampleStatus(t)
	exact := append(data, bytes.Repeat([]byte{' '}, node.MaxStatusBytes-len(data))...)
	for _, r := range statusReaders {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			got, err := r.read(t, exact)
			if err != nil {
				t.Fatalf("status of exactly %d bytes: %v", node.MaxStatusBytes, err)
			}
			if got.PeerID != want.PeerID || len(got.Heads) != 1 || got.Heads[0] != want.Heads[0] || !got.UpdatedAt.Equal(want.UpdatedAt) {
				t.Fatalf("read %+v, want %+v", got, want)
			}
			_, err = r.read(t, append(exact, ' '))
			if bound := fmt.Sprintf("more than %d bytes", node.MaxStatusBytes); err == nil || !strings.Contains(err.Error(), bound) {
				t.Fatalf("status of %d bytes: err = %v, want one naming %q", node.MaxStatusBytes+1, err, bound)
			}
		})
	}
}

// TestStatusRefusals: what is not one status is refused by both readers.
func TestStatusRefusals(t *testing.T) {
	_, data := sampleStatus(t)
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "", "unexpected end"},
		{"cut short", string(data[:len(data)/2]), "unexpected end"},
		{"two objects", string(data) + string(data), "invalid character"},
		{"not an object", `"status"`, "cannot unmarshal"},
		{"bad validator", strings.Replace(string(data), `"validator": "5`, `"validator": "6`, 1), "bad SS58 address"},
	} {
		for _, r := range statusReaders {
			t.Run(tc.name+"/"+r.name, func(t *testing.T) {
				if _, err := r.read(t, []byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.want)
				}
			})
		}
	}
}

// TestStatusFileIsReadBounded: a status file that never ends (here
// /dev/zero) is refused after MaxStatusBytes, not read until memory runs
// out.
func TestStatusFileIsReadBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "status.json")); err != nil {
		t.Fatal(err)
	}
	_, err := node.ReadStatusFile(dir)
	if bound := fmt.Sprintf("more than %d bytes", node.MaxStatusBytes); err == nil || !strings.Contains(err.Error(), bound) {
		t.Fatalf("err = %v, want one naming %q", err, bound)
	}
}
