package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/internal/golden"
)

// TestVerifyProofRejectVectors: every file of the "reject" cases of
// spec/vectors/proof-inclusion.json and proof-consistency.json, given to
// ledger verify-proof, exits as the case says (1 a proof that does not
// verify, 2 not a proof), naming the case's error on stderr; with --json,
// a proof that does not verify prints ok false and that error, a file that
// is no proof prints nothing (spec/proofs.md, "Checking").
func TestVerifyProofRejectVectors(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"proof-inclusion.json", "proof-consistency.json"} {
		data, err := os.ReadFile(golden.VectorPath(name))
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Reject []struct {
				Name  string `json:"name"`
				Exit  int    `json:"exit"`
				Error string `json:"error"`
				File  string `json:"file"`
				PadTo int    `json:"pad_to"`
			} `json:"reject"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Reject) == 0 {
			t.Fatalf("%s: no reject cases", name)
		}
		dir := t.TempDir()
		for i, c := range v.Reject {
			body := []byte(c.File)
			if c.PadTo > len(body) {
				body = append(body, bytes.Repeat([]byte{' '}, c.PadTo-len(body))...)
			}
			file := filepath.Join(dir, fmt.Sprintf("%s-%d.json", strings.TrimSuffix(name, ".json"), i))
			if err := os.WriteFile(file, body, 0o600); err != nil {
				t.Fatal(err)
			}
			if c.Exit != exitCheckFail && c.Exit != exitUsage {
				t.Fatalf("%s %q: exit %d is neither 1 nor 2", name, c.Name, c.Exit)
			}
			code, out, errs := ledgerRun(t, "verify-proof", file)
			if code != c.Exit || out != "" || !strings.Contains(errs, c.Error) {
				t.Errorf("%s %q: exit %d, stdout %q, stderr %q; want exit %d naming %q", name, c.Name, code, out, errs, c.Exit, c.Error)
			}
			code, out, _ = ledgerRun(t, "verify-proof", "--json", file)
			if c.Exit == exitUsage {
				if code != exitUsage || out != "" {
					t.Errorf("%s %q --json: exit %d, stdout %q; want exit 2 printing nothing", name, c.Name, code, out)
				}
				continue
			}
			var res struct {
				OK    *bool  `json:"ok"`
				Error string `json:"error"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitCheckFail || res.OK == nil || *res.OK || !strings.Contains(res.Error, c.Error) {
				t.Errorf("%s %q --json: exit %d, %s; want exit 1, ok false, an error naming %q", name, c.Name, code, out, c.Error)
			}
		}
	}
}
