package validator_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/inference"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/miner"
	"github.com/affine-ledger/ledger/miner/minertest"
)

// hostileWords is what a transcript's error says for each hostile mode
// that fails the call: a transcript records the error in words, and the
// words of each error kind are its sentinel's (inference.Err*). The other
// modes answer, wrongly.
var hostileWords = map[minertest.HostileMode]string{
	minertest.HostileSlowDrip:    "miner timed out",
	minertest.HostileSlowHeaders: "miner timed out",
	minertest.HostileHang:        "miner timed out",
	minertest.HostileLengthLong:  "miner timed out",
	minertest.HostileHuge:        "miner response too large: body over",
	minertest.HostileMegabyte:    "miner response too large: body over",
	minertest.HostileReadLimit:   "miner response too large: answer of",
	minertest.HostileLengthShort: "response is not a chat completion",
	minertest.HostileMalformed:   "response is not a chat completion",
	minertest.HostileContentType: "response is not a chat completion",
	minertest.HostileSSE:         "response is not a chat completion",
	minertest.HostileStatus500:   "miner answered with an HTTP error: HTTP 500",
	minertest.HostileStatus429:   "miner answered with an HTTP error: HTTP 429",
}

// hostileNet is a local chain with a perfect reference miner "Champ"
// committed first, so it is the first champion, and one hostile miner per
// mode after it, named by its mode.
func hostileNet(t *testing.T, modes []minertest.HostileMode, opts minertest.HostileOptions) *testNet {
	t.Helper()
	names := []string{"Champ"}
	for _, m := range modes {
		names = append(names, string(m))
	}
	n := chainWith(t, names)
	c := n.chain
	ctx := context.Background()
	for _, name := range names {
		var ep inference.Endpoint
		if name == "Champ" {
			_, ep = minertest.Start(t, miner.Config{Strategy: miner.Strategy{Kind: miner.Perfect}, Model: "test/Champ", Solvers: miner.EnvSolvers()})
		} else {
			_, ep = minertest.StartHostile(t, minertest.HostileMode(name), opts)
		}
		// Distinct hashes: a hostile miner is no copy of another.
		hash := sha256.Sum256([]byte(name))
		mc := chain.MinerCommitment{Model: "test/" + name, Revision: "r1", Endpoint: ep.BaseURL, ModelHash: hash[:]}
		fields, err := mc.Fields()
		if err != nil {
			t.Fatalf("miner %s: %v", name, err)
		}
		if err := c.SetCommitment(ctx, n.keys[name], fields); err != nil {
			t.Fatalf("miner %s: commit: %v", name, err)
		}
		n.advance(t)
	}
	for _, name := range names {
		n.miners[name] = chain.Contender{Hotkey: n.keys[name].Public()}
	}
	return n
}

// Each hostile miner, whatever it sends, loses its duel to a perfect
// champion and the loop goes on to the next: every challenge is recorded
// with reward 0 (the champion's with 1), within the attempt timeout, with
// the error in words, and in a transcript of bounded size.
func TestHostileMinersLoseAndLoopGoesOn(t *testing.T) {
	t.Parallel()
	// A read limit of 96 KiB, above the answer limit: decoding a body
	// costs about 2 µs a byte under the race detector on a loaded machine,
	// and a megabyte body per challenge would starve the champion into
	// timeouts of its own. Answers over the answer limit still arrive
	// (read-limit); bodies over the read limit are refused (huge, megabyte).
	// The client test in miner/minertest runs every mode at the default
	// read limit.
	const readLimit = 96 << 10
	modes := minertest.HostileModes()
	n := hostileNet(t, modes, minertest.HostileOptions{Drip: 20 * time.Millisecond, ReadLimit: readLimit})
	s := openStore(t, t.TempDir())
	defer s.Close()
	cfg := n.config(s, nil)
	mult8, err := registry.Latest("mult8")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Envs = []envs.Factory{mult8}
	cfg.Rule = shortRule()
	// One attempt each: timeouts and HTTP errors are retried by default,
	// and the failures_test covers that; here the point is the bounds.
	opts := inference.Options{Timeout: 2 * time.Second, MaxAttempts: 1, PerMiner: 16, Overall: 128, ReadLimit: readLimit}
	cfg.Client = inference.New(opts)
	opts = cfg.Client.Options()
	v := newValidator(t, cfg)
	defer v.Close()

	n.autoAdvance(t, 5*time.Millisecond)
	runDuels(t, testCtx(t, 120*time.Second), v, len(modes))
	h := v.History()
	champ := n.keys["Champ"].Public()
	for _, e := range h.Entries {
		if e.Winner != "champion" || e.Champion.Hotkey != champ {
			t.Fatalf("duel %+v", e)
		}
	}
	const slack = 3 * time.Second
	for _, mode := range modes {
		name := string(mode)
		count := 0
		for ref, err := range s.TranscriptsByMiner(n.keys[name].Public()) {
			if err != nil {
				t.Fatal(err)
			}
			st, err := s.Transcript(ref.CID)
			if err != nil {
				t.Fatal(err)
			}
			tr := st.Transcript
			count++
			if tr.Reward != 0 {
				t.Errorf("%s: %s scored %d (%s)", name, tr.Challenge, tr.Reward, tr.Reason)
			}
			word, fails := hostileWords[mode]
			if word == "miner timed out" && tr.Attempts == 0 && strings.HasPrefix(tr.Error, "not asked: ") {
				// A miner that never answers stops being asked (spec/validator.md,
				// "A duel", step 5).
				continue
			}
			if fails && !strings.Contains(tr.Error, word) || !fails && tr.Error != "" || tr.Attempts != 1 {
				t.Errorf("%s: %s: error %q, attempts %d, want %q", name, tr.Challenge, tr.Error, tr.Attempts, word)
			}
			// The latency runs from sending the request to having decoded
			// the answer; decoding is not under the timeout but is bounded
			// by the read limit.
			if took := time.Duration(tr.LatencyMS) * time.Millisecond; took > opts.Timeout+slack {
				t.Errorf("%s: %s took %v, timeout %v", name, tr.Challenge, took, opts.Timeout)
			}
			raw, _, err := tr.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if bound := transcriptBound(*tr, 1); len(raw) > bound {
				t.Errorf("%s: %s: transcript of %d bytes, bound %d", name, tr.Challenge, len(raw), bound)
			}
		}
		if count == 0 {
			t.Errorf("%s: no transcripts", name)
		}
	}
	for ref, err := range s.TranscriptsByMiner(champ) {
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Transcript(ref.CID)
		if err != nil || st.Transcript.Reward != 1 {
			t.Fatalf("champion's %s: reward %d, %v", ref.CID, st.Transcript.Reward, err)
		}
	}
	v.Close()
	audit(t, s, n.key.Public(), h)
}

