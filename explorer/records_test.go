package explorer_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/duel"
	"github.com/affine-ledger/ledger/explorer"
	"github.com/affine-ledger/ledger/explorer/explorertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify/proofs"
)

func TestTranscript(t *testing.T) {
	t.Parallel()
	c := shared.f.Multi
	var v explorer.TranscriptView
	getJSON(t, "/api/v1/transcripts/"+c.String(), &v)
	st, err := shared.s.Transcript(c)
	if err != nil {
		t.Fatal(err)
	}
	// The JSON carries the whole record: it re-encodes to the stored bytes.
	raw, c2, err := v.Transcript.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !c2.Equals(c) || !bytes.Equal(raw, st.Raw) || v.Bytes != len(st.Raw) {
		t.Errorf("transcript JSON re-encodes to %s, not %s", c2, c)
	}
	if v.Leaf != st.Ref.Leaf || v.Height != st.Ref.Height || v.Validator != st.Ref.Validator.String() {
		t.Errorf("location %+v, store says %+v", v, st.Ref)
	}
	if v.RewardRange == nil || v.Score < 0 || v.Score > 1 || len(v.DuelRecords) != 1 {
		t.Errorf("score %v range %+v duel records %v", v.Score, v.RewardRange, v.DuelRecords)
	}
	if want := float64(st.Reward-int64(v.RewardRange.Min)) / float64(v.RewardRange.Max-v.RewardRange.Min); v.Score != want {
		t.Errorf("score %v, want %v", v.Score, want)
	}
}

