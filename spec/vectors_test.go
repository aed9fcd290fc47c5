package spec

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/internal/golden"
	"github.com/affine-ledger/ledger/rng"
)

func seedOf(b byte) [32]byte {
	var s [32]byte
	for i := range s {
		s[i] = b + byte(i)
	}
	return s
}

type rngVector struct {
	Seed      string     `json:"seed"`
	U64       []string   `json:"u64"`
	Uniform   []uniformV `json:"uniform"`
	Range     []rangeV   `json:"range"`
	Chance    chanceV    `json:"chance"`
	Shuffle16 []int      `json:"shuffle_0_to_15"`
	Derive    []deriveV  `json:"derive"`
}

type uniformV struct {
	N       string   `json:"n"`
	Results []string `json:"results"`
}

type rangeV struct {
	Lo      int64   `json:"lo"`
	Hi      int64   `json:"hi"`
	Results []int64 `json:"results"`
}

type chanceV struct {
	Num     uint64 `json:"num"`
	Den     uint64 `json:"den"`
	Results []bool `json:"results"`
}

type deriveV struct {
	Label string `json:"label"`
	Seed  string `json:"seed"`
}

func u64s(vs []uint64) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = jsonUint(v)
	}
	return out
}

func jsonUint(v uint64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Each list below draws from a fresh stream, so a reimplementation can check one draw kind
// at a time.
func buildRandomness() []rngVector {
	var out []rngVector
	for _, b := range []byte{0x00, 0x42} {
		seed := seedOf(b)
		v := rngVector{Seed: hex.EncodeToString(seed[:])}
		s := rng.New(seed)
		var raw []uint64
		for i := 0; i < 6; i++ {
			raw = append(raw, s.Uint64())
		}
		v.U64 = u64s(raw)
		for _, n := range []uint64{1, 2, 6, 1000, 99999999 - 10000000 + 1, 1<<63 + 1} {
			s := rng.New(seed)
			var rs []uint64
			for i := 0; i < 8; i++ {
				rs = append(rs, s.Uniform(n))
			}
			v.Uniform = append(v.Uniform, uniformV{N: jsonUint(n), Results: u64s(rs)})
		}
		for _, r := range [][2]int64{{-5, 5}, {10000000, 99999999}} {
			s := rng.New(seed)
			rv := rangeV{Lo: r[0], Hi: r[1]}
			for i := 0; i < 8; i++ {
				rv.Results = append(rv.Results, s.IntRange(r[0], r[1]))
			}
			v.Range = append(v.Range, rv)
		}
		s = rng.New(seed)
		v.Chance = chanceV{Num: 1, Den: 3}
		for i := 0; i < 16; i++ {
			v.Chance.Results = append(v.Chance.Results, s.Chance(1, 3))
		}
		s = rng.New(seed)
		perm := make([]int, 16)
		for i := range perm {
			perm[i] = i
		}
		s.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		v.Shuffle16 = perm
		for _, label := range []string{"start", "opponent/........."} {
			d := rng.Derive(seed, label)
			v.Derive = append(v.Derive, deriveV{Label: label, Seed: hex.EncodeToString(d[:])})
		}
		out = append(out, v)
	}
	return out
}

func TestRandomnessVectors(t *testing.T) {
	file := map[string]any{
		"note":    "spec/randomness.md. u64 and uniform values are decimal strings (they exceed 2^53). Every list draws from a fresh stream of the seed.",
		"streams": buildRandomness(),
	}
	data := golden.CheckJSON(t, "randomness.json", file)
	// File to code: re-read and compare the first u64s independently of buildRandomness.
	var back struct {
		Streams []rngVector `json:"streams"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, v := range back.Streams {
		var seed [32]byte
		hex.Decode(seed[:], []byte(v.Seed))
		s := rng.New(seed)
		for i, want := range v.U64 {
			if got := jsonUint(s.Uint64()); got != want {
				t.Fatalf("seed %s u64 %d: %s, file says %s", v.Seed, i, got, want)
			}
		}
	}
}

type idVector struct {
	Text   string `json:"text"`
	Binary string `json:"binary"`
}

type deriveVector struct {
	AnchorHash string `json:"anchor_hash"`
	Validator  string `json:"validator"`
	Env        string `json:"env"`
	Version    uint16 `json:"version"`
	Counter    uint64 `json:"counter"`
	Seed       string `json:"seed"`
	ID         string `json:"challenge_id"`
}

var malformedIDs = []string{
	"mult8.v1.A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF",
	"mult8.v01.a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf",
	"mult8.v0.a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf",
	"mult8.1.a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf",
	"Mult8.v1.a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf",
	"8mult.v1.a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf",
	"mult8.v1.a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbe",
	"mult8.v1",
	"mult8.v65536.a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf",
}

func TestChallengeIDVectors(t *testing.T) {
	var ids []idVector
	for _, c := range []struct {
		env string
		ver uint16
		b   byte
	}{{"mult8", 1, 0xa0}, {"tictactoe", 1, 0}, {"sat", 2, 0x10}, {"abd", 300, 0xf0}, {"coin", 1, 0x55}} {
		id, err := challenge.New(c.env, c.ver, seedOf(c.b))
		if err != nil {
			t.Fatal(err)
		}
		bin, _ := id.MarshalBinary()
		ids = append(ids, idVector{Text: id.String(), Binary: hex.EncodeToString(bin)})
	}
	var derived []deriveVector
	for i, env := range []string{"mult8", "sat", "tictactoe"} {
		anchor, validator := seedOf(byte(0x11*i)), seedOf(0xd4)
		for _, counter := range []uint64{0, 1, 399} {
			id, err := challenge.Derive(anchor, validator, env, 1, counter)
			if err != nil {
				t.Fatal(err)
			}
			derived = append(derived, deriveVector{
				AnchorHash: hex.EncodeToString(anchor[:]), Validator: hex.EncodeToString(validator[:]),
				Env: env, Version: 1, Counter: counter, Seed: hex.EncodeToString(id.Seed[:]), ID: id.String(),
			})
		}
	}
	file := map[string]any{
		"note":      "spec/challenge-id.md",
		"ids":       ids,
		"derive":    derived,
		"malformed": malformedIDs,
	}
	data := golden.CheckJSON(t, "challenge-id.json", file)
	var back struct {
		IDs       []idVector `json:"ids"`
		Malformed []string   `json:"malformed"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, v := range back.IDs {
		id, err := challenge.Parse(v.Text)
		if err != nil {
			t.Fatal(err)
		}
		var fromBin challenge.ID
		raw, _ := hex.DecodeString(v.Binary)
		if err := fromBin.UnmarshalBinary(raw); err != nil || fromBin != id {
			t.Fatalf("%s: binary form decodes to %v, %v", v.Text, fromBin, err)
		}
	}
	for _, s := range back.Malformed {
		if _, err := challenge.Parse(s); !errors.Is(err, challenge.ErrMalformed) {
			t.Fatalf("malformed ID %q accepted (err %v)", s, err)
		}
	}
}
