package validator_test

import (
	"reflect"
	"testing"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/validator"
	"github.com/affine-ledger/ledger/verify"
)

// audit checks a validator's ledger the way an auditor would, from the
// store alone: every block goes into a fresh store through Put (signatures,
// links, checkpoints, challenge uniqueness, the duel decision check), every
// transcript replays to its recorded rewards and reason, every duel result
// verifies, lists its env's challenges as counters 0, 1, 2, ... from its
// start, and has the outcomes its transcripts' rewards give, and the
// history recomputed from the ledger is the one given; package verify, with
// re-execution and strict seeds, passes the chain. It returns the number of
// transcripts.
func audit(t *testing.T, s *ledger.Store, v keys.PublicKey, want validator.History) int {
	t.Helper()
	fresh := openStore(t, t.TempDir())
	defer fresh.Close()
	type use struct {
		id    challenge.ID
		miner keys.PublicKey
	}
	used := map[use]bool{}
	transcripts := 0
	for b, err := range s.Blocks(v, 0) {
		if err != nil {
			t.Fatal(err)
		}
		objs := map[cid.Cid][]byte{}
		for _, c := range append(b.TranscriptCIDs(), b.DecisionCIDs()...) {
			raw, err := s.Object(c)
			if err != nil {
				t.Fatal(err)
			}
			objs[c] = raw
		}
		if _, err := fresh.Put(b.Raw, objs); err != nil {
			t.Fatalf("put block %d into a fresh store: %v", b.Height, err)
		}
		for _, c := range b.TranscriptCIDs() {
			st, err := s.Transcript(c)
			if err != nil {
				t.Fatal(err)
			}
			u := use{st.Challenge, st.Miner.Hotkey}
			if used[u] {
				t.Fatalf("challenge %s put to miner %s twice", st.Challenge, st.Miner.Hotkey.Short())
			}
			used[u] = true
			replay(t, st.Transcript)
			transcripts++
		}
		for _, c := range b.DecisionCIDs() {
			raw, _ := s.Object(c)
			r, err := duel.Decode(raw)
			if err != nil {
				t.Fatalf("block %d decision %s: %v", b.Height, c, err)
			}
			checkResult(t, s, v, r)
		}
	}
	// The auditor's own tool agrees: every transcript re-executes and its
	// recorded seed derives it from an anchor its chain recorded.
	scope := verify.StoreScope{Validator: &v}
	heads, err := verify.StoreHeads(s, scope)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.VerifyStore(s, heads, scope, verify.Options{Reexecute: true, StrictSeeds: true, Challenges: verify.NewMemSet()})
	if err != nil || !rep.OK || rep.Transcripts != transcripts || rep.Reexecuted != transcripts || rep.SeedsExact != transcripts {
		t.Fatalf("verify: %v: %+v", err, rep)
	}
	got, err := validator.LoadHistory(fresh, v, want.Params)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Entries, want.Entries) || !reflect.DeepEqual(got.Frontier, want.Frontier) {
		t.Fatalf("history recomputed from the ledger differs:\n got %+v\nwant %+v", got.Entries, want.Entries)
	}
	return transcripts
}

// replay re-executes a transcript: the recorded replies through a fresh
// env give the recorded rewards, reward and reason, and the recorded
// conversation.
func replay(t *testing.T, tr *record.Transcript) {
	t.Helper()
	f, err := registry.ForID(tr.Challenge)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, m := range tr.Conversation {
		if m.Role == envs.RoleAssistant {
			actions = append(actions, m.Content)
		}
	}
	ep, err := envs.Replay(f, tr.Challenge, actions)
	if err != nil {
		t.Fatalf("replay %s: %v", tr.Challenge, err)
	}
	rewards := make([]int64, len(ep.Rewards))
	for i, r := range ep.Rewards {
		rewards[i] = int64(r)
	}
	if !ep.Done || int64(ep.Reward) != tr.Reward || ep.Reason != tr.Reason ||
		!reflect.DeepEqual(rewards, tr.TurnRewards) || !reflect.DeepEqual(ep.Messages, tr.Conversation) {
		t.Fatalf("transcript of %s does not replay: recorded %d %q %v, replay %d %q %v", tr.Challenge, tr.Reward, tr.Reason, tr.TurnRewards, ep.Reward, ep.Reason, rewards)
	}
}

// checkResult recomputes a duel result and checks it against the ledger's
// transcripts.
func checkResult(t *testing.T, s *ledger.Store, v keys.PublicKey, r duel.Result) {
	t.Helper()
	if err := duel.Verify(r); err != nil {
		t.Fatal(err)
	}
	d := record.Duel{Champion: r.Champion.Hotkey, Contender: r.Contender.Hotkey, Start: record.Anchor{Number: r.Start.Number, Hash: record.Hash(r.Start.Hash)}}.ID()
	for _, e := range r.Envs {
		for k, id := range e.Challenges {
			want, err := challenge.Derive(r.Start.Hash, v, id.Env, id.Version, uint64(k))
			if err != nil || want != id {
				t.Fatalf("env %s challenge %d is %s, counter %d derives %s", e.Env, k, id, k, want)
			}
			rewards := map[keys.PublicKey]int64{}
			for ref, err := range s.TranscriptsByChallenge(id) {
				if err != nil {
					t.Fatal(err)
				}
				if ref.Validator != v {
					continue
				}
				st, err := s.Transcript(ref.CID)
				if err != nil {
					t.Fatal(err)
				}
				if st.Duel != d {
					t.Fatalf("transcript %s of challenge %s names duel %s, the result's is %s", ref.CID, id, st.Duel, d)
				}
				rewards[st.Miner.Hotkey] = st.Reward
			}
			champ, ok1 := rewards[r.Champion.Hotkey]
			cont, ok2 := rewards[r.Contender.Hotkey]
			if !ok1 || !ok2 || len(rewards) != 2 {
				t.Fatalf("challenge %s: transcripts of %d miners", id, len(rewards))
			}
			if got := duel.Judge(champ, cont); byte(got) != e.Outcomes[k] {
				t.Fatalf("challenge %s: recorded outcome %c, rewards %d/%d give %c", id, e.Outcomes[k], champ, cont, got)
			}
		}
	}
}