// TestTranscriptXSS: hostile model output comes back as a JSON string
// whose markup characters are escaped, with headers that keep any client
// from reading the response as HTML.
func TestTranscriptXSS(t *testing.T) {
	t.Parallel()
	r := get(t, shared.url, "/api/v1/transcripts/"+shared.f.XSS.String())
	if r.code != http.StatusOK {
		t.Fatalf("%d %s", r.code, r.body)
	}
	if bytes.Contains(r.body, []byte("<script")) || bytes.Contains(r.body, []byte("<img")) {
		t.Errorf("response body holds raw markup: %s", r.body)
	}
	if !bytes.Contains(r.body, []byte(`\u003cscript\u003e`)) {
		t.Errorf("response body lacks the escaped script tag")
	}
	for h, want := range map[string]string{
		"Content-Type":            "application/json; charset=utf-8",
		"X-Content-Type-Options":  "nosniff",
		"Content-Security-Policy": explorer.ContentSecurityPolicy,
	} {
		if got := r.header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	if !strings.Contains(explorer.ContentSecurityPolicy, "script-src 'self'") || strings.Contains(explorer.ContentSecurityPolicy, "unsafe") {
		t.Errorf("CSP %q allows more than same-origin scripts", explorer.ContentSecurityPolicy)
	}
	var v explorer.TranscriptView
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range v.Transcript.Conversation {
		found = found || m.Content == explorertest.XSSReply
	}
	if !found {
		t.Error("the hostile reply does not round-trip as data")
	}
}

func TestProofDownload(t *testing.T) {
	t.Parallel()
	for _, c := range []string{shared.f.XSS.String(), shared.f.Multi.String(), shared.f.Transcripts[len(shared.f.Transcripts)-1].String()} {
		r := get(t, shared.url, "/api/v1/transcripts/"+c+"/proof")
		if r.code != http.StatusOK {
			t.Fatalf("%s: %d %s", c, r.code, r.body)
		}
		if cd := r.header.Get("Content-Disposition"); cd != `attachment; filename="inclusion-proof-`+c+`.json"` {
			t.Errorf("Content-Disposition %q", cd)
		}
		p, err := proofs.ReadProof(bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		proved, err := proofs.VerifyProof(p)
		if err != nil {
			t.Fatalf("%s: downloaded proof does not verify: %v", c, err)
		}
		if proved.Transcript != c {
			t.Errorf("proof proves %s, asked for %s", proved.Transcript, c)
		}
		// The same path checks with the ledger's own verifier against the
		// stored head.
		ip := p.(*proofs.InclusionProof)
		head, err := shared.s.Head(proved.Validator)
		if err != nil {
			t.Fatal(err)
		}
		tc := codec.Sum(ip.Transcript)
		hashes := make([][]byte, len(ip.Hashes))
		for i := range ip.Hashes {
			hashes[i] = ip.Hashes[i][:]
		}
		if err := record.VerifyInclusion(tc, ip.LeafIndex, head.Checkpoint, hashes); err != nil {
			t.Errorf("ledger.VerifyInclusion: %v", err)
		}
		// A tampered download fails.
		ip.Transcript[len(ip.Transcript)-1] ^= 1
		if _, err := ip.Verify(); err == nil {
			t.Error("a tampered proof verifies")
		}
	}
}

func TestMiners(t *testing.T) {
	t.Parallel()
	f := shared.f
	rows, n := pages[explorer.MinerRow](t, "/api/v1/miners?limit=3")
	if len(rows) != 4 || n != 2 {
		t.Fatalf("%d miners in %d pages, want 4 in 2", len(rows), n)
	}
	counts := map[string]uint64{}
	for _, c := range f.Transcripts {
		st, err := shared.s.Transcript(c)
		if err != nil {
			t.Fatal(err)
		}
		counts[st.Miner.Hotkey.String()]++
	}
	for _, r := range rows {
		if r.Transcripts != counts[r.Hotkey.String()] {
			t.Errorf("miner %s: %d transcripts, the store has %d", r.Hotkey, r.Transcripts, counts[r.Hotkey.String()])
		}
	}

	k := f.Contender.Key.Public()
	var m explorer.MinerView
	getJSON(t, "/api/v1/miners/"+k.String(), &m)
	var sum uint64
	for _, e := range m.EnvStats {
		sum += e.N
		if e.MeanScore < 0 || e.MeanScore > 1 {
			t.Errorf("env %s mean score %v", e.Env, e.MeanScore)
		}
	}
	if sum != m.Transcripts || len(m.DuelList) != 2 || len(m.ByValidator) != 2 || len(m.Models) != 1 || m.UID != f.Contender.UID {
		t.Errorf("contender: %d env samples for %d transcripts, %d duels, %d validators, models %v, uid %d",
			sum, m.Transcripts, len(m.DuelList), len(m.ByValidator), m.Models, m.UID)
	}

	// Its transcripts, paged: each exactly once, by validator then leaf.
	ts, _ := pages[explorer.TranscriptSummary](t, "/api/v1/miners/"+k.String()+"/transcripts?limit=13")
	if uint64(len(ts)) != m.Transcripts {
		t.Fatalf("%d transcripts paged, %d indexed", len(ts), m.Transcripts)
	}
	seen := map[string]bool{}
	for i, r := range ts {
		if seen[r.CID] || r.Miner != k {
			t.Fatalf("row %d: %+v repeated or of another miner", i, r)
		}
		seen[r.CID] = true
		if i > 0 && ts[i-1].Validator == r.Validator && ts[i-1].Leaf >= r.Leaf {
			t.Fatalf("rows %d and %d out of leaf order", i-1, i)
		}
	}
	sat, _ := pages[explorer.TranscriptSummary](t, "/api/v1/miners/"+k.String()+"/transcripts?limit=5&env=sat")
	want := uint64(0)
	for _, e := range m.EnvStats {
		if e.Env == "sat" {
			want = e.N
		}
	}
	if uint64(len(sat)) != want || want == 0 {
		t.Errorf("env=sat gave %d rows, the miner has %d sat transcripts", len(sat), want)
	}
	for _, r := range sat {
		if r.Env != "sat" {
			t.Errorf("env=sat gave a %s row", r.Env)
		}
	}
}

func TestDuels(t *testing.T) {
	t.Parallel()
	f := shared.f
	rows, _ := pages[explorer.DuelRow](t, "/api/v1/duels?limit=1")
	if len(rows) != 2 || rows[0].Start.Number != 101 || rows[1].Start.Number != 100 {
		t.Fatalf("duels %+v: want the two, newest start first", rows)
	}
	byValidator, _ := pages[explorer.DuelRow](t, "/api/v1/duels?validator="+f.Validators[0].Public().String())
	byMiner, _ := pages[explorer.DuelRow](t, "/api/v1/duels?miner="+f.Weak.Key.Public().String())
	if len(byValidator) != 1 || byValidator[0].Record != f.Duels[0].String() || len(byMiner) != 0 {
		t.Errorf("filters: by validator %d rows, by the weak miner %d", len(byValidator), len(byMiner))
	}

	for i, c := range f.Duels {
		var d explorer.DuelView
		getJSON(t, "/api/v1/duels/"+c.String(), &d)
		res := f.Results[i]
		if d.Winner != res.Winner || d.RatioPPM != res.RatioPPM || len(d.Curves) != len(res.Envs) || len(d.OtherRecords) != 0 {
			t.Fatalf("duel %d: %+v", i, d.DuelRow)
		}
		for j, e := range res.Envs {
			cv := d.Curves[j]
			if len(cv.Points) != len(e.Outcomes) || len(cv.Challenges) != len(e.Challenges) {
				t.Fatalf("env %s: %d points for %d outcomes", e.Env, len(cv.Points), len(e.Outcomes))
			}
			if len(cv.Points) == 0 {
				continue
			}
			last := cv.Points[len(cv.Points)-1]
			if last.Wins != e.Wins || last.Losses != e.Losses || last.RatePPM != e.RatePPM {
				t.Errorf("env %s: curve ends at %+v, record says %d/%d rate %d", e.Env, last, e.Wins, e.Losses, e.RatePPM)
			}
			looks := uint32(0)
			var atLook explorer.CurvePoint
			for _, p := range cv.Points {
				if p.Look {
					looks++
					atLook = p
				}
			}
			if looks != e.Looks || (looks > 0 && (atLook.LowerPPM != e.LowerPPM || atLook.UpperPPM != e.UpperPPM)) {
				t.Errorf("env %s: %d looks, bounds at the last [%d, %d]; record: %d looks, [%d, %d]",
					e.Env, looks, atLook.LowerPPM, atLook.UpperPPM, e.Looks, e.LowerPPM, e.UpperPPM)
			}
		}
		ts, _ := pages[explorer.TranscriptSummary](t, "/api/v1/duels/"+c.String()+"/transcripts?limit=40")
		if len(ts) != 2*d.Challenges {
			t.Errorf("duel %d: %d transcripts for %d challenges", i, len(ts), d.Challenges)
		}
	}
}

// TestCurve checks the curve point by point against counts and
// duel.Bounds; TestDuels checks it against recorded results.
func TestCurve(t *testing.T) {
	t.Parallel()
	rule := duel.Rule{ZMilli: 1960, Looks: []uint32{2, 4, 8}, MaxChallenges: 100}
	outcomes := "WDWLWWDWWLWW"
	pts := explorer.Curve(rule, outcomes)
	var w, l uint32
	for i, p := range pts {
		switch outcomes[i] {
		case 'W':
			w++
		case 'L':
			l++
		}
		lo, hi := duel.Bounds(w, w+l, rule.ZMilli)
		if p.Challenge != uint32(i+1) || p.Wins != w || p.Losses != l || p.LowerPPM != lo || p.UpperPPM != hi || p.Outcome != outcomes[i:i+1] {
			t.Errorf("point %d: %+v, want %d/%d [%d, %d]", i, p, w, l, lo, hi)
		}
	}
	var looks []uint32
	for _, p := range pts {
		if p.Look {
			looks = append(looks, p.Wins+p.Losses)
		}
	}
	if len(looks) != 3 || looks[0] != 2 || looks[1] != 4 || looks[2] != 8 {
		t.Errorf("looks at decisive counts %v, want [2 4 8]", looks)
	}
}
