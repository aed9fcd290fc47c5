package proofs_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/proofs"
)

// forkVectors is the encoded fork proofs of spec/vectors/ledger.json,
// format 2 first.
func forkVectors(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, v := range recordtest.ForkProofVectors(tb) {
		out = append(out, v.Raw)
	}
	return out
}

// TestReadForkProof: a fork proof file is recognised by its first byte
// and read as the record; of format 2 it proves equivocation on its
// network, of format 1 it verifies but proves none (ErrNotEvidence).
func TestReadForkProof(t *testing.T) {
	t.Parallel()
	vecs := forkVectors(t)
	for i, raw := range vecs {
		p, err := proofs.ReadProof(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("vector %d: %v", i, err)
		}
		fp, ok := p.(*proofs.ForkProof)
		if !ok {
			t.Fatalf("vector %d read as %T", i, p)
		}
		proved, err := proofs.VerifyProof(fp)
		if proved.Type != proofs.ForkType || proved.Fork != codec.Sum(raw).String() || proved.Block == "" || proved.OtherBlock == "" ||
			proved.Format == nil || proved.ProvesEquivocation == nil {
			t.Fatalf("vector %d proves %+v", i, proved)
		}
		switch i {
		case 0:
			if err != nil || !*proved.ProvesEquivocation || proved.Network == nil || *proved.Format != 2 {
				t.Errorf("format 2: %v, %+v", err, proved)
			}
		case 1:
			if !errors.Is(err, record.ErrNotEvidence) || *proved.ProvesEquivocation || proved.Network != nil || *proved.Format != 1 {
				t.Errorf("format 1: %v, %+v; want a proof of no equivocation", err, proved)
			}
		}
	}

	// Not canonical, or cut short: no proof file; the validator altered: a
	// proof that does not verify.
	long := append(append([]byte(nil), vecs[0]...), 0)
	for name, data := range map[string][]byte{"trailing byte": long, "cut short": vecs[0][:len(vecs[0])/2]} {
		if _, err := proofs.ReadProof(bytes.NewReader(data)); !errors.Is(err, proofs.ErrProofFormat) || !strings.Contains(err.Error(), "fork proof") {
			t.Errorf("%s: %v, want no proof file naming the fork proof", name, err)
		}
	}
	bad := append([]byte(nil), vecs[0]...)
	bad[len(bad)-1] ^= 1 // the validator's key, the last member in canonical order
	p, err := proofs.ReadProof(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := proofs.VerifyProof(p); !errors.Is(err, proofs.ErrProof) {
		t.Errorf("altered validator: %v, want ErrProof", err)
	}
}

// TestClaim: an asserted network passes a proof of it and fails one of
// another, or of blocks that name none, naming both.
func TestClaim(t *testing.T) {
	t.Parallel()
	n := record.Network{Genesis: record.Hash{1}, Netuid: 7}
	other, netuid := record.Hash{2}, uint16(8)
	for _, tc := range []struct {
		name  string
		claim proofs.Claim
		net   *record.Network
		want  []string
	}{
		{"none asserted", proofs.Claim{}, nil, nil},
		{"same genesis", proofs.Claim{Genesis: &n.Genesis}, &n, nil},
		{"same network", proofs.Claim{Genesis: &n.Genesis, Netuid: &n.Netuid}, &n, nil},
		{"other genesis", proofs.Claim{Genesis: &other}, &n, []string{n.Genesis.String(), other.String()}},
		{"other netuid", proofs.Claim{Netuid: &netuid}, &n, []string{"netuid 7 of", "netuid 8 of any chain"}},
		{"no network", proofs.Claim{Netuid: &n.Netuid}, nil, []string{"name no network", "netuid 7 of any chain"}},
	} {
		err := tc.claim.Check(proofs.Proved{Network: tc.net})
		if (err == nil) != (tc.want == nil) || (err != nil && !errors.Is(err, proofs.ErrProof)) {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to name %q", tc.name, err, w)
			}
		}
	}
}
