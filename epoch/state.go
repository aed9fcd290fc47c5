package epoch

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/duel"
)

// StateFile is where a driver running in a node keeps its state, under
// the node's data directory.
const StateFile = "epoch.json"

// state is what a driver must remember across restarts: the last epoch it
// computed and the champion that epoch ended with (the path of champions
// depends on every earlier epoch, and the chain does not hold it).
type state struct {
	Epoch    uint64    `json:"epoch"`
	Champion duel.Side `json:"champion"`
	// Reveals are the weight commits not revealed yet, salts included: a
	// restart between a commit and its reveal epoch would otherwise leave
	// the commit unrevealed, and the validator without weights that epoch.
	Reveals []savedReveal `json:"reveals,omitempty"`
}

// savedReveal is a pendingReveal in the state file. A file written
// before Sent, Committed, CommitFrom and CommitTo were kept reads as no
// send unjudged and a commit of unknown outcome whose blocks are unknown:
// such a reveal, refused, is reported as before (appliedEarlier).
type savedReveal struct {
	Epoch      uint64       `json:"epoch"`
	From       uint64       `json:"from"`
	To         uint64       `json:"to"`
	Retry      uint64       `json:"retry,omitempty"`
	Sent       uint64       `json:"sent,omitempty"`
	Committed  bool         `json:"committed,omitempty"`
	CommitFrom uint64       `json:"commit_from,omitempty"`
	CommitTo   uint64       `json:"commit_to,omitempty"`
	Reveal     chain.Reveal `json:"reveal"`
}

func saveReveals(ps []pendingReveal) []savedReveal {
	out := make([]savedReveal, len(ps))
	for i, p := range ps {
		out[i] = savedReveal{Epoch: p.epoch, From: p.from, To: p.to, Retry: p.retry, Sent: p.sent,
			Committed: p.committed, CommitFrom: p.commitFrom, CommitTo: p.commitTo, Reveal: p.reveal}
	}
	return out
}

func loadReveals(ss []savedReveal) []pendingReveal {
	out := make([]pendingReveal, len(ss))
	for i, s := range ss {
		out[i] = pendingReveal{epoch: s.Epoch, from: s.From, to: s.To, retry: s.Retry, sent: s.Sent,
			committed: s.Committed, commitFrom: s.CommitFrom, commitTo: s.CommitTo, reveal: s.Reveal}
	}
	return out
}

// loadState reads the state file; ok is false when there is none.
func loadState(path string) (_ state, ok bool, _ error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return state{}, false, nil
	}
	if err != nil {
		return state{}, false, fmt.Errorf("epoch state: %w", err)
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return state{}, false, fmt.Errorf("epoch state %s: %w (remove it to start again from the chain's weights)", path, err)
	}
	if st.Epoch == 0 {
		return state{}, false, fmt.Errorf("epoch state %s: epoch 0 (remove it to start again from the chain's weights)", path)
	}
	return st, true, nil
}

// saveState replaces the state file atomically and durably.
func saveState(path string, st state) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("epoch state: %w", err)
	}
	_, werr := f.Write(append(b, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("epoch state: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("epoch state: %w", err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
