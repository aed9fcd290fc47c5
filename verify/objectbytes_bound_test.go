package verify_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestBlockAtTheObjectBytesBound: a block whose transcripts total exactly
// MaxBlockObjectBytes (64 transcripts of exactly 1 MiB) is written, audited
// clean in the store and in an export, and imported: the bound is "at
// most", everywhere it is checked.
func TestBlockAtTheObjectBytesBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and audits 64 MiB of transcripts")
	}
	t.Parallel()
	const n = 64
	const each = record.MaxBlockObjectBytes / n
	exact := func(_, _, _ int, tr *record.Transcript) {
		// The reply is prose before its answer (Spec.Pad), too long to
		// score: more prose in front changes only the size its reason
		// quotes, which is changed to match.
		reply := &tr.Conversation[len(tr.Conversation)-1].Content
		for {
			raw, _, err := tr.Encode()
			if err != nil {
				panic(err)
			}
			if len(raw) == each {
				return
			}
			var size, limit int
			if _, err := fmt.Sscanf(tr.Reason, "answer too large: %d bytes > %d", &size, &limit); err != nil {
				panic(fmt.Sprintf("reason %q: %v", tr.Reason, err))
			}
			grow := each - len(raw)
			*reply = strings.Repeat("x", grow) + *reply
			tr.Reason = fmt.Sprintf("answer too large: %d bytes > %d", size+grow, limit)
		}
	}
	dir, _ := build(t, verifytest.Spec{Validators: 1, Blocks: 1, PerBlock: n, Envs: []string{"mult8"}, Pad: each - 8<<10, Mutate: exact})

	rep := verifyDir(t, dir, verify.StoreScope{})
	if !rep.OK || rep.Transcripts != n || rep.Bytes < record.MaxBlockObjectBytes {
		t.Fatalf("store audit %+v, want a clean block of %d transcripts and %d bytes", rep, n, record.MaxBlockObjectBytes)
	}

	s := open(t, dir)
	defer s.Close()
	var car bytes.Buffer
	if _, err := archive.Export(s, &car); err != nil {
		t.Fatal(err)
	}
	fromCAR, err := verify.VerifyCAR(bytes.NewReader(car.Bytes()), verify.Options{Reexecute: true, StrictSeeds: true, Challenges: verify.NewMemSet()})
	if err != nil || !fromCAR.OK || fromCAR.Transcripts != n {
		t.Fatalf("archive audit %+v (%v)", fromCAR, err)
	}
	dst := open(t, t.TempDir())
	defer dst.Close()
	if st, err := archive.Import(dst, bytes.NewReader(car.Bytes()), archive.ImportOptions{}); err != nil || st.Transcripts != n {
		t.Fatalf("import: %+v, %v", st, err)
	}
}