// seeded returns the challenge of env's counter-th draw at a fixed anchor
// for validator keys.PublicKey{1}, with the seed record a transcript of it
// carries.
func seeded(t *testing.T, f envs.Factory, counter uint64) (challenge.ID, *record.Seed) {
	t.Helper()
	s := &record.Seed{Anchor: record.Anchor{Number: 7, Hash: record.Hash{7}}, Counter: counter}
	spec := f.Spec()
	id, err := s.Derive(keys.PublicKey{1}, spec.Name, spec.Version)
	if err != nil {
		t.Fatal(err)
	}
	return id, s
}

// transcriptBound is the size bound of spec/limits.md for a transcript of
// an env of maxTurns turns: its observations, maxTurns answers of at most
// envs.MaxAnswerBytes, four text fields of at most record.MaxTextField,
// a model hash, and 1 KiB for the keys, the fixed-size fields and the
// framing of each message.
func transcriptBound(tr record.Transcript, maxTurns int) int {
	obs := 0
	for _, m := range tr.Conversation {
		if m.Role != envs.RoleAssistant {
			obs += len(m.Role) + len(m.Content) + 16
		}
	}
	return obs + maxTurns*(envs.MaxAnswerBytes+16) + 5*record.MaxTextField + record.MaxModelHash + 1024
}

// With answers capped at envs.MaxAnswerBytes, the longest transcript any
// current env can produce fits the ledger's limits: every env played to its
// longest with answers padded to the cap encodes, within MaxMessages,
// MaxConversationBytes and MaxTranscriptBytes. Were it not so, a miner
// could make the pair unrecordable, and a duel would skip it forever.
func TestLongestTranscriptsFitTheLedger(t *testing.T) {
	t.Parallel()
	for _, ref := range registry.References() {
		f := ref.Factory
		spec := f.Spec()
		pad := func(conv []envs.Message) string {
			a, _ := ref.Solve(conv)
			if len(a) < envs.MaxAnswerBytes {
				a += "\n" + strings.Repeat(" ", envs.MaxAnswerBytes-len(a)-1)
			}
			return a
		}
		worst := 0
		for counter := range uint64(20) {
			id, seed := seeded(t, f, counter)
			ep, err := envtest.Play(f, id, func(_ challenge.ID, conv []envs.Message) string { return pad(conv) })
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			tr := record.Transcript{
				Format: record.TranscriptFormat, Challenge: id, Env: id.Env, EnvVersion: id.Version, Seed: seed,
				Validator: keys.PublicKey{1}, Miner: record.Miner{Hotkey: keys.PublicKey{2}, ModelHash: make([]byte, record.MaxModelHash),
					Model: strings.Repeat("m", record.MaxTextField), Revision: strings.Repeat("r", record.MaxTextField), Endpoint: strings.Repeat("e", record.MaxTextField)},
				Invocation: record.InvocationID{3}, Conversation: ep.Messages, TurnRewards: make([]int64, len(ep.Rewards)),
				Reason: ep.Reason, Error: strings.Repeat("x", record.MaxTextField), Usage: &record.Usage{},
			}
			raw, _, err := tr.Encode()
			if err != nil {
				t.Fatalf("%s: a transcript of %d answers at the cap does not encode: %v", id, len(ep.Rewards), err)
			}
			if bound := transcriptBound(tr, spec.MaxTurns); len(raw) > bound {
				t.Fatalf("%s: %d bytes, bound %d", id, len(raw), bound)
			}
			worst = max(worst, len(raw))
		}
		t.Logf("%s v%d: longest transcript with capped answers %d bytes (ledger max %d)", spec.Name, spec.Version, worst, record.MaxTranscriptBytes)
	}
}

