package local

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/affine-ledger/ledger/chain"
)

// FuzzParseGenesis: an accepted genesis passes Check and reads back the
// same after writing it out.
func FuzzParseGenesis(f *testing.F) {
	g := DefaultGenesis()
	g.Neurons = []GenesisNeuron{{Stake: 1000, Validator: true}}
	b, err := json.Marshal(g)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"tempo": 10, "block_time": "1ms"}`))
	f.Add([]byte(`{"block_time": "-5s"}`))
	f.Add([]byte(`{"neurons": [{"hotkey": "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"}]} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGenesis(data)
		if err != nil {
			return
		}
		if err := g.Check(); err != nil {
			t.Fatalf("accepted a genesis that fails Check: %v", err)
		}
		out, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseGenesis(out)
		if err != nil {
			t.Fatalf("%s does not read back: %v", out, err)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(out) {
			t.Fatalf("genesis changes on a round trip:\n%s\n%s", out, again)
		}
	})
}

// FuzzDecodeError: any error body from a chain server becomes an error,
// never a panic, and never nil, and its text stays short whatever the
// body holds.
func FuzzDecodeError(f *testing.F) {
	f.Add(400, []byte(`{"error":{"code":"bad_request","message":"no"}}`))
	f.Add(500, []byte(`not json`))
	f.Add(404, []byte(`{"error":{"code":""}}`))
	f.Fuzz(func(t *testing.T, status int, data []byte) {
		err := decodeError(status, data)
		if err == nil {
			t.Fatalf("no error for HTTP %d %q", status, data)
		}
		if n := len(err.Error()); n > 2*maxErrorText+64 {
			t.Fatalf("an error of %d bytes from a body of %d", n, len(data))
		}
	})
}

func TestDecodeErrorCutsLongMessages(t *testing.T) {
	long := strings.Repeat("é", maxErrorText) // 2 bytes a rune
	body, _ := json.Marshal(map[string]any{"error": map[string]string{"code": "bad_request", "message": long}})
	err := decodeError(400, body)
	if !errors.Is(err, chain.ErrBadRequest) {
		t.Fatalf("code lost: %v", err)
	}
	msg := strings.TrimPrefix(err.Error(), "local chain: ")
	if !strings.HasSuffix(msg, "…") || len(msg) > maxErrorText+len("…") || !utf8.ValidString(msg) {
		t.Fatalf("message of %d bytes: %.40q…", len(msg), msg)
	}
	short := `{"error":{"code":"bad_request","message":"exactly this"}}`
	if err := decodeError(400, []byte(short)); err.Error() != "local chain: exactly this" {
		t.Fatalf("short message changed: %v", err)
	}
}

func TestReadGenesisBound(t *testing.T) {
	dir := t.TempDir()
	at, past := filepath.Join(dir, "at.json"), filepath.Join(dir, "past.json")
	doc := []byte(`{"tempo": 7}`)
	pad := func(n int) []byte { return append(slices.Clone(doc), bytes.Repeat([]byte(" "), n-len(doc))...) }
	if err := os.WriteFile(at, pad(MaxGenesisBytes), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(past, pad(MaxGenesisBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := ReadGenesis(at)
	if err != nil || g.Tempo != 7 {
		t.Fatalf("a genesis of exactly %d bytes: %+v, %v", MaxGenesisBytes, g, err)
	}
	if _, err := ReadGenesis(past); err == nil || !strings.Contains(err.Error(), "over 1048576 bytes") {
		t.Fatalf("a genesis one byte over: %v", err)
	}
}
