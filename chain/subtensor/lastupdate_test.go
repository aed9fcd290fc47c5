//go:build !(windows && arm64)

package subtensor

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain/scale"
)

// vecU64 is a SCALE Vec<u64>.
func vecU64(vs ...uint64) []byte {
	var e scale.Encoder
	e.Compact(uint64(len(vs)))
	for _, v := range vs {
		e.U64(v)
	}
	return e.Bytes()
}

// weightsOf is a SCALE Weights value: Vec<(u16, u16)>.
func weightsOf(pairs ...uint16) []byte {
	var e scale.Encoder
	e.Compact(uint64(len(pairs) / 2))
	for _, v := range pairs {
		e.U16(v)
	}
	return e.Bytes()
}

// TestWeightsLastUpdate: Weights gives each row its uid's LastUpdate
// (SubtensorModule.LastUpdate, a Vec<u64> by uid keyed by the netuid
// storage index, Identity), read at the same block; a uid past the end
// of the vector, or a subnet with none stored, reads 0, and a value that
// does not decode fails the read, naming the item.
func TestWeightsLastUpdate(t *testing.T) {
	t.Parallel()
	weightKey := func(uid uint16) string { return string(append(keyWeightsPrefix(3), le16(uint64(uid))...)) }
	for _, c := range []struct {
		name       string
		lastUpdate []byte
		want       []uint64 // of uids 0, 2 and 5
		err        string
	}{
		{"stored", vecU64(40, 0, 812, 0, 0, 7), []uint64{40, 812, 7}, ""},
		{"shorter than the uids", vecU64(40, 0, 812), []uint64{40, 812, 0}, ""},
		{"absent", nil, []uint64{0, 0, 0}, ""},
		{"truncated", vecU64(40, 0, 812)[:20], nil, "LastUpdate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			node, cl := newFakeNode(t, 3, 425, runtimeMeta(t, "Tempo"))
			storage := map[string][]byte{
				weightKey(0): weightsOf(2, 65535, 5, 100),
				weightKey(2): weightsOf(2, 65535),
				weightKey(5): weightsOf(0, 1),
				// Another subnet's, which the read must not mix in.
				string(keyNetVec("LastUpdate", 4)): vecU64(1, 1, 1, 1, 1, 1),
			}
			if c.lastUpdate != nil {
				storage[string(keyNetVec("LastUpdate", 3))] = c.lastUpdate
			}
			node.set(900, storage, 0, "")
			rows, err := cl.Weights(context.Background())
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("rows %+v, err %v; want an error naming %s", rows, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var uids, got []uint64
			for _, r := range rows {
				uids, got = append(uids, uint64(r.UID)), append(got, r.LastUpdate)
			}
			if !slices.Equal(uids, []uint64{0, 2, 5}) || !slices.Equal(got, c.want) {
				t.Fatalf("rows of uids %v with last_update %v; want uids [0 2 5] with %v", uids, got, c.want)
			}
			if r := rows[0]; !slices.Equal(r.UIDs, []uint16{2, 5}) || !slices.Equal(r.Values, []uint16{65535, 100}) {
				t.Fatalf("uid 0's row %+v", r)
			}
		})
	}
}

// FuzzDecodeU64s: a LastUpdate value never panics the decoder, and one it
// takes is exactly the encoding of what it returns.
func FuzzDecodeU64s(f *testing.F) {
	f.Add(vecU64(40, 0, 812))
	f.Add(vecU64())
	f.Add([]byte{0xfd, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		vs, err := decodeU64s(b)
		if err != nil {
			return
		}
		if got := vecU64(vs...); string(got) != string(b) {
			t.Fatalf("%x decoded to %v, which encodes as %x", b, vs, got)
		}
	})
}
