package local

import (
	"encoding/json"
	"testing"
)

// FuzzParseGenesis: an accepted genesis passes Check and reads back the
// same after writing it out.
func FuzzParseGenesis(f *testing.F) {
	g := DefaultGenesis()
	g.Neurons = []GenesisNeuron{{Stake: 1000, Validator: true}}
	b, err := json.Marshal(g)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"tempo": 10, "block_time": "1ms"}`))
	f.Add([]byte(`{"block_time": "-5s"}`))
	f.Add([]byte(`{"neurons": [{"hotkey": "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"}]} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGenesis(data)
		if err != nil {
			return
		}
		if err := g.Check(); err != nil {
			t.Fatalf("accepted a genesis that fails Check: %v", err)
		}
		out, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseGenesis(out)
		if err != nil {
			t.Fatalf("%s does not read back: %v", out, err)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(out) {
			t.Fatalf("genesis changes on a round trip:\n%s\n%s", out, again)
		}
	})
}

// FuzzDecodeError: any error body from a chain server becomes an error,
// never a panic, and never nil.
func FuzzDecodeError(f *testing.F) {
	f.Add(400, []byte(`{"error":{"code":"bad_request","message":"no"}}`))
	f.Add(500, []byte(`not json`))
	f.Add(404, []byte(`{"error":{"code":""}}`))
	f.Fuzz(func(t *testing.T, status int, data []byte) {
		if decodeError(status, data) == nil {
			t.Fatalf("no error for HTTP %d %q", status, data)
		}
	})
}
