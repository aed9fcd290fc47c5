package epoch

import (
	"encoding/hex"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/vtrust"
)

// logWinner says what epoch k's consensus was: its winner, whether it
// dethroned the champion, and how much was voted on; or that there is no
// winner to set weights for, and why. An operator reads here, not in the
// report, why the validator set the weights it did or none.
func (d *Driver) logWinner(k uint64, out vtrust.Output) {
	l := d.cfg.Logger
	if out.Champion.Hotkey == (keys.PublicKey{}) {
		l.Info("epoch: no consensus winner", "epoch", k,
			"why", "no champion: no miner was queued on the chain at the epoch's first block",
			"duels", len(out.Duels), "validators", len(out.Validators))
		return
	}
	held := len(out.Changes) == 0
	if len(out.Weights.UIDs) == 0 {
		l.Info("epoch: no consensus winner to set weights for", "epoch", k,
			"why", "the winner holds no uid on the subnet", "winner", out.Champion.Hotkey.String(),
			"champion_held", held, "duels", len(out.Duels), "validators", len(out.Validators))
		return
	}
	l.Info("epoch: consensus winner", "epoch", k, "winner", out.Champion.Hotkey.String(),
		"model_hash", shortHex(out.Champion.ModelHash), "uid", out.Weights.UIDs[0],
		"champion_held", held, "dethrones", len(out.Changes), "duels", len(out.Duels), "standing_votes", standingVotes(out),
		"validators", len(out.Validators))
}

// standingVotes counts the votes of earlier epochs that counted in out.
func standingVotes(out vtrust.Output) int {
	n := 0
	for _, d := range out.Duels {
		n += d.Standing
	}
	return n
}

// shortHex is the first 8 bytes of b in hex: enough to tell models apart
// in a log line.
func shortHex(b []byte) string {
	return hex.EncodeToString(b[:min(len(b), 8)])
}
