package record_test

import (
	"bytes"
	"testing"

	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// TestDecodeRefusesTextNotUTF8: decoding skips Check's UTF-8 scan, since
// the codec refuses text strings that are not UTF-8; so a byte that breaks
// UTF-8 in any text field, in either format and either decoder, must still
// be refused.
func TestDecodeRefusesTextNotUTF8(t *testing.T) {
	fields := map[string]func(*record.Transcript, string){
		"reason":         func(t *record.Transcript, s string) { t.Reason = s },
		"error":          func(t *record.Transcript, s string) { t.Error = s },
		"miner model":    func(t *record.Transcript, s string) { t.Miner.Model = s },
		"miner revision": func(t *record.Transcript, s string) { t.Miner.Revision = s },
		"miner endpoint": func(t *record.Transcript, s string) { t.Miner.Endpoint = s },
		"message":        func(t *record.Transcript, s string) { t.Conversation[2].Content = s },
	}
	const marker = "ZZmarkerZZ"
	for _, format := range []string{"format 2", "format 1"} {
		for name, set := range fields {
			tr := recordtest.Transcript(keys.PublicKey{7}, 3, 100)
			if format == "format 1" {
				tr = recordtest.TranscriptV1(keys.PublicKey{7}, 3, 100)
			}
			set(&tr, "é "+marker+" ü")
			raw, _, err := tr.Encode()
			if err != nil {
				t.Fatalf("%s %s: %v", format, name, err)
			}
			for _, decode := range []func([]byte) (*record.Transcript, error){record.DecodeTranscript, record.DecodeTranscriptBorrowed} {
				if _, err := decode(raw); err != nil {
					t.Fatalf("%s %s: the intact transcript: %v", format, name, err)
				}
				for _, bad := range [][]byte{{0xff}, {0xc3}, {0x80}} {
					damaged := bytes.Replace(raw, []byte(marker), append(bad, marker[1:]...), 1)
					if bytes.Equal(damaged, raw) {
						t.Fatalf("%s %s: marker not found", format, name)
					}
					if _, err := decode(damaged); err == nil {
						t.Errorf("%s %s: byte %#x in the text decoded", format, name, bad[0])
					}
				}
			}
		}
	}
}
