package devnet

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/node"
	"github.com/affine-ledger/ledger/verify"
)

// Summary is what a devnet run did and left behind.
type Summary struct {
	Dir string `json:"dir"`
	// Goal tells whether a champion was crowned and every validator set
	// weights for it before the run's time was up.
	Goal bool `json:"goal"`
	// Interrupted tells that the run was stopped (Run's context ended)
	// before the goal and before its time was up.
	Interrupted bool    `json:"interrupted,omitempty"`
	Seconds     float64 `json:"seconds"`
	// Champion is the consensus winner of validator 0's last epoch (nil if
	// none); Epoch that epoch.
	Champion *Miner `json:"champion"`
	Epoch    uint64 `json:"epoch"`
	// RatioToBeatPPM is the ratio a contender must beat now, per
	// validator's own history (0 before its first duel).
	RatioToBeatPPM []uint32       `json:"ratio_to_beat_ppm"`
	Duels          []DuelSummary  `json:"duels"`
	VTrust         []TrustRow     `json:"vtrust"`
	Commitments    []Commitment   `json:"commitments"`
	Weights        []WeightRow    `json:"weights"`
	Stores         []StoreSummary `json:"stores"`
	Miners         []*Miner       `json:"miners"`
	// Problems are what went wrong without stopping the run.
	Problems []string `json:"problems,omitempty"`
}

// OK reports whether the goal was reached and every store verified.
func (s *Summary) OK() bool {
	if !s.Goal || len(s.Stores) == 0 {
		return false
	}
	for _, st := range s.Stores {
		if !st.OK {
			return false
		}
	}
	return true
}

// DuelSummary is one decided duel of one validator.
type DuelSummary struct {
	Validator int    `json:"validator"`
	Champion  int    `json:"champion"`  // miner index
	Contender int    `json:"contender"` // miner index
	Winner    string `json:"winner"`
	RatioPPM  uint32 `json:"ratio_ppm"`
	// Envs are the per-env win rates of the contender with their Wilson
	// bounds at the last look.
	Envs []duel.EnvResult `json:"envs"`
}

// TrustRow is one validator's vTrust in validator 0's last epoch.
type TrustRow struct {
	Validator   int    `json:"validator"`
	Stake       uint64 `json:"stake"`
	VTrustPPM   uint32 `json:"vtrust_ppm"`
	ReexecPPM   uint32 `json:"reexec_ppm"`
	DecisionPPM uint32 `json:"decision_ppm"`
	Agreed      uint64 `json:"agreed"`
	Faulted     uint64 `json:"faulted"`
	HardFault   bool   `json:"hard_fault"`
}

// Commitment is one on-chain commitment, parsed.
type Commitment struct {
	Who   string `json:"who"` // "v0", "m1"
	Block uint64 `json:"block"`
	Text  string `json:"text"`
}

// WeightRow is the weights a validator has in effect on the chain.
type WeightRow struct {
	Validator int      `json:"validator"`
	UIDs      []uint16 `json:"uids"`
	Values    []uint16 `json:"values"`
}

// StoreSummary is one validator's store after the run, and its audit.
type StoreSummary struct {
	Validator   int      `json:"validator"`
	Dir         string   `json:"dir"`
	Bytes       int64    `json:"bytes"`
	Chains      int      `json:"chains"`
	Blocks      int      `json:"blocks"`
	Transcripts int      `json:"transcripts"`
	OK          bool     `json:"ok"`
	Failures    []string `json:"failures,omitempty"`
	Seconds     float64  `json:"seconds"`
	// Command is the command that audits the store again.
	Command string `json:"command"`
}

