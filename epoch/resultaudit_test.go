package epoch

import (
	"context"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/verifytest"
	"github.com/affine-ledger/ledger/vtrust"
)

// TestAuditChecksDuelResultsAgainstTranscripts: a duel result is a vote
// only as good as the validator's own transcripts of its challenges
// (spec/vtrust.md, Verdicts). Each case is one validator's chain; the
// auditor judges its result.
func TestAuditChecksDuelResultsAgainstTranscripts(t *testing.T) {
	champion := duel.Side{Hotkey: recordtest.Hotkey(t, "//Champion").Public(), ModelHash: []byte{1}}
	contender := duel.Side{Hotkey: recordtest.Hotkey(t, "//Contender").Public(), ModelHash: []byte{2}}
	start := recordtest.Anchor(3)
	ctx := context.Background()
	notDuel, err := codec.Marshal(map[string]any{"type": "note", "v": uint64(1)})
	if err != nil {
		t.Fatal(err)
	}
	unknownVersion, err := codec.Marshal(map[string]any{"type": duel.ResultType, "v": uint64(duel.ResultVersion + 1)})
	if err != nil {
		t.Fatal(err)
	}
	noRecompute, err := codec.Marshal(map[string]any{"type": duel.ResultType, "v": uint64(duel.ResultVersion)})
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		// appends gives the validator's blocks, in order.
		appends func(v keys.PublicKey) []appended
		verdict vtrust.Verdict // "" when no outcome is due
		reason  string
	}{{
		name: "honest",
		appends: func(v keys.PublicKey) []appended {
			p := playDuel(t, v, champion, contender, start, 0, duel.Win)
			return []appended{{p.Transcripts, [][]byte{p.Raw}}}
		},
		verdict: vtrust.Agree,
	}, {
		name: "transcripts in an earlier block",
		appends: func(v keys.PublicKey) []appended {
			p := playDuel(t, v, champion, contender, start, 0, duel.Win)
			return []appended{{p.Transcripts, [][]byte(nil)}, {[]record.Transcript(nil), [][]byte{p.Raw}}}
		},
		verdict: vtrust.Agree,
	}, {
		// The result claims the champion won the challenges the
		// validator's transcripts show the contender winning.
		name: "letters contradict the rewards",
		appends: func(v keys.PublicKey) []appended {
			played := playDuel(t, v, champion, contender, start, 0, duel.Win)
			claimed := playDuel(t, v, champion, contender, start, 0, duel.Loss)
			return []appended{{played.Transcripts, [][]byte{claimed.Raw}}}
		},
		verdict: vtrust.Fault,
		reason:  "outcome L recorded, but the transcripts give W",
	}, {
		name: "no transcripts",
		appends: func(v keys.PublicKey) []appended {
			p := playDuel(t, v, champion, contender, start, 0, duel.Win)
			return []appended{{[]record.Transcript(nil), [][]byte{p.Raw}}}
		},
		verdict: vtrust.Disagree,
		reason:  "the champion's transcript",
	}, {
		// Only what the log held up to the result's block counts, so that
		// every auditor judges alike, whenever it audits.
		name: "transcripts after the result",
		appends: func(v keys.PublicKey) []appended {
			p := playDuel(t, v, champion, contender, start, 0, duel.Win)
			return []appended{{[]record.Transcript(nil), [][]byte{p.Raw}}, {p.Transcripts, [][]byte(nil)}}
		},
		verdict: vtrust.Disagree,
		reason:  "after the result's",
	}, {
		name: "contender's transcripts missing",
		appends: func(v keys.PublicKey) []appended {
			p := playDuel(t, v, champion, contender, start, 0, duel.Win)
			var champs []record.Transcript
			for _, tr := range p.Transcripts {
				if tr.Miner.Hotkey == champion.Hotkey {
					champs = append(champs, tr)
				}
			}
			return []appended{{champs, [][]byte{p.Raw}}}
		},
		verdict: vtrust.Disagree,
		reason:  "the contender's transcript",
	}, {
		// Every pair is in the log, but the result leaves the first out:
		// a validator that chose its outcomes.
		name: "a recorded pair left out",
		appends: func(v keys.PublicKey) []appended {
			p := playDuel(t, v, champion, contender, start, 0, duel.Win)
			later := playDuel(t, v, champion, contender, start, 1, duel.Win)
			return []appended{{append(p.Transcripts[:2:2], later.Transcripts...), [][]byte{later.Raw}}}
		},
		verdict: vtrust.Fault,
		reason:  "counter 0, passed over before it, has both transcripts in the log",
	}, {
		// A challenge the duel's start does not draw.
		name: "a challenge of another start",
		appends: func(v keys.PublicKey) []appended {
			p := playDuel(t, v, champion, contender, recordtest.Anchor(4), 0, duel.Win)
			q := playDuel(t, v, champion, contender, start, 0, duel.Win)
			r := q.Result
			r.Envs[0].Challenges = append([]challenge.ID(nil), r.Envs[0].Challenges...)
			r.Envs[0].Challenges[0] = p.Transcripts[0].Challenge
			raw, _, err := duel.Encode(r)
			if err != nil {
				t.Fatal(err)
			}
			return []appended{{q.Transcripts, [][]byte{raw}}}
		},
		verdict: vtrust.Fault,
		reason:  "draws it from the duel's start 3",
	}, {
		// The challenges were put to the same miners, but in the log as
		// another duel's: not this result's evidence.
		name: "transcripts of another duel",
		appends: func(v keys.PublicKey) []appended {
			p := playDuel(t, v, champion, contender, start, 0, duel.Win)
			for i := range p.Transcripts {
				p.Transcripts[i].Duel[0] ^= 1
			}
			return []appended{{p.Transcripts, [][]byte{p.Raw}}}
		},
		verdict: vtrust.Disagree,
		reason:  "the result's is",
	}, {
		name:    "a duel result that does not recompute",
		appends: func(keys.PublicKey) []appended { return []appended{{[]record.Transcript(nil), [][]byte{noRecompute}}} },
		verdict: vtrust.Fault,
		reason:  "does not recompute",
	}, {
		name: "a duel result of a version this release does not know",
		appends: func(keys.PublicKey) []appended {
			return []appended{{[]record.Transcript(nil), [][]byte{unknownVersion}}}
		},
	}, {
		name:    "another record",
		appends: func(keys.PublicKey) []appended { return []appended{{[]record.Transcript(nil), [][]byte{notDuel}}} },
	}} {
		t.Run(tc.name, func(t *testing.T) {
			// A store as an earlier release's `ledger import` wrote it,
			// taking any canonical decision: every store now refuses a
			// result that does not recompute, but the audit must judge
			// one all the same.
			s, err := ledger.Open(t.TempDir(), ledger.WithNetwork(recordtest.Network), ledger.WithDecisionCheck(record.CheckDecision))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			k := verifytest.Key(1)
			a, err := s.NewAppender(k)
			if err != nil {
				t.Fatal(err)
			}
			for _, blk := range tc.appends(k.Public()) {
				if _, err := a.Append(ctx, start, blk.transcripts, blk.decisions); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			// The outcomes about the decision, whichever block links it.
			var audited []vtrust.Outcome
			for b, err := range s.Blocks(k.Public(), 0) {
				if err != nil {
					t.Fatal(err)
				}
				os, err := Audit(verifytest.Key(0).Public(), s, b)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range os {
					switch {
					case len(b.Decisions) > 0 && o.Record.Cid.Equals(b.Decisions[0].Cid):
						audited = append(audited, o)
					case o.Verdict != vtrust.Agree:
						t.Fatalf("block %d: transcript %s judged %s: %s", b.Height, o.Record.Cid, o.Verdict, o.Reason)
					}
				}
			}
			if tc.verdict == "" {
				if len(audited) != 0 {
					t.Fatalf("judged %v, want no outcome", audited)
				}
				return
			}
			if len(audited) != 1 {
				t.Fatalf("%d outcomes about the result, want 1", len(audited))
			}
			o := audited[0]
			if o.Verdict != tc.verdict || !strings.Contains(o.Reason, tc.reason) {
				t.Fatalf("verdict %s (%q), want %s naming %q", o.Verdict, o.Reason, tc.verdict, tc.reason)
			}
		})
	}
}

// appended is one Append of a test's validator.
type appended struct {
	transcripts []record.Transcript
	decisions   [][]byte
}
