//go:build !(windows && arm64)

package subtensor

import (
	"context"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// subnetModel is subtensor's epoch scheduling of one subnet, written out
// from opentensor/subtensor at 14bc6f9f (runtime 425) as it is there, to
// hold the client's schedule to: get_epoch_index before the dynamic-tempo
// migration; after it should_run_epoch, drain_pending's per-block cap and
// counter, current_epoch_with_lookahead (pallets/subtensor/src/coinbase/
// run_coinbase.rs, subnets/weights.rs), migrate_dynamic_tempo,
// apply_tempo_with_cycle_reset and do_trigger_epoch. The safety net of
// should_run_epoch (an epoch after 50400 blocks without one) is left out.
type subnetModel struct {
	netuid  uint16
	tempo   uint64
	dynamic bool // migrate_dynamic_tempo has run
	// LastEpochBlock, SubnetEpochIndex, PendingEpochAt.
	last, index, pending uint64
	block                uint64
	// began[e] is the block at which the counter became e.
	began map[uint64]uint64
}

func (m *subnetModel) shouldRun(n uint64) bool {
	if m.tempo == 0 {
		return false
	}
	if m.pending > 0 && n >= m.pending {
		return true
	}
	return n-min(n, m.last) >= m.tempo
}

// migrate is migrate_dynamic_tempo in the on_runtime_upgrade of block c.
func (m *subnetModel) migrate(c uint64) {
	m.dynamic = true
	if m.tempo == 0 {
		return
	}
	adjusted := c + uint64(m.netuid) + 1
	remainder := adjusted % (m.tempo + 1)
	untilNext := m.tempo - remainder
	m.last = c - (m.tempo - untilNext)
	m.index = adjusted / (m.tempo + 1)
	m.began[m.index] = m.last
}

// initialize is block n's on_initialize (run_coinbase's drain_pending);
// deferred says the per-block cap was reached by other subnets.
func (m *subnetModel) initialize(n uint64, deferred bool) (fired bool) {
	m.block = n
	if !m.dynamic || !m.shouldRun(n) {
		return false
	}
	if deferred {
		m.pending = n + 1
		return false
	}
	m.last, m.pending = n, 0
	m.index++
	m.began[m.index] = n
	return true
}

// judged is the epoch the runtime gives a commit or a reveal made in the
// current block.
func (m *subnetModel) judged() uint64 {
	if !m.dynamic {
		return (m.block + uint64(m.netuid) + 1) / (m.tempo + 1)
	}
	if m.shouldRun(m.block) {
		return m.index + 1
	}
	return m.index
}

func (m *subnetModel) setTempo(t uint64)     { m.tempo, m.last = t, m.block }
func (m *subnetModel) trigger(window uint64) { m.pending = m.block + window }

// TestScheduleFollowsTheRuntime runs a subnet of tempo 10 through the
// dynamic-tempo upgrade (block 57, spec 422 to 423), then epochs deferred
// by the per-block cap (once, then twice in a row), an epoch the owner
// triggers early and a tempo change; the client reads the params of every
// head from a node serving the model's storage. At every head the
// schedule gives the epoch the runtime judges a commit or reveal of that
// block by, and of the next block unless a triggered epoch fires there;
// the current epoch begins where the counter moved to it (unless a tempo
// change restarted its cycle), as does the one before when the current
// one came on time; and the numbering goes on across the upgrade. The
// formula the client used before is wrong from the upgrade's first epoch
// on.
func TestScheduleFollowsTheRuntime(t *testing.T) {
	t.Parallel()
	const netuid, upgrade = 3, 57
	before := runtimeMeta(t, "Tempo", "LastMechansimStepBlock")
	after := runtimeMeta(t, "Tempo", "LastEpochBlock", "PendingEpochAt", "SubnetEpochIndex", "LastMechansimStepBlock")
	node, c := newFakeNode(t, netuid, 422, before)
	m := &subnetModel{netuid: netuid, tempo: 10, began: map[uint64]uint64{}}
	formula := chain.SubtensorSchedule(netuid, 10)

	fires, triggers, deferrals := 0, 0, 0
	deferAt := map[int]int{3: 1, 7: 2} // the fires deferred, by how many blocks
	holding, hold := false, 0
	resetIn := uint64(0) // the epoch whose cycle a tempo change restarted
	formulaWrong := false
	var prev chain.Schedule
	var prevEpoch uint64
	for n := uint64(1); n < 400; n++ {
		if n == upgrade {
			m.migrate(n)
		}
		due := m.dynamic && m.shouldRun(n)
		if due && !holding {
			fires++
			holding, hold = true, deferAt[fires]
		}
		triggered := m.pending > 0 && n >= m.pending && m.last+m.tempo > n
		deferNow := due && hold > 0
		if deferNow {
			hold--
			deferrals++
		}
		if m.initialize(n, deferNow) {
			holding = false
			formulaWrong = formulaWrong || formula.Of(n) != m.judged()
		}
		// Extrinsics of block n: the owner triggers an epoch 4 blocks
		// ahead, at least a block before the next one would begin; later
		// sets the tempo to 7.
		if n >= 200 && triggers == 0 && m.last+m.tempo-n > 4 {
			m.trigger(4)
			triggers++
		}
		if n == 300 {
			m.setTempo(7)
			resetIn = m.index
		}
		st := map[string][]byte{string(keyNetVec("Tempo", netuid)): le16(m.tempo)}
		spec, meta := uint32(0), ""
		if m.dynamic {
			st[string(keyLastEpochBlock(netuid))] = le64(m.last)
			st[string(keySubnetEpochIndex(netuid))] = le64(m.index)
			spec, meta = 423, after
		}
		node.set(n, st, spec, meta)
		p, err := c.Params(context.Background())
		if err != nil {
			t.Fatalf("head %d: %v", n, err)
		}
		s := p.Schedule()
		e := s.Of(n)
		if !m.dynamic && s != chain.SubtensorSchedule(netuid, m.tempo) {
			t.Fatalf("head %d, before the upgrade: schedule %+v, want get_epoch_index's", n, s)
		}
		if e != m.judged() {
			t.Fatalf("head %d: epoch %d, the runtime judges a reveal of this block by epoch %d (model %+v)", n, e, m.judged(), m)
		}
		if n > 1 && prev.Of(n) != e && !triggered && n != upgrade {
			t.Fatalf("head %d: the schedule read at head %d put this block in epoch %d, the runtime in %d", n, n-1, prev.Of(n), e)
		}
		if n > 1 && e != prevEpoch && e != prevEpoch+1 {
			t.Fatalf("head %d: epoch %d after %d: the numbering jumps", n, e, prevEpoch)
		}
		if b, ok := m.began[e]; m.dynamic && ok && e != resetIn {
			if start, _ := s.Start(e); start != b {
				t.Fatalf("head %d: epoch %d begins at %d, the runtime began it at %d", n, e, start, b)
			}
			if pb, ok := m.began[e-1]; ok && b-pb == m.tempo && e-1 != resetIn {
				if start, _ := s.Start(e - 1); start != pb {
					t.Fatalf("head %d: epoch %d begins at %d, the runtime began it at %d", n, e-1, start, pb)
				}
			}
		}
		prev, prevEpoch = s, e
	}
	if fires < 20 || deferrals != 3 || triggers != 1 || !formulaWrong {
		t.Fatalf("%d epochs due, %d blocks deferred, %d triggered; the formula was wrong: %v", fires, deferrals, triggers, formulaWrong)
	}
}
