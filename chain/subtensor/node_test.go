//go:build !(windows && arm64)

package subtensor

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	gethrpc "github.com/centrifuge/go-substrate-rpc-client/v4/gethrpc"
	"github.com/centrifuge/go-substrate-rpc-client/v4/types"

	"github.com/affine-ledger/ledger/chain"
)

// fakeNode answers the JSON-RPC methods Dial and Params call, over a
// websocket on loopback, from a storage map it is given for its head: a
// node that keeps only the head's state. The methods are Substrate's, as
// go-substrate-rpc-client's own server (gethrpc) dispatches them:
// chain_getHeader, chain_getBlockHash, state_getRuntimeVersion,
// state_getMetadata, state_getStorage, and the scans of maps (Weights,
// Keys) state_getKeysPaged and state_queryStorageAt.
type fakeNode struct {
	mu      sync.Mutex
	head    uint64
	spec    uint32
	meta    string
	storage map[string][]byte
}

// blockHashOf is the fake chain's hash of block n.
func blockHashOf(n uint64) chain.Hash {
	var h chain.Hash
	binary.LittleEndian.PutUint64(h[:], n)
	h[31] = 0xbb
	return h
}

// newFakeNode serves a node with runtime spec and metadata meta (hex) and
// returns it with a client of subnet netuid connected to it.
func newFakeNode(t *testing.T, netuid uint16, spec uint32, meta string) (*fakeNode, *Client) {
	t.Helper()
	n := &fakeNode{spec: spec, meta: meta, storage: map[string][]byte{}}
	srv := gethrpc.NewServer()
	for name, svc := range map[string]any{"chain": chainRPC{n}, "state": stateRPC{n}} {
		if err := srv.RegisterName(name, svc); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(srv.WebsocketHandler([]string{"*"}))
	t.Cleanup(func() { hs.Close(); srv.Stop() })
	c, err := Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), netuid)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return n, c
}

// set moves the head to block head with storage (key → SCALE value); a
// nil value removes the key. spec and meta change the runtime when meta
// is not empty (a runtime upgrade).
func (n *fakeNode) set(head uint64, storage map[string][]byte, spec uint32, meta string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.head = head
	for k, v := range storage {
		if v == nil {
			delete(n.storage, k)
		} else {
			n.storage[k] = v
		}
	}
	if meta != "" {
		n.spec, n.meta = spec, meta
	}
}

type chainRPC struct{ n *fakeNode }

func (r chainRPC) GetHeader() map[string]string {
	r.n.mu.Lock()
	defer r.n.mu.Unlock()
	return map[string]string{"number": fmt.Sprintf("0x%x", r.n.head)}
}

func (r chainRPC) GetBlockHash(num uint64) *string {
	r.n.mu.Lock()
	defer r.n.mu.Unlock()
	if num > r.n.head {
		return nil
	}
	h := blockHashOf(num)
	s := hexOf(h[:])
	return &s
}

type stateRPC struct{ n *fakeNode }

func (r stateRPC) GetRuntimeVersion() map[string]uint32 {
	r.n.mu.Lock()
	defer r.n.mu.Unlock()
	return map[string]uint32{"specVersion": r.n.spec, "transactionVersion": 1}
}

func (r stateRPC) GetMetadata() string {
	r.n.mu.Lock()
	defer r.n.mu.Unlock()
	return r.n.meta
}

// GetStorage answers for the head only, as a pruned node would for
// anything older than it keeps.
func (r stateRPC) GetStorage(key, at string) (*string, error) {
	r.n.mu.Lock()
	defer r.n.mu.Unlock()
	head := blockHashOf(r.n.head)
	if at != hexOf(head[:]) {
		return nil, errors.New("State already discarded for " + at)
	}
	k, err := unhex(key)
	if err != nil {
		return nil, err
	}
	v, ok := r.n.storage[string(k)]
	if !ok {
		return nil, nil
	}
	s := hexOf(v)
	return &s, nil
}

// GetKeysPaged lists the head's keys under prefix after start, in key
// order, at most count.
func (r stateRPC) GetKeysPaged(prefix string, count int, start, at string) ([]string, error) {
	r.n.mu.Lock()
	defer r.n.mu.Unlock()
	if err := r.n.atHead(at); err != nil {
		return nil, err
	}
	p, err1 := unhex(prefix)
	from, err2 := unhex(start)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	var ks []string
	for k := range r.n.storage {
		if strings.HasPrefix(k, string(p)) && k > string(from) {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	out := []string{}
	for _, k := range ks[:min(count, len(ks))] {
		out = append(out, hexOf([]byte(k)))
	}
	return out, nil
}

// QueryStorageAt answers one change set: each key with its value at the
// head, or null.
func (r stateRPC) QueryStorageAt(keys []string, at string) ([]map[string]any, error) {
	r.n.mu.Lock()
	defer r.n.mu.Unlock()
	if err := r.n.atHead(at); err != nil {
		return nil, err
	}
	changes := [][2]*string{}
	for _, key := range keys {
		k, err := unhex(key)
		if err != nil {
			return nil, err
		}
		ch := [2]*string{&key, nil}
		if v, ok := r.n.storage[string(k)]; ok {
			s := hexOf(v)
			ch[1] = &s
		}
		changes = append(changes, ch)
	}
	return []map[string]any{{"block": at, "changes": changes}}, nil
}

// atHead refuses a read at any block but the head; n.mu is held.
func (n *fakeNode) atHead(at string) error {
	head := blockHashOf(n.head)
	if at != hexOf(head[:]) {
		return errors.New("State already discarded for " + at)
	}
	return nil
}

func le16(v uint64) []byte { return binary.LittleEndian.AppendUint16(nil, uint16(v)) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// withStorage gives meta's pallet named pallet the storage items given
// (plain u32, type 2), under its name as prefix.
func withStorage(meta types.Metadata, pallet string, items ...string) types.Metadata {
	m := &meta.AsMetadataV14
	m.Pallets = append([]types.PalletMetadataV14(nil), m.Pallets...)
	for i := range m.Pallets {
		if string(m.Pallets[i].Name) != pallet {
			continue
		}
		st := types.StorageMetadataV14{Prefix: types.Text(pallet)}
		for _, item := range items {
			st.Items = append(st.Items, types.StorageEntryMetadataV14{
				Name: types.Text(item), Modifier: types.StorageFunctionModifierV0{IsDefault: true},
				Type: types.StorageEntryTypeV14{IsPlainType: true, AsPlainType: typeID(2)}, Fallback: types.Bytes{0, 0, 0, 0},
			})
		}
		m.Pallets[i].HasStorage, m.Pallets[i].Storage = true, st
	}
	return meta
}

// runtimeMeta is the hex metadata of a runtime with spec 425's signed
// extensions and, in SubtensorModule, the storage items given.
func runtimeMeta(t testing.TB, items ...string) string {
	t.Helper()
	var exts [][3]any
	for _, e := range spec425 {
		exts = append(exts, [3]any{e, 0, 1})
	}
	return hexMetadata(encodeMetadata(t, withStorage(syntheticMeta(exts), "SubtensorModule", items...)))
}
