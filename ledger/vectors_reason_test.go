package ledger_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/ledger/record"
)

// vectorReasonCut is one reason as a transcript records it
// (spec/ledger.md#transcript, reason): the env's reason is Fill repeated
// Repeat times, then Tail; the recorded one has RecordedBytes bytes, ends
// with RecordedTail and hashes to RecordedSHA256.
type vectorReasonCut struct {
	Name           string `json:"name"`
	Fill           string `json:"fill"`
	Repeat         int    `json:"repeat"`
	Tail           string `json:"tail"`
	ReasonBytes    int    `json:"reason_bytes"`
	RecordedBytes  int    `json:"recorded_bytes"`
	RecordedTail   string `json:"recorded_tail"`
	RecordedSHA256 string `json:"recorded_sha256"`
}

// buildReasonCuts returns reasons at and past the 4096-byte limit, with a
// character of each UTF-8 length across the 4093-byte cut.
func buildReasonCuts(t *testing.T) []vectorReasonCut {
	cases := []vectorReasonCut{
		{Name: "4096 bytes: kept whole", Fill: "a", Repeat: 4096},
		{Name: "4096 bytes ending in a 2-byte character: kept whole", Fill: "a", Repeat: 4094, Tail: "é"},
		{Name: "4097 bytes of ASCII: 4093 kept", Fill: "a", Repeat: 4097},
		{Name: "a character starts at byte 4093: 4093 kept", Fill: "a", Repeat: 4093, Tail: "é and more"},
		{Name: "a 2-byte character across the cut: 4092 kept", Fill: "a", Repeat: 4092, Tail: "é and more"},
		{Name: "a 3-byte character across the cut: 4091 kept", Fill: "a", Repeat: 4091, Tail: "€ and more"},
		{Name: "a 3-byte character ending at the cut: 4093 kept", Fill: "a", Repeat: 4090, Tail: "€€ and more"},
		{Name: "a 4-byte character across the cut: 4090 kept", Fill: "a", Repeat: 4090, Tail: "😀 and more"},
		{Name: "a 4-byte character ending at the cut: 4093 kept", Fill: "a", Repeat: 4089, Tail: "😀😀"},
		{Name: "only 3-byte characters: 4092 kept", Fill: "€", Repeat: 1400},
	}
	for i := range cases {
		c := &cases[i]
		reason := strings.Repeat(c.Fill, c.Repeat) + c.Tail
		got := record.RecordedReason(reason)
		sum := sha256.Sum256([]byte(got))
		c.ReasonBytes, c.RecordedBytes = len(reason), len(got)
		c.RecordedTail = got[len(got)-tailBytes(got):]
		c.RecordedSHA256 = hex.EncodeToString(sum[:])
	}
	return cases
}

// tailBytes is the length of the last 12 characters of s.
func tailBytes(s string) int {
	r := []rune(s)
	return len(string(r[max(0, len(r)-12):]))
}

// checkReasonCuts holds the cut to its statement in spec/ledger.md,
// independently of the code that built the vectors.
func checkReasonCuts(t *testing.T, cases []vectorReasonCut) {
	for _, c := range cases {
		reason := strings.Repeat(c.Fill, c.Repeat) + c.Tail
		want := reason
		if len(reason) > 4096 {
			n := 4093
			for n > 0 && reason[n]&0xc0 == 0x80 {
				n--
			}
			want = reason[:n] + "..."
		}
		if got := record.RecordedReason(reason); got != want || len(got) != c.RecordedBytes || !strings.HasSuffix(got, c.RecordedTail) {
			t.Errorf("%s: recorded %d bytes ending %q, want %d ending %q", c.Name, len(got), got[max(0, len(got)-12):], len(want), want[max(0, len(want)-12):])
		}
	}
}
