package local

import (
	"encoding/hex"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/internal/golden"
)

// TestVectors binds spec/vectors/chain-local.json to the code: block
// hashes, call encodings and the bytes a transaction's signature covers.
func TestVectors(t *testing.T) {
	type hashV struct {
		Number uint64 `json:"number"`
		Hash   string `json:"hash"`
	}
	type callV struct {
		Call string `json:"call"`
		Hex  string `json:"hex"`
	}
	v := struct {
		Seed         string  `json:"seed"`
		Blocks       []hashV `json:"blocks"`
		Calls        []callV `json:"calls"`
		SigningBytes struct {
			Genesis string `json:"genesis_hash"`
			Hotkey  string `json:"hotkey"`
			Nonce   uint64 `json:"nonce"`
			Call    string `json:"call"`
			Bytes   string `json:"bytes"`
		} `json:"signing_bytes"`
	}{Seed: "ledger devnet"}
	h := GenesisHash(v.Seed)
	for n := uint64(0); n <= 3; n++ {
		if n > 0 {
			h = NextHash(h, n)
		}
		v.Blocks = append(v.Blocks, hashV{n, h.String()})
	}
	calls := []Call{
		{Kind: CallSetCommitment, Netuid: 1, Fields: []chain.Data{chain.Raw([]byte("lm1:org/m@r1")), chain.Raw([]byte("chute:c1"))}},
		{Kind: CallSetWeights, Netuid: 1, Weights: chain.Weights{UIDs: []uint16{2, 3}, Values: []uint16{65535, 32768}, VersionKey: 7}},
		{Kind: CallCommitWeights, Netuid: 1, Hash: chain.Hash{0xab, 0xcd}},
		{Kind: CallRevealWeights, Netuid: 1, Weights: chain.Weights{UIDs: []uint16{2}, Values: []uint16{1}}, Salt: []uint16{9, 10}},
	}
	for _, c := range calls {
		b, err := c.Encode()
		if err != nil {
			t.Fatal(err)
		}
		v.Calls = append(v.Calls, callV{c.Kind.String(), hex.EncodeToString(b)})
	}
	genesis := GenesisHash(v.Seed)
	alice := hotkey(t, "//Alice").Public()
	call, _ := calls[2].Encode()
	v.SigningBytes.Genesis, v.SigningBytes.Hotkey, v.SigningBytes.Nonce, v.SigningBytes.Call = genesis.String(), alice.SS58(), 3, hex.EncodeToString(call)
	v.SigningBytes.Bytes = hex.EncodeToString(SigningBytes(genesis, alice, 3, call))
	golden.CheckJSON(t, "chain-local.json", v)
}
