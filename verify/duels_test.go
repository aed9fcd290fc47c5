package verify_test

import (
	"context"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestDuelResultsHeldToTheChainsTranscripts: D2 (spec/verify.md). A duel
// result's outcome letters must follow from the rewards of the chain's own
// transcripts of each challenge, linked by the result's block or before;
// a letter whose transcripts the audited chain lacks is counted, not
// failed. The same through a store and an archive, and from a height.
func TestDuelResultsHeldToTheChainsTranscripts(t *testing.T) {
	champion := duel.Side{Hotkey: recordtest.Hotkey(t, "//Champion").Public(), ModelHash: []byte{1}}
	contender := duel.Side{Hotkey: recordtest.Hotkey(t, "//Contender").Public(), ModelHash: []byte{2}}
	start := recordtest.Anchor(3)
	play := func(v keys.PublicKey, o duel.Outcome) verifytest.Duel {
		d, err := verifytest.PlayDuel(v, champion, contender, start, 0, o)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	type block struct {
		transcripts []record.Transcript
		decisions   [][]byte
	}
	for _, tc := range []struct {
		name   string
		blocks func(v keys.PublicKey) []block
		from   uint64
		// fail names the failure, "" for a clean audit; checked and
		// unbacked count the result's letters.
		fail              string
		checked, unbacked bool
	}{{
		name: "honest",
		blocks: func(v keys.PublicKey) []block {
			d := play(v, duel.Win)
			return []block{{d.Transcripts, [][]byte{d.Raw}}}
		},
		checked: true,
	}, {
		name: "letters contradict the transcripts",
		blocks: func(v keys.PublicKey) []block {
			played, claimed := play(v, duel.Win), play(v, duel.Loss)
			return []block{{played.Transcripts, nil}, {nil, [][]byte{claimed.Raw}}}
		},
		fail: "outcome L recorded, but the transcripts give W",
	}, {
		name: "a recorded pair left out",
		blocks: func(v keys.PublicKey) []block {
			first, err := verifytest.PlayDuel(v, champion, contender, start, 0, duel.Win)
			if err != nil {
				t.Fatal(err)
			}
			later, err := verifytest.PlayDuel(v, champion, contender, start, 1, duel.Win)
			if err != nil {
				t.Fatal(err)
			}
			return []block{{append(first.Transcripts[:2:2], later.Transcripts...), [][]byte{later.Raw}}}
		},
		fail: "counter 0, passed over before it, has both transcripts in the log",
	}, {
		name: "no transcripts",
		blocks: func(v keys.PublicKey) []block {
			return []block{{nil, [][]byte{play(v, duel.Win).Raw}}}
		},
		unbacked: true,
	}, {
		name: "transcripts after the result",
		blocks: func(v keys.PublicKey) []block {
			d := play(v, duel.Win)
			return []block{{nil, [][]byte{d.Raw}}, {d.Transcripts, nil}}
		},
		unbacked: true,
	}, {
		name: "transcripts of another duel",
		blocks: func(v keys.PublicKey) []block {
			d := play(v, duel.Win)
			for i := range d.Transcripts {
				d.Transcripts[i].Duel[0] ^= 1
			}
			return []block{{d.Transcripts, [][]byte{d.Raw}}}
		},
		unbacked: true,
	}, {
		// The result's duel ID is all 32 bytes: a transcript whose duel
		// differs only past the first 8 is another duel's, and the
		// letters it would contradict prove nothing false.
		name: "transcripts of another duel with the same first bytes",
		blocks: func(v keys.PublicKey) []block {
			played, claimed := play(v, duel.Win), play(v, duel.Loss)
			for i := range played.Transcripts {
				played.Transcripts[i].Duel[31] ^= 1
			}
			return []block{{played.Transcripts, [][]byte{claimed.Raw}}}
		},
		unbacked: true,
	}, {
		// Below --from the transcripts are not read: nothing to hold the
		// letters to, and nothing proved false.
		name: "transcripts below the audited heights",
		blocks: func(v keys.PublicKey) []block {
			d := play(v, duel.Win)
			return []block{{d.Transcripts, nil}, {nil, [][]byte{d.Raw}}}
		},
		from:     1,
		unbacked: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir)
			k := verifytest.Key(0)
			a, err := s.NewAppender(k)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, b := range tc.blocks(k.Public()) {
				if _, err := a.Append(context.Background(), start, b.transcripts, b.decisions); err != nil {
					t.Fatal(err)
				}
				n += len(b.decisions)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			letters := len(play(k.Public(), duel.Win).Result.Envs[0].Outcomes)
			check := func(how string, rep verify.Report) {
				t.Helper()
				switch {
				case tc.fail != "":
					if rep.OK || len(rep.Failures) != 1 || !strings.Contains(rep.Failures[0].Reason, tc.fail) || rep.Failures[0].Transcript != -1 {
						t.Fatalf("%s: %+v, want one failure naming %q", how, rep.Failures, tc.fail)
					}
				case !rep.OK:
					t.Fatalf("%s: %+v", how, rep.Failures)
				}
				if tc.fail != "" {
					return
				}
				want := [2]int{}
				if tc.checked {
					want[0] = letters
				}
				if tc.unbacked {
					want[1] = letters
				}
				if rep.DuelResults != n || [2]int{rep.OutcomesChecked, rep.OutcomesUnbacked} != want {
					t.Fatalf("%s: %d duel results, letters checked and unbacked %d %d; want %d, %v", how, rep.DuelResults, rep.OutcomesChecked, rep.OutcomesUnbacked, n, want)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			check("store", verifyDir(t, dir, verify.StoreScope{From: tc.from}))
			if tc.from == 0 {
				check("archive", exportAndAudit(t, open(t, dir)))
				// The scratch Pebble set answers as the memory one does.
				check("disk set", verifyWith(t, dir, diskSet(t)))
			}
		})
	}
}

func diskSet(t *testing.T) verify.ChallengeSet {
	t.Helper()
	d, err := verify.NewDiskSet(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// verifyWith audits the store at dir with re-execution and set.
func verifyWith(t *testing.T, dir string, set verify.ChallengeSet) verify.Report {
	t.Helper()
	s := open(t, dir)
	defer s.Close()
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, verify.Options{Reexecute: true, StrictSeeds: true, Challenges: set})
	if err != nil {
		t.Fatal(err)
	}
	if err := wellFormed(rep); err != nil {
		t.Error(err)
	}
	return rep
}
