package registry

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
)

// FuzzStep feeds any answers to every current env, as a miner could: the
// episode ends within MaxTurns (on empty answers once the given ones run
// out), every final reward is within the env's bounds, and replaying the
// recorded actions gives the same episode. One input plays every env, so
// each answer parser sees it.
func FuzzStep(f *testing.F) {
	f.Add(byte(0), []byte("<answer>42</answer>"))
	f.Add(byte(1), []byte("<think>x</think>\n```\n<answer>[1, 2, 3]</answer>\n```"))
	f.Add(byte(2), []byte("1 -2 3\x1e<move>5</move>\x1e<move>9</move>"))
	f.Add(byte(3), []byte("heads\x1etails\x1e\x00\xff"))
	f.Add(byte(4), []byte("<answer>x1=true, x2=false</answer>\x1e<answer>0</answer>"))
	f.Fuzz(func(t *testing.T, seed byte, data []byte) {
		// Answers are separated by ASCII RS (0x1e).
		answers := bytes.Split(data, []byte{0x1e})
		for _, ref := range References() {
			fac := ref.Factory
			spec := fac.Spec()
			id, err := challenge.New(spec.Name, spec.Version, [32]byte{seed, 1})
			if err != nil {
				t.Fatal(err)
			}
			ep, err := envs.Play(fac, id, func(conv []envs.Message) string {
				turn := 0
				for _, m := range conv {
					if m.Role == envs.RoleAssistant {
						turn++
					}
				}
				if turn < len(answers) {
					return string(answers[turn])
				}
				return ""
			})
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			if !ep.Done || ep.Reward < spec.MinReward || ep.Reward > spec.MaxReward || len(ep.Rewards) > spec.MaxTurns {
				t.Fatalf("%s: done %v, reward %d not in [%d, %d] after %d steps", id, ep.Done, ep.Reward, spec.MinReward, spec.MaxReward, len(ep.Rewards))
			}
			again, err := envs.Replay(fac, id, ep.Actions())
			if err != nil || !reflect.DeepEqual(again, ep) {
				t.Fatalf("%s: replay differs: %v", id, err)
			}
		}
	})
}
