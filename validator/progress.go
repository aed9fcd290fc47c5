package validator

import (
	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/metrics"
)

// Stage says what a Progress reports.
type Stage string

// Stages of a duel.
const (
	// StageStart: the duel begins (Resumed > 0 when it continues one the
	// ledger holds transcripts of).
	StageStart Stage = "start"
	// StageOutcome: one outcome was counted in Env.
	StageOutcome Stage = "outcome"
	// StageDecided: the duel's record is durable; Winner and Record are
	// set.
	StageDecided Stage = "decided"
	// StageAbandoned: an unfinished duel found in the ledger cannot be
	// resumed (a side re-committed another model, the env set changed);
	// its transcripts stay in the log without a decision.
	StageAbandoned Stage = "abandoned"
)

// Progress is one step of a duel, for displays (the devnet's) and logs.
type Progress struct {
	Stage     Stage          `json:"stage"`
	Duel      record.DuelID  `json:"duel"`
	Start     record.Anchor  `json:"start"`
	Champion  keys.PublicKey `json:"champion"`
	Contender keys.PublicKey `json:"contender"`
	RatioPPM  uint32         `json:"ratio_ppm"`
	// Resumed counts the answered challenges recovered from the ledger.
	Resumed int `json:"resumed,omitempty"`
	// Reason says why a duel was abandoned.
	Reason string `json:"reason,omitempty"`

	// Env is the env of an outcome, with its state after it.
	Env      string        `json:"env,omitempty"`
	Outcome  string        `json:"outcome,omitempty"`
	Wins     uint32        `json:"wins"`
	Losses   uint32        `json:"losses"`
	Draws    uint32        `json:"draws"`
	Looks    int           `json:"looks"`
	LowerPPM uint32        `json:"lower_ppm"`
	UpperPPM uint32        `json:"upper_ppm"`
	Decision duel.Decision `json:"decision"`

	// Winner is the duel's winner once known (Open before).
	Winner duel.Decision `json:"winner"`
	// Record is the CID of the duel result (StageDecided).
	Record cid.Cid `json:"record,omitempty"`
}

func (r *run) progress(p Progress) {
	r.count(p)
	if r.v.cfg.Progress == nil {
		return
	}
	p.Duel, p.Start, p.RatioPPM = r.id, r.start, r.ratio
	p.Champion, p.Contender = r.champ.miner.Hotkey, r.cont.miner.Hotkey
	if p.Winner == duel.Open && r.d != nil {
		p.Winner = r.d.Winner()
	}
	r.v.cfg.Progress(p)
}

func (r *run) outcomeProgress(e *envRun, o duel.Outcome) {
	s := r.d.State(e.index)
	w, l, d := s.Counts()
	lower, upper := s.Bounds()
	r.progress(Progress{
		Stage: StageOutcome, Env: e.name, Outcome: string(o),
		Wins: w, Losses: l, Draws: d, Looks: s.Looks(), LowerPPM: lower, UpperPPM: upper,
		Decision: s.Decision(),
	})
}

// count feeds a step of the duel to the metrics.
func (r *run) count(p Progress) {
	m := r.v.cfg.Metrics
	switch p.Stage {
	case StageStart:
		m.DuelStarted()
	case StageOutcome:
		m.DuelOutcome(p.Env, outcomeLabel(p.Outcome))
	case StageDecided:
		m.DuelEnded(p.Winner.String())
	}
}

func outcomeLabel(o string) string {
	switch o {
	case string(duel.Win):
		return metrics.OutcomeWin
	case string(duel.Loss):
		return metrics.OutcomeLoss
	}
	return metrics.OutcomeDraw
}
