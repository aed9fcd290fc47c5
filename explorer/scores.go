package explorer

import (
	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/envs/registry"
)

// scaleReward maps a reward into [0, 1] by its env version's bounds:
// (reward - min_reward) / (max_reward - min_reward), clamped. An env
// version this release does not know is taken to score in [0, 1]
// (spec/api.md, "Scores").
func scaleReward(env string, version uint16, reward int64) float64 {
	lo, hi := int64(0), int64(1)
	if f, err := registry.Get(env, version); err == nil {
		s := f.Spec()
		if s.MaxReward > s.MinReward {
			lo, hi = int64(s.MinReward), int64(s.MaxReward)
		}
	}
	v := float64(reward-lo) / float64(hi-lo)
	return min(max(v, 0), 1)
}

// envRange returns an env version's reward bounds, ok false if unknown.
func envRange(env string, version uint16) (lo, hi int, ok bool) {
	f, err := registry.Get(env, version)
	if err != nil {
		return 0, 0, false
	}
	s := f.Spec()
	return s.MinReward, s.MaxReward, true
}

// identityOf is the model identity of a miner without a model hash, as
// chain.MinerCommitment.Identity defines it.
func identityOf(model, revision string) [32]byte {
	return chain.MinerCommitment{Model: model, Revision: revision}.Identity()
}
