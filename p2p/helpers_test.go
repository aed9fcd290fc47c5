package p2p

import (
	"testing"

	"github.com/affine-ledger/ledger/codec"
)

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	data, err := codec.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
