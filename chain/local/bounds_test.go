package local

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/keys"
)

// TestCallVectorBound: a call's vectors of exactly maxVec elements decode;
// one more is refused, naming the vector.
func TestCallVectorBound(t *testing.T) {
	t.Parallel()
	vec := func(n int) []uint16 { return make([]uint16, n) }
	for _, kind := range []CallKind{CallSetWeights, CallRevealWeights} {
		for _, n := range []int{maxVec, maxVec + 1} {
			c := Call{Kind: kind, Netuid: 1, Salt: vec(1)}
			c.Weights.UIDs, c.Weights.Values = vec(n), vec(1)
			b, err := c.Encode()
			must(t, "encode", err)
			got, err := DecodeCall(b)
			switch {
			case n == maxVec && (err != nil || len(got.Weights.UIDs) != maxVec):
				t.Errorf("%s with %d uids: %d decoded, %v", kind, n, len(got.Weights.UIDs), err)
			case n > maxVec && (err == nil || !strings.Contains(err.Error(), "uids")):
				t.Errorf("%s with %d uids: err %v, want a refusal naming uids", kind, n, err)
			}
		}
	}
}

// TestNeuronBound: MaxNeurons neurons fit, in a genesis or by
// registration; one more is refused.
func TestNeuronBound(t *testing.T) {
	t.Parallel()
	g := newDevnet(t).genesis
	g.Neurons = g.Neurons[:0]
	hk := func(i int) keys.PublicKey {
		var k keys.PublicKey
		k[0], k[1] = byte(i), byte(i>>8)
		return k
	}
	for i := range MaxNeurons {
		g.Neurons = append(g.Neurons, GenesisNeuron{Hotkey: hk(i), Stake: 1})
	}
	must(t, "a genesis of MaxNeurons", g.Check())
	over := g
	over.Neurons = append(g.Neurons[:MaxNeurons:MaxNeurons], GenesisNeuron{Hotkey: hk(MaxNeurons), Stake: 1})
	if err := over.Check(); err == nil || !strings.Contains(err.Error(), "at most 256") {
		t.Fatalf("a genesis of %d neurons: %v", len(over.Neurons), err)
	}

	g.Neurons = g.Neurons[:MaxNeurons-1]
	c := newManual(t, g, "", nil)
	if _, err := c.Register(hk(MaxNeurons-1), 1, false); err != nil {
		t.Fatalf("registering neuron %d: %v", MaxNeurons, err)
	}
	if _, err := c.Register(hk(MaxNeurons), 1, false); err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("registering neuron %d: %v", MaxNeurons+1, err)
	}
}

// TestAdvanceBound: one admin request advances at most maxAdvance blocks.
func TestAdvanceBound(t *testing.T) {
	t.Parallel()
	c := newManual(t, newDevnet(t).genesis, "", nil)
	url := serve(t, c)
	for _, n := range []int{maxAdvance + 1, maxAdvance} {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/admin/advance", bytes.NewReader([]byte(fmt.Sprintf(`{"blocks": %d}`, n))))
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		must(t, "advance", err)
		var body struct {
			Number uint64 `json:"number"`
		}
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		switch {
		case n > maxAdvance && resp.StatusCode != http.StatusBadRequest:
			t.Errorf("advance %d: status %d, want 400", n, resp.StatusCode)
		case n == maxAdvance && (resp.StatusCode != http.StatusOK || body.Number != maxAdvance):
			t.Errorf("advance %d: status %d, head %d", n, resp.StatusCode, body.Number)
		}
	}
}
