package record

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRecordedReason(t *testing.T) {
	fits := strings.Repeat("a", MaxTextField)
	if got := RecordedReason(fits); got != fits {
		t.Fatalf("a reason of exactly %d bytes was changed", MaxTextField)
	}
	for _, long := range []string{
		"variable " + strings.Repeat("9", 70000) + " out of range",
		strings.Repeat("é", MaxTextField), // 2 bytes a rune: the cut falls inside one
		strings.Repeat("a", MaxTextField+1),
	} {
		got := RecordedReason(long)
		if len(got) > MaxTextField || !utf8.ValidString(got) || !strings.HasSuffix(got, "...") {
			t.Fatalf("cut reason of %d bytes: %d bytes, valid %v, %q…", len(long), len(got), utf8.ValidString(got), got[:20])
		}
		if !strings.HasPrefix(long, strings.TrimSuffix(got, "...")) || len(got) < MaxTextField-utf8.UTFMax {
			t.Fatalf("cut reason of %d bytes is not its longest prefix: %d bytes", len(long), len(got))
		}
	}
}
