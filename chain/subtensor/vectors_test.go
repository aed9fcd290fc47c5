package subtensor

import (
	"encoding/hex"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/scale"
	"github.com/affine-ledger/ledger/internal/golden"
)

// TestVectors binds spec/vectors/chain-subtensor.json to the code: the
// Data and commitment encodings, the commit-reveal hash, call encodings at
// spec 425's indices, storage keys, eras and a signing payload. The unit
// tests of this package and of package chain check the same values against
// hand-written and independently computed bytes.
func TestVectors(t *testing.T) {
	type kv struct {
		Name string `json:"name"`
		Hex  string `json:"hex"`
	}
	var v struct {
		Fields      []kv `json:"commitment_fields"`
		CommitHash  []kv `json:"commit_hash"`
		Calls       []kv `json:"calls"`
		StorageKeys []kv `json:"storage_keys"`
		Eras        []kv `json:"eras"`
		Payload     kv   `json:"signing_payload"`
	}
	miner, _ := chain.MinerCommitment{Model: "org/model", Revision: "0123abcd", Chute: "3f2a9c1e-0d4b-4c55-9a7e-1b2c3d4e5f60", ModelHash: make([]byte, 32)}.Fields()
	minerInfo, _ := chain.EncodeFields(miner)
	val, _ := chain.EncodeFields(chain.ValidatorCommitment{Height: 812, Size: 40000, Root: [32]byte{1}}.Fields())
	v.Fields = []kv{{"miner org/model@0123abcd chute, zero model hash", hex.EncodeToString(minerInfo)}, {"validator height 812 size 40000 root 01 00..", hex.EncodeToString(val)}}
	r := chain.Reveal{Weights: chain.Weights{UIDs: []uint16{0, 1}, Values: []uint16{65535, 32768}}, Salt: []uint16{1, 2, 3, 4, 5, 6, 7, 8}}
	v.CommitHash = []kv{
		{"preimage: //Alice, netuid 1, uids [0 1], values [65535 32768], salt 1..8, version 0", hex.EncodeToString(chain.CommitPreimage(alice, 1, r))},
		{"hash", chain.CommitHash(alice, 1, r).String()},
	}
	sc, _ := SetCommitmentCall(CallIndex{18, 0}, 1, miner)
	v.Calls = []kv{
		{"Commitments.set_commitment (18,0) netuid 1, the miner fields", hex.EncodeToString(sc)},
		{"SubtensorModule.set_weights (7,0) netuid 1", hex.EncodeToString(SetWeightsCall(CallIndex{7, 0}, 1, r.Weights))},
		{"SubtensorModule.commit_weights (7,96) netuid 1", hex.EncodeToString(CommitWeightsCall(CallIndex{7, 96}, 1, chain.CommitHash(alice, 1, r)))},
		{"SubtensorModule.reveal_weights (7,97) netuid 1", hex.EncodeToString(RevealWeightsCall(CallIndex{7, 97}, 1, r))},
	}
	v.StorageKeys = []kv{
		{"Commitments.CommitmentOf(1, //Alice)", hex.EncodeToString(keyCommitment(1, alice))},
		{"SubtensorModule.Keys(1) prefix", hex.EncodeToString(keyKeysPrefix(1))},
		{"SubtensorModule.TotalHotkeyAlpha(//Alice, 1)", hex.EncodeToString(keyTotalHotkeyAlpha(alice, 1))},
		{"SubtensorModule.RevealPeriodEpochs(1)", hex.EncodeToString(keyRevealPeriod(1))},
	}
	for _, e := range []Era{{}, {Period: 64, Current: 42}, {Period: 64, Current: 1000000}} {
		var enc scale.Encoder
		e.Encode(&enc)
		v.Eras = append(v.Eras, kv{eraName(e), hex.EncodeToString(enc.Bytes())})
	}
	payload, _, err := SigningPayload(spec425, CommitWeightsCall(CallIndex{7, 96}, 1, chain.Hash{0xab}), SignParams{
		Era: Era{Period: 64, Current: 42}, Nonce: 5, SpecVersion: 425, TransactionVersion: 1, Genesis: chain.Hash{0x11}, EraBlock: chain.Hash{0x22},
	})
	if err != nil {
		t.Fatal(err)
	}
	v.Payload = kv{"commit_weights, spec 425 extensions, era (64, 42), nonce 5, tip 0, spec 425, tx 1, genesis 11 00.., era block 22 00..", hex.EncodeToString(payload)}
	golden.CheckJSON(t, "chain-subtensor.json", v)
}

func eraName(e Era) string {
	if e.Period == 0 {
		return "immortal"
	}
	return "mortal period " + itoa(e.Period) + " current " + itoa(e.Current)
}

func itoa(n uint64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
