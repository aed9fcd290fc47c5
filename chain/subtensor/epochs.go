package subtensor

import (
	"context"
	"fmt"

	"github.com/affine-ledger/ledger/chain"
)

// Subtensor's epoch counter, since runtime 423 (migrate_dynamic_tempo):
// both are u64 maps keyed by netuid (Identity), 0 when absent.
// LastEpochBlock is the block the subnet's current epoch began at (its
// last epoch slot, or where set_tempo reset the cycle); SubnetEpochIndex
// counts the epoch slots, seeded by the migration with the old
// get_epoch_index so that the numbering goes on where it was.
const (
	itemLastEpochBlock   = "SubtensorModule.LastEpochBlock"
	itemSubnetEpochIndex = "SubtensorModule.SubnetEpochIndex"
)

func keyLastEpochBlock(netuid uint16) []byte { return keyNetVec("LastEpochBlock", netuid) }
func keySubnetEpochIndex(netuid uint16) []byte {
	return keyNetVec("SubnetEpochIndex", netuid)
}

// dynamicEpochs reports whether the runtime counts epochs in storage.
func (rt *Runtime) dynamicEpochs() bool {
	return rt.Storage[itemLastEpochBlock] && rt.Storage[itemSubnetEpochIndex]
}

// schedule is how the subnet numbers its epochs at block at (the head),
// where its tempo is tempo (spec/chain.md, "Subtensor").
//
// Since runtime 423 the runtime starts an epoch at the first block n with
// n − LastEpochBlock ≥ tempo (should_run_epoch), sets LastEpochBlock to n
// and adds one to SubnetEpochIndex; commit_weights and reveal_weights
// number epochs by that counter (current_epoch_with_lookahead: plus one in
// a block where an epoch is due but was not run yet). So the current
// epoch began at LastEpochBlock, and the next ones follow every tempo
// blocks: AnchoredSchedule. A schedule read later can have moved: an
// epoch deferred by the per-block cap (MaxEpochsPerBlock, 2 on Finney),
// one the subnet owner triggered early (trigger_epoch, refused while
// commit-reveal is on), a tempo set (which restarts the current epoch's
// cycle at that block). A runtime without the counter numbers epochs by
// get_epoch_index's formula (SubtensorSchedule).
func (c *Client) schedule(ctx context.Context, at chain.Hash, tempo uint64) (chain.Schedule, error) {
	rt, err := c.runtime(ctx)
	if err != nil {
		return chain.Schedule{}, err
	}
	if !rt.dynamicEpochs() {
		return chain.SubtensorSchedule(c.netuid, tempo), nil
	}
	start, err := c.getUint(ctx, keyLastEpochBlock(c.netuid), at, 8, 0)
	if err != nil {
		return chain.Schedule{}, fmt.Errorf("subtensor: subnet %d LastEpochBlock: %w", c.netuid, err)
	}
	index, err := c.getUint(ctx, keySubnetEpochIndex(c.netuid), at, 8, 0)
	if err != nil {
		return chain.Schedule{}, fmt.Errorf("subtensor: subnet %d SubnetEpochIndex: %w", c.netuid, err)
	}
	s, err := chain.AnchoredSchedule(tempo, start, index)
	if err != nil {
		return chain.Schedule{}, fmt.Errorf("subtensor: subnet %d: %w", c.netuid, err)
	}
	return s, nil
}