// What a miner can put in a transcript runs into the ledger's limits
// (spec/limits.md): each is accepted at the bound and refused one past it.
func TestTranscriptLimitsAtTheBound(t *testing.T) {
	t.Parallel()
	mult8, err := registry.Latest("mult8")
	if err != nil {
		t.Fatal(err)
	}
	id, seed := seeded(t, mult8, 0)
	base := func() record.Transcript {
		return record.Transcript{
			Format: record.TranscriptFormat, Challenge: id, Env: id.Env, EnvVersion: id.Version, Seed: seed,
			Validator: keys.PublicKey{1}, Miner: record.Miner{Hotkey: keys.PublicKey{2}}, Invocation: record.InvocationID{3},
			Conversation: []envs.Message{{Role: envs.RoleUser, Content: "q"}},
		}
	}
	conversationOf := func(total int) []envs.Message {
		// One user message whose role and content sum to total bytes.
		return []envs.Message{{Role: envs.RoleUser, Content: strings.Repeat("c", total-len(envs.RoleUser))}}
	}
	for _, c := range []struct {
		name  string
		bound int
		set   func(tr *record.Transcript, n int)
	}{
		{"messages", record.MaxMessages, func(tr *record.Transcript, n int) {
			tr.Conversation = make([]envs.Message, n)
			for i := range tr.Conversation {
				tr.Conversation[i] = envs.Message{Role: envs.RoleAssistant, Content: "a"}
			}
		}},
		{"conversation bytes", record.MaxConversationBytes, func(tr *record.Transcript, n int) { tr.Conversation = conversationOf(n) }},
		{"turn rewards", record.MaxTurnRewards, func(tr *record.Transcript, n int) { tr.TurnRewards = make([]int64, n) }},
		{"reason", record.MaxTextField, func(tr *record.Transcript, n int) { tr.Reason = strings.Repeat("r", n) }},
		{"error", record.MaxTextField, func(tr *record.Transcript, n int) { tr.Error = strings.Repeat("e", n) }},
		{"model", record.MaxTextField, func(tr *record.Transcript, n int) { tr.Miner.Model = strings.Repeat("m", n) }},
		{"revision", record.MaxTextField, func(tr *record.Transcript, n int) { tr.Miner.Revision = strings.Repeat("v", n) }},
		{"endpoint", record.MaxTextField, func(tr *record.Transcript, n int) { tr.Miner.Endpoint = strings.Repeat("h", n) }},
		{"model hash", record.MaxModelHash, func(tr *record.Transcript, n int) { tr.Miner.ModelHash = make([]byte, n) }},
		{"role", record.MaxRoleBytes, func(tr *record.Transcript, n int) {
			tr.Conversation = []envs.Message{{Role: strings.Repeat("r", n), Content: "x"}}
		}},
	} {
		for _, n := range []int{c.bound, c.bound + 1} {
			tr := base()
			c.set(&tr, n)
			raw, _, err := tr.Encode()
			if n == c.bound {
				if err != nil {
					t.Fatalf("%s at the bound %d: %v", c.name, n, err)
				}
				if back, err := record.DecodeTranscript(raw); err != nil || len(back.Conversation) != len(tr.Conversation) {
					t.Fatalf("%s at the bound %d does not decode: %v", c.name, n, err)
				}
				continue
			}
			if !errors.Is(err, record.ErrMalformed) {
				t.Fatalf("%s one past the bound (%d): %v", c.name, n, err)
			}
		}
	}
	// The encoded size is checked before parsing: at the bound the parser
	// sees the bytes (and finds them not CBOR), one past it does not.
	for _, n := range []int{record.MaxTranscriptBytes, record.MaxTranscriptBytes + 1} {
		_, err := record.DecodeTranscript(bytes.Repeat([]byte{0xff}, n))
		sizeError := err != nil && strings.Contains(err.Error(), fmt.Sprintf("%d bytes, max %d", n, record.MaxTranscriptBytes))
		if !errors.Is(err, record.ErrMalformed) || sizeError != (n > record.MaxTranscriptBytes) {
			t.Fatalf("transcript of %d bytes: %v", n, err)
		}
	}
}
