package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/local"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestVerifyChainVtrustWeights runs `verify --chain`, `vtrust show` and
// `weights show` against a store of three validators, one of which lies
// about a reward and commits a checkpoint its ledger does not hold.
func TestVerifyChainVtrustWeights(t *testing.T) {
	const liar = 2
	dir := t.TempDir()
	c, spec := validatorsChain(t, []*keys.Hotkey{verifytest.Key(0), verifytest.Key(1), verifytest.Key(2)})
	ctx := context.Background()
	// The ledger of the chain's subnet, as its validators' nodes write it.
	s, net := openChainStore(t, dir, c)
	ks, err := verifytest.Build(s, verifytest.Spec{Validators: 3, Blocks: 2, PerBlock: 2, Envs: []string{"mult8"},
		Mutate: func(v, b, i int, tr *record.Transcript) {
			if v == liar && b == 0 && i == 0 {
				tr.Reward++
				tr.TurnRewards[len(tr.TurnRewards)-1]++
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range ks {
		h, err := s.Head(k.Public())
		if err != nil {
			t.Fatal(err)
		}
		vc := chain.ValidatorCommitment{Height: h.Block.Height, Size: h.Checkpoint.Size, Root: h.Checkpoint.Root}
		if i == liar {
			vc.Root[31] ^= 0x80
		}
		if err := c.SetCommitment(ctx, k, vc.Fields()); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetWeights(ctx, ks[0], chain.Weights{UIDs: []uint16{1}, Values: []uint16{65535}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Advance(5); err != nil {
		t.Fatal(err)
	}
	s.Close()

	out, code := runCLI(t, "verify", "--data", dir, "--chain", spec, "--no-reexec", "--json")
	if code != exitCheckFail {
		t.Fatalf("verify --chain: exit %d, want %d (a commitment does not match)\n%s", code, exitCheckFail, out)
	}
	var rep verify.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Failures) != 1 || rep.Failures[0].Validator != ks[liar].Public().String() || !strings.Contains(rep.Failures[0].Reason, "commitment") {
		t.Fatalf("failures %+v, want one about the liar's commitment", rep.Failures)
	}
	if rep.Commitments == nil || *rep.Commitments != len(ks) {
		t.Fatalf("commitments %v in %s, want %d checked", rep.Commitments, out, len(ks))
	}
	if rep.Network == nil || *rep.Network != net {
		t.Fatalf("verify --chain: network %v, want the chain's", rep.Network)
	}
	out, _ = runCLI(t, "verify", "--data", dir, "--no-reexec", "--json")
	if strings.Contains(out, `"commitments"`) {
		t.Fatalf("verify without --chain reports commitments: %s", out)
	}
	// --chain asserts its network: a --genesis or --netuid of another
	// contradicts it.
	for _, flag := range [][]string{{"--genesis", recordtest.Network.Genesis.String()}, {"--netuid", "4242"}} {
		code, _, errs := ledgerRun(t, append([]string{"verify", "--data", dir, "--chain", spec, "--no-reexec"}, flag...)...)
		if code != exitUsage || !strings.Contains(errs, flag[0]+" ") || !strings.Contains(errs, "contradicts --chain") {
			t.Errorf("verify --chain %v: exit %d\n%s", flag, code, errs)
		}
	}

	out, code = runCLI(t, "vtrust", "show", "--data", dir, "--chain", spec, "--json")
	if code != exitOK {
		t.Fatalf("vtrust show: exit %d\n%s", code, out)
	}
	var vt struct {
		Epoch  uint64 `json:"epoch"`
		Output struct {
			Validators []struct {
				Hotkey    string `json:"hotkey"`
				VTrustPPM uint32 `json:"vtrust_ppm"`
				HardFault bool   `json:"hard_fault"`
			} `json:"validators"`
		} `json:"output"`
	}
	if err := json.Unmarshal([]byte(out), &vt); err != nil {
		t.Fatal(err)
	}
	if vt.Epoch != 1 || len(vt.Output.Validators) != 3 {
		t.Fatalf("vtrust show: %s", out)
	}
	for _, v := range vt.Output.Validators {
		if lying := v.Hotkey == ks[liar].Public().String(); lying != v.HardFault || lying != (v.VTrustPPM == 0) {
			t.Errorf("validator %s: vtrust %d ppm, hard fault %v", v.Hotkey, v.VTrustPPM, v.HardFault)
		}
	}

	out, code = runCLI(t, "weights", "show", "--chain", spec, "--json")
	if code != exitOK {
		t.Fatalf("weights show: exit %d\n%s", code, out)
	}
	var rows []weightRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Hotkey != ks[0].Public() || len(rows[0].UIDs) != 1 || rows[0].UIDs[0] != 1 || rows[0].Hotkeys[0] != ks[1].Public() {
		t.Fatalf("weights show: %+v", rows)
	}
}

// TestVtrustShowEpochs: epochs start at 1, an explicit --epoch 0 is not
// "the default"; an epoch whose window [(K-1)·tempo, K·tempo) overflows the
// block numbers does not exist (2^61·360 = 45·2^64: the end wrapped to
// block 0, and an empty epoch was reported clean); and before the first
// epoch has ended there is nothing to show, which is no failed check.
// All three are usage (exit 2).
func TestVtrustShowEpochs(t *testing.T) {
	t.Parallel()
	dir, _ := builtLedger(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--epoch", "0"}, "--epoch 0"},
		{[]string{"--epoch", "2305843009213693952"}, "--epoch 2305843009213693952"},
		{nil, "no epoch has ended yet"},
		// Not the chain's "block 360 is past the head": the epoch has not ended.
		{[]string{"--epoch", "1"}, "--epoch 1 has not ended"},
	} {
		args := append([]string{"vtrust", "show", "--data", dir, "--chain", "local"}, c.args...)
		code, out, errs := ledgerRun(t, args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want %d saying %q: %s %s", c.args, code, exitUsage, c.want, out, errs)
		}
	}
}

// TestVtrustShowNamesEquivocators: the epoch leaves out a validator with a
// fork proof anchored before its end; vtrust show says whom, in JSON and
// in text, rather than have it vanish from the table.
func TestVtrustShowNamesEquivocators(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	ks, err := verifytest.Build(s, verifytest.Spec{Validators: 3, Blocks: 2, PerBlock: 2, Envs: []string{"mult8"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verifytest.Equivocate(s, ks[1], 0); err != nil {
		t.Fatal(err)
	}
	s.Close()
	c, spec := validatorsChain(t, ks)
	if err := c.Advance(5); err != nil {
		t.Fatal(err)
	}

	out, code := runCLI(t, "vtrust", "show", "--data", dir, "--chain", spec, "--json")
	if code != exitOK {
		t.Fatalf("vtrust show: exit %d\n%s", code, out)
	}
	var vt struct {
		Equivocators []string `json:"equivocators"`
		Output       struct {
			Validators []struct {
				Hotkey string `json:"hotkey"`
			} `json:"validators"`
		} `json:"output"`
	}
	if err := json.Unmarshal([]byte(out), &vt); err != nil {
		t.Fatal(err)
	}
	eve := ks[1].Public().String()
	if len(vt.Equivocators) != 1 || vt.Equivocators[0] != eve {
		t.Fatalf("equivocators %v, want [%s]", vt.Equivocators, eve)
	}
	for _, v := range vt.Output.Validators {
		if v.Hotkey == eve {
			t.Fatalf("the equivocator is in the epoch's table: %s", out)
		}
	}
	text, code := runCLI(t, "vtrust", "show", "--data", dir, "--chain", spec)
	if code != exitOK || !strings.Contains(text, "left out: "+eve+" (equivocated)") {
		t.Fatalf("vtrust show: exit %d, want the equivocator named:\n%s", code, text)
	}
}

// validatorsChain starts a manual local chain of tempo 5 on which ks are
// validators of stake 100, served over loopback HTTP; it returns the
// chain and its --chain spec. Both stop with the test.
func validatorsChain(t *testing.T, ks []*keys.Hotkey) (*local.Chain, string) {
	t.Helper()
	g := local.DefaultGenesis()
	g.Seed, g.Tempo, g.BlockTime, g.CommitReveal = t.Name(), 5, local.Duration(time.Second), false
	for _, k := range ks {
		g.Neurons = append(g.Neurons, local.GenesisNeuron{Hotkey: k.Public(), Stake: 100, Validator: true})
	}
	c, err := local.New(local.Options{Genesis: &g, Manual: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	srv := httptest.NewServer(local.NewServer(c, "token"))
	t.Cleanup(srv.Close)
	return c, "local+" + srv.URL
}
