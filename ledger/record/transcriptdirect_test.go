package record

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/envs"
)

// randomTranscript is a format-2 transcript that passes Check, with every
// field drawn so that each head length, sign, null and empty case occurs.
func randomTranscript(r *rand.Rand) Transcript {
	num := func() uint64 { return r.Uint64() >> (r.IntN(8) * 8) } // every head length
	signed := func() int64 {
		if r.IntN(2) == 0 {
			return -int64(num() >> 1)
		}
		return int64(num() >> 1)
	}
	text := func(max int) string {
		words := []string{"the", "answer", "é", "是", "🙂", "\n", "<answer>42</answer>", ""}
		var b strings.Builder
		for b.Len() < r.IntN(max+1) {
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	var hash, validator [32]byte
	fill := func(b []byte) {
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	}
	fill(hash[:])
	fill(validator[:])
	envNames := []string{"mult8", "sat", "tictactoe", "a", "abd_2", strings.Repeat("z", challenge.MaxEnvName)}
	env := envNames[r.IntN(len(envNames))]
	version := uint16(1 + r.IntN(70000-1)%0xffff)
	counter := num()
	id, err := challenge.Derive(hash, validator, env, version, counter)
	if err != nil {
		panic(err)
	}
	t := Transcript{
		Format: TranscriptFormat, Challenge: id, Env: env, EnvVersion: version, Validator: validator,
		Seed:       &Seed{Anchor: Anchor{Number: num(), Hash: hash}, Counter: counter},
		Reward:     signed(),
		Reason:     text(40),
		LatencyMS:  num(),
		Attempts:   uint32(num()),
		Error:      text(10),
		HTTPStatus: uint16(num()),
		StartedMS:  int64(num() >> 2),
	}
	t.FinishedMS = t.StartedMS + int64(r.IntN(1000))
	t.Miner = Miner{UID: uint16(num()), Model: text(20), Revision: text(8), Endpoint: text(12), ModelHash: make([]byte, r.IntN(40))}
	fill(t.Miner.Hotkey[:])
	fill(t.Miner.ModelHash)
	fill(t.Duel[:])
	fill(t.Invocation[:])
	t.Invocation[0] |= 1
	if r.IntN(3) > 0 {
		t.Usage = &Usage{PromptTokens: num(), CompletionTokens: num()}
	}
	for range r.IntN(30) {
		t.Conversation = append(t.Conversation, envs.Message{Role: []string{"user", "assistant", "system", "tool_call"}[r.IntN(4)], Content: text(300)})
	}
	for range r.IntN(30) {
		t.TurnRewards = append(t.TurnRewards, signed())
	}
	return t
}

// viaCodec decodes data the reflective way, the reference the direct
// decoder answers to.
func viaCodec(data []byte, borrow bool) (Transcript, error) {
	var t Transcript
	var err error
	if borrow {
		err = codec.UnmarshalBorrowed(data, &t)
	} else {
		err = codec.Unmarshal(data, &t)
	}
	return t, err
}

// sameAsCodec fails t unless the direct decoder accepts exactly what the
// codec accepts of data, with the same value, borrowed or copied.
func sameAsCodec(t *testing.T, data []byte) (accepted bool) {
	t.Helper()
	for _, borrow := range []bool{false, true} {
		want, err := viaCodec(data, borrow)
		var got Transcript
		ok := decodeTranscriptDirect(data, borrow, &got, nil)
		if ok != (err == nil) {
			t.Fatalf("borrow %v: direct decoder says %v, codec says %v, of % x", borrow, ok, err, data[:min(len(data), 48)])
		}
		if ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("borrow %v: direct decoder gives %+v, codec %+v", borrow, got, want)
		}
		accepted = ok
	}
	return accepted
}

func TestTranscriptDirectReadsWhatEncodeWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		tr := randomTranscript(r)
		raw, _, err := tr.Encode()
		if err != nil {
			t.Fatalf("transcript %d: %v", i, err)
		}
		if !sameAsCodec(t, raw) {
			t.Fatalf("transcript %d: the direct decoder refuses an encoded transcript", i)
		}
		// A transcript decoded either way is the same record.
		got, err := DecodeTranscript(raw)
		if err != nil {
			t.Fatal(err)
		}
		if again, _, _ := got.Encode(); string(again) != string(raw) {
			t.Fatalf("transcript %d does not re-encode to its bytes", i)
		}
	}
}

// Every one-byte change and every cut of an encoded transcript: the direct
// decoder must refuse what the codec refuses (a non-canonical head, a key
// out of place, an overflow, bad UTF-8, a bad challenge ID) and agree on
// what it accepts.
func TestTranscriptDirectAgreesOnDamagedInput(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	accepted, refused := 0, 0
	for range 40 {
		raw, _, err := func() ([]byte, any, error) { tr := randomTranscript(r); return tr.Encode() }()
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			bad := append([]byte(nil), raw...)
			switch r.IntN(3) {
			case 0:
				bad[r.IntN(len(bad))] ^= byte(1 << r.IntN(8))
			case 1:
				bad[r.IntN(len(bad))] = byte(r.Uint32())
			default:
				bad = bad[:r.IntN(len(bad))]
			}
			if sameAsCodec(t, bad) {
				accepted++
			} else {
				refused++
			}
		}
	}
	// Both verdicts must occur, or the comparison tested nothing.
	if accepted == 0 || refused == 0 {
		t.Fatalf("accepted %d, refused %d damaged inputs", accepted, refused)
	}
}

