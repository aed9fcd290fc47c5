package explorer_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/validator"
)

func TestStatusAndHealth(t *testing.T) {
	t.Parallel()
	var st explorer.StatusView
	getJSON(t, "/api/v1/status", &st)
	f := shared.f
	if st.Validators != 2 || st.Miners != 4 || st.Models != 3 || st.Duels != 2 || st.ForkProofs != 0 {
		t.Errorf("status %+v: want 2 validators, 4 miners, 3 models, 2 duels, no fork proof", st)
	}
	if st.Indexed.Transcripts != uint64(len(f.Transcripts)) || st.Indexed.Outcomes != uint64(len(f.Outcomes)) || st.Indexed.DuelResults != 2 {
		t.Errorf("indexed %+v: want %d transcripts, %d outcomes, 2 duel results", st.Indexed, len(f.Transcripts), len(f.Outcomes))
	}
	if len(st.Problems) != 0 || st.Tempo != 100 || st.Chain {
		t.Errorf("problems %v, tempo %d, chain %v", st.Problems, st.Tempo, st.Chain)
	}
	var h struct {
		OK         bool `json:"ok"`
		Validators int  `json:"validators"`
	}
	getJSON(t, "/healthz", &h)
	if !h.OK || h.Validators != 2 {
		t.Errorf("healthz %+v", h)
	}
}

func TestValidators(t *testing.T) {
	t.Parallel()
	rows, n := pages[explorer.ValidatorRow](t, "/api/v1/validators?limit=1")
	if len(rows) != 2 || n != 2 {
		t.Fatalf("%d validators in %d pages, want 2 in 2", len(rows), n)
	}
	for _, row := range rows {
		h, err := shared.s.Head(row.Validator)
		if err != nil {
			t.Fatal(err)
		}
		if row.Height != h.Block.Height || row.Block != h.Block.CID.String() || row.Checkpoint != h.Checkpoint || row.Commitment != nil {
			t.Errorf("row %+v, store head %+v", row, h)
		}

		// The frontier folded from the index is validator.History's.
		var v explorer.ValidatorView
		getJSON(t, "/api/v1/validators/"+row.Validator.String(), &v)
		hist, err := validator.LoadHistory(shared.s, row.Validator, duel.DefaultFrontierParams())
		if err != nil {
			t.Fatal(err)
		}
		want, err := hist.Ratio(h.Anchor.Number)
		if err != nil {
			t.Fatal(err)
		}
		if v.Frontier == nil || hist.Frontier == nil || fmt.Sprint(*v.Frontier) != fmt.Sprint(*hist.Frontier) || v.RatioPPM != want {
			t.Errorf("validator %s: frontier %+v ratio %d, validator.History says %+v ratio %d", row.Validator, v.Frontier, v.RatioPPM, hist.Frontier, want)
		}
		if v.Frontier.Champion.Hotkey != shared.f.Contender.Key.Public() || v.HistoryError != "" {
			t.Errorf("validator %s: champion %s (history error %q), want the contender who won", row.Validator, v.Frontier.Champion.Hotkey, v.HistoryError)
		}
		if v.DuelCount != 1 || len(v.Duels) != 1 || v.Duels[0].Winner != "contender" {
			t.Errorf("validator %s duels: %+v", row.Validator, v.Duels)
		}
	}
}