func (s *Summary) write(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// who names a hotkey: vK for a validator, mK for a miner.
func (d *network) who(k keys.PublicKey) string {
	for i, v := range d.keys {
		if v.Public() == k {
			return fmt.Sprintf("v%d", i)
		}
	}
	if m := d.miner(k); m != nil {
		return fmt.Sprintf("m%d", m.Index)
	}
	return k.Short()
}

func (d *network) miner(k keys.PublicKey) *Miner {
	for _, m := range d.miners {
		if m.Hotkey == k {
			return m
		}
	}
	return nil
}

func (d *network) minerIndex(k keys.PublicKey) int {
	if m := d.miner(k); m != nil {
		return m.Index
	}
	return -1
}

// collect fills the summary from the drivers, the stores and the chain,
// before the nodes close.
func (d *network) collect(ctx context.Context, sum *Summary) error {
	sum.Miners = d.miners
	if r, ok := d.drivers[0].Last(); ok {
		sum.Epoch = r.Epoch
		sum.Champion = d.miner(r.Output.Champion.Hotkey)
		for _, t := range r.Output.Validators {
			i := -1
			for j, k := range d.keys {
				if k.Public() == t.Hotkey {
					i = j
				}
			}
			sum.VTrust = append(sum.VTrust, TrustRow{Validator: i, Stake: t.Stake, VTrustPPM: t.VTrustPPM, ReexecPPM: t.ReexecPPM,
				DecisionPPM: t.DecisionPPM, Agreed: t.Agreed, Faulted: t.Faulted, HardFault: t.HardFault})
		}
	}
	head, err := d.chain.Head(ctx)
	if err != nil {
		return err
	}
	params := duel.DefaultFrontierParams()
	d.mu.Lock()
	decided := d.decided
	vals := d.validators
	d.mu.Unlock()
	for i := range d.keys {
		ratio := uint32(0)
		if vals[i] != nil {
			if f := vals[i].History().Frontier; f != nil {
				ratio, _ = params.Ratio(*f, head.Number)
			}
		}
		sum.RatioToBeatPPM = append(sum.RatioToBeatPPM, ratio)
		for _, p := range decided[i] {
			raw, err := d.nodes[i].Store().Object(p.Record)
			if err != nil {
				return fmt.Errorf("devnet: read validator %d's duel result: %w", i, err)
			}
			r, err := duel.Decode(raw)
			if err != nil {
				return fmt.Errorf("devnet: validator %d's duel result: %w", i, err)
			}
			sum.Duels = append(sum.Duels, DuelSummary{Validator: i, Champion: d.minerIndex(r.Champion.Hotkey),
				Contender: d.minerIndex(r.Contender.Hotkey), Winner: r.Winner, RatioPPM: r.RatioPPM, Envs: r.Envs})
		}
	}
	cs, err := d.chain.Commitments(ctx)
	if err != nil {
		return err
	}
	for _, c := range cs {
		row := Commitment{Who: d.who(c.Hotkey), Block: c.Block}
		if vc, err := chain.ParseValidatorCommitment(c.Fields); err == nil {
			row.Text = fmt.Sprintf("checkpoint: height %d, %d transcripts, root %x", vc.Height, vc.Size, vc.Root[:8])
		} else if mc, err := chain.ParseMinerCommitment(c.Fields); err == nil {
			row.Text = fmt.Sprintf("model %s@%s at %s", mc.Model, mc.Revision, mc.Endpoint)
		}
		sum.Commitments = append(sum.Commitments, row)
	}
	m, err := d.chain.Metagraph(ctx)
	if err != nil {
		return err
	}
	rows, err := d.chain.Weights(ctx)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if int(r.UID) < len(m.Neurons) {
			who := d.who(m.Neurons[r.UID].Hotkey)
			var i int
			if _, err := fmt.Sscanf(who, "v%d", &i); err == nil {
				sum.Weights = append(sum.Weights, WeightRow{Validator: i, UIDs: r.UIDs, Values: r.Values})
			}
		}
	}
	return nil
}

// verifyStores audits every validator's store, all chains, with
// re-execution, as `ledger verify --data DIR/vK` does.
func (d *network) verifyStores(sum *Summary) {
	for i := range d.keys {
		dir := ValidatorDir(d.cfg.Dir, i)
		st := StoreSummary{Validator: i, Dir: dir, Bytes: dirSize(dir), Command: "ledger verify --data " + dir}
		start := time.Now()
		rep, err := verifyDir(node.StoreDir(dir))
		st.Seconds = time.Since(start).Seconds()
		if err != nil {
			st.Failures = []string{err.Error()}
		} else {
			st.OK, st.Chains, st.Blocks, st.Transcripts = rep.OK, rep.Chains, rep.Blocks, rep.Transcripts
			for _, f := range rep.Failures {
				st.Failures = append(st.Failures, f.String())
			}
		}
		sum.Stores = append(sum.Stores, st)
		d.emit(Event{Kind: KindVerified, Validator: i, Verified: &st})
	}
}

func verifyDir(dir string) (verify.Report, error) {
	s, err := verify.OpenStore(dir)
	if err != nil {
		return verify.Report{}, err
	}
	defer s.Close()
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		return verify.Report{}, err
	}
	set, err := verify.NewDiskSet("")
	if err != nil {
		return verify.Report{}, err
	}
	defer set.Close()
	return verify.VerifyStore(s, heads, verify.StoreScope{}, verify.Options{Reexecute: true, Challenges: set})
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if fi, err := e.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