// TestTranscriptDirectRefusesEveryPrefix: every cut of an encoded
// transcript, wherever it falls, is refused by both decoders, never read
// as a record or a panic; the random cuts above may miss the one byte
// that matters (the last of a key, of a head).
func TestTranscriptDirectRefusesEveryPrefix(t *testing.T) {
	tr := randomTranscript(rand.New(rand.NewPCG(13, 14)))
	raw, _, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(raw) {
		if sameAsCodec(t, raw[:n:n]) {
			t.Fatalf("the first %d of %d bytes read as a transcript", n, len(raw))
		}
	}
}

// TestTranscriptDirectReadsTheBounds: a transcript with as many messages
// and turn rewards as Check allows is read by the direct decoder, not
// left to the codec's slower path. Past the bounds the direct decoder
// stops counting, before it allocates, and the codec words the refusal.
func TestTranscriptDirectReadsTheBounds(t *testing.T) {
	tr := randomTranscript(rand.New(rand.NewPCG(11, 12)))
	tr.Conversation = make([]envs.Message, MaxMessages)
	for i := range tr.Conversation {
		tr.Conversation[i] = envs.Message{Role: "user", Content: "x"}
	}
	tr.TurnRewards = make([]int64, MaxTurnRewards)
	raw, _, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !sameAsCodec(t, raw) {
		t.Fatalf("the direct decoder refuses a transcript of %d messages and %d turn rewards", MaxMessages, MaxTurnRewards)
	}
	for name, edit := range map[string]func(*Transcript){
		"messages":     func(o *Transcript) { o.Conversation = append(o.Conversation, envs.Message{Role: "user", Content: "y"}) },
		"turn rewards": func(o *Transcript) { o.TurnRewards = append(o.TurnRewards, 1) },
	} {
		over := tr
		edit(&over)
		sent, err := codec.Marshal(&over)
		if err != nil {
			t.Fatal(err)
		}
		if decodeTranscriptDirect(sent, false, new(Transcript), nil) {
			t.Errorf("%s: the direct decoder read a transcript past the bound", name)
		}
	}
}

func TestTranscriptDirectRefusesFormat1(t *testing.T) {
	tr := randomTranscript(rand.New(rand.NewPCG(5, 6)))
	tr.Format, tr.Seed = TranscriptFormatV1, nil
	raw, _, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if decodeTranscriptDirect(raw, false, new(Transcript), nil) {
		t.Fatal("the direct decoder read a format-1 transcript, which has no seed key")
	}
	if _, err := DecodeTranscript(raw); err != nil {
		t.Fatalf("format 1 no longer decodes: %v", err)
	}
}

func FuzzTranscriptDirect(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 8 {
		tr := randomTranscript(r)
		raw, _, err := tr.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsCodec(t, data) })
}

// TestTranscriptDecoderLeavesNothingStale: one TranscriptDecoder reused
// over random transcripts (null and set seeds and usages, conversations
// long and empty) and damaged copies of them must give, every time, what
// a fresh decode gives: the same verdict and error, the same value.
func TestTranscriptDecoderLeavesNothingStale(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var dec TranscriptDecoder
	accepted, refused := 0, 0
	for i := range 600 {
		tr := randomTranscript(r)
		if i%7 == 3 {
			tr.Format, tr.Seed = TranscriptFormatV1, nil
		}
		raw, _, err := tr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 2 {
			raw = append([]byte(nil), raw...)
			raw[r.IntN(len(raw))] ^= byte(1 << r.IntN(8))
		}
		want, werr := DecodeTranscriptBorrowed(raw)
		got, gerr := dec.Decode(raw)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("input %d: fresh decode says %v, reused decoder %v", i, werr, gerr)
		}
		if werr != nil {
			refused++
			continue
		}
		accepted++
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("input %d: reused decoder gives %+v, fresh decode %+v", i, got, want)
		}
	}
	if accepted == 0 || refused == 0 {
		t.Fatalf("accepted %d, refused %d: both must occur", accepted, refused)
	}
}

// TestTranscriptDecoderReusesMemory: once warm, decoding a transcript
// allocates at most its challenge ID's env name (interned for known envs).
func TestTranscriptDecoderReusesMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	tr := randomTranscript(rand.New(rand.NewPCG(11, 12)))
	tr.Usage = &Usage{PromptTokens: 1, CompletionTokens: 2}
	raw, _, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	var dec TranscriptDecoder
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := dec.Decode(raw); err != nil {
			t.Fatal(err)
		}
	})
	fresh := testing.AllocsPerRun(100, func() { DecodeTranscriptBorrowed(raw) })
	if allocs > 1 || fresh < allocs+4 {
		t.Fatalf("%v allocations a decode reused, %v fresh", allocs, fresh)
	}
}