func TestBlocks(t *testing.T) {
	t.Parallel()
	alice := shared.f.Validators[0].Public()
	head, err := shared.s.Head(alice)
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := pages[explorer.BlockSummary](t, "/api/v1/validators/"+alice.String()+"/blocks?limit=7")
	if uint64(len(blocks)) != head.Block.Height+1 {
		t.Fatalf("%d blocks listed, the chain has %d", len(blocks), head.Block.Height+1)
	}
	for i, b := range blocks {
		if want := head.Block.Height - uint64(i); b.Height != want {
			t.Fatalf("block %d of the list has height %d, want %d (newest first)", i, b.Height, want)
		}
		sb, err := shared.s.BlockAt(alice, b.Height)
		if err != nil {
			t.Fatal(err)
		}
		if b.CID != sb.CID.String() || b.Transcripts != len(sb.Transcripts) || b.Checkpoint != sb.Checkpoint || b.Anchor != sb.Anchor {
			t.Errorf("height %d: listed %+v, stored %s", b.Height, b, sb.CID)
		}
	}

	// Block 0 by height and by CID, its transcripts in pages of 2.
	var byHeight, byCID explorer.BlockView
	getJSON(t, "/api/v1/validators/"+alice.String()+"/blocks/0?limit=2", &byHeight)
	getJSON(t, "/api/v1/blocks/"+byHeight.CID+"?limit=2", &byCID)
	if fmt.Sprint(byHeight) != fmt.Sprint(byCID) {
		t.Errorf("block 0 by height and by CID differ")
	}
	if !byHeight.SignatureValid || byHeight.Prev != "" || byHeight.FirstLeaf != 0 || len(byHeight.Signature) != 128 {
		t.Errorf("block 0: %+v", byHeight)
	}
	// The network the block names, which its signature covers.
	if byHeight.Net == nil || *byHeight.Net != recordtest.Network {
		t.Errorf("block 0 names network %v, want %s", byHeight.Net, recordtest.Network)
	}
	b0, _ := shared.s.BlockAt(alice, 0)
	var leaves []uint64
	view := byHeight
	for {
		for _, tr := range view.TranscriptList.Items {
			leaves = append(leaves, tr.Leaf)
			if tr.CID != b0.Transcripts[tr.Leaf].Cid.String() || tr.Height != 0 || tr.Validator != alice {
				t.Errorf("transcript row %+v is not block 0's leaf %d", tr, tr.Leaf)
			}
		}
		if view.TranscriptList.Next == "" {
			break
		}
		getJSON(t, "/api/v1/blocks/"+byHeight.CID+"?limit=2&cursor="+view.TranscriptList.Next, &view)
	}
	if len(leaves) != len(b0.Transcripts) || !slices.IsSorted(leaves) {
		t.Errorf("block 0 transcript pages gave leaves %v, the block has %d", leaves, len(b0.Transcripts))
	}

	// Bob's last block links his duel result and his outcomes about
	// Alice's block 0.
	bob := shared.f.Validators[1].Public()
	bh, _ := shared.s.Head(bob)
	var last explorer.BlockView
	getJSON(t, fmt.Sprintf("/api/v1/validators/%s/blocks/%d", bob, bh.Block.Height), &last)
	types := map[string]int{}
	for _, d := range last.Decisions {
		types[d.Type]++
		if d.Error != "" {
			t.Errorf("decision %s: %s", d.CID, d.Error)
		}
		if d.Type == "reexec" {
			// One outcome judges Alice's duel result, the rest the
			// transcripts of her block 0; each links to its record's view.
			onDuel := d.Outcome != nil && d.Outcome.Record.Cid.Equals(shared.f.Duels[0])
			switch {
			case d.Outcome == nil || d.Outcome.Validator != alice:
				t.Errorf("outcome %s: %+v", d.CID, d.Outcome)
			case onDuel && d.OutcomeOn != "duel":
				t.Errorf("outcome %s on Alice's duel result is shown on a %q", d.CID, d.OutcomeOn)
			case !onDuel && (d.OutcomeOn != "transcript" || d.Outcome.Block.Cid.String() != b0.CID.String()):
				t.Errorf("outcome %s on a %q: %+v", d.CID, d.OutcomeOn, d.Outcome)
			}
		}
		if d.Type == "duel" && (d.Duel == nil || d.Duel.Record != shared.f.Duels[1].String()) {
			t.Errorf("duel decision %s: %+v", d.CID, d.Duel)
		}
	}
	if types["duel"] != 1 || types["reexec"] != len(shared.f.Outcomes) {
		t.Errorf("Bob's last block decisions by type: %v", types)
	}
}

func TestValidatorTranscripts(t *testing.T) {
	t.Parallel()
	bob := shared.f.Validators[1].Public()
	h, _ := shared.s.Head(bob)
	rows, _ := pages[explorer.TranscriptSummary](t, "/api/v1/validators/"+bob.String()+"/transcripts?limit=37")
	if uint64(len(rows)) != h.Checkpoint.Size {
		t.Fatalf("%d transcripts listed, the log has %d", len(rows), h.Checkpoint.Size)
	}
	for i, r := range rows {
		if r.Leaf != uint64(i) {
			t.Fatalf("row %d has leaf %d", i, r.Leaf)
		}
	}
}
