package verify_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestCheckFiles damages each kind of Pebble file of a closed store in
// the one way the audit proper cannot see or Pebble hides, and checks
// that CheckFiles names the file, and that what a crash leaves passes.
func TestCheckFiles(t *testing.T) {
	t.Parallel()
	base, _ := buildAt(t, verifytest.Spec{Validators: 2, Blocks: 2, PerBlock: 1, Envs: []string{"mult8"}})
	files := map[string]string{} // kind -> file name
	ents, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasSuffix(n, ".sst"):
			files["table"] = n
		case strings.HasSuffix(n, ".log") && n > files["log"]:
			files["log"] = n // the newest
		case strings.HasPrefix(n, "MANIFEST-"):
			files["manifest"] = n
		}
	}
	if len(files) != 3 {
		t.Fatalf("files %v: want a table, a log and a MANIFEST", files)
	}
	tableInfo, err := os.Stat(filepath.Join(base, files["table"]))
	if err != nil {
		t.Fatal(err)
	}
	logInfo, err := os.Stat(filepath.Join(base, files["log"]))
	if err != nil {
		t.Fatal(err)
	}
	flip := func(at func(size int) int) func([]byte) []byte {
		return func(b []byte) []byte { b[at(len(b))] ^= 0x10; return b }
	}
	cases := []struct {
		name, file string
		edit       func([]byte) []byte
		want       string // "" for a store that passes
		also       string // more the error must say
		torn       bool   // a store that passes with its newest log torn
	}{
		{"intact", "", nil, "", "", false},
		// A flip in a table's data block that holds only keys the audit
		// never reads would pass the audit proper.
		{"table block", files["table"], flip(func(n int) int { return n / 3 }), files["table"], "", false},
		// The last byte of a table's footer padding, before the format
		// version and magic (12 bytes): no checksum covers it, and
		// Pebble never reads it.
		{"table footer padding", files["table"], flip(func(n int) int { return n - 13 }), fmt.Sprintf("%s: footer padding byte at %d is 0x10", files["table"], tableInfo.Size()-13), "", false},
		// A flip in the newest log's first record: Pebble takes it for
		// a torn tail and drops every record after it.
		{"newest log record", files["log"], flip(func(int) int { return 20 }), files["log"] + ": the record at byte 0 is damaged",
			// The trailer is the log's last chunk, of 11 bytes.
			fmt.Sprintf("(its end-of-file trailer is at byte %d)", logInfo.Size()-11), false},
		{"newest log trailer", files["log"], flip(func(n int) int { return n - 1 }), "", "", false},
		{"newest log cut, as a crash leaves it", files["log"], func(b []byte) []byte { return b[:len(b)/2] }, "", "", true},
		// Pebble ends the MANIFEST at the first record that does not
		// check out, wherever it is.
		{"manifest record", files["manifest"], flip(func(int) int { return 9 }), files["manifest"] + ": the record at byte 0", "", false},
	}
	if _, err := verify.CheckFiles(t.TempDir()); err == nil || errors.Is(err, verify.ErrDamagedFile) {
		t.Fatalf("CheckFiles of an empty directory: %v, want an error that is not about damage", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyStore(t, base)
			if tc.edit != nil {
				path := filepath.Join(dir, tc.file)
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, tc.edit(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			torn, err := verify.CheckFiles(dir)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("CheckFiles: %v", err)
			case tc.torn && (torn == nil || torn.Log != files["log"] || torn.Offset <= 0 || torn.Offset >= torn.Size):
				t.Fatalf("CheckFiles: torn log %+v, want %s torn within it", torn, files["log"])
			case !tc.torn && torn != nil:
				t.Fatalf("CheckFiles: torn log %+v, want none", torn)
			case tc.want != "" && (!errors.Is(err, verify.ErrDamagedFile) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.also)):
				t.Fatalf("CheckFiles: %v, want ErrDamagedFile naming %q %s", err, tc.want, tc.also)
			}
		})
	}
}

// TestOpenStoreDamagedTable: a damaged table reaches the audit as an
// error, not as the panic Pebble's default corruption handler makes of
// the store's logger (in a background goroutine, which ended the process).
func TestOpenStoreDamagedTable(t *testing.T) {
	t.Parallel()
	base, _ := buildAt(t, verifytest.Spec{Validators: 2, Blocks: 2, PerBlock: 1, Envs: []string{"mult8"}})
	dir := copyStore(t, base)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ents, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".sst") })
	path := filepath.Join(dir, ents[i].Name())
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < len(b); j += 64 { // every block, the properties included
		b[j] ^= 1
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// CheckFiles is what the audit runs first; here the open must cope
	// without it.
	if v := verifyTamperedSkippingFiles(dir); v.ok() {
		t.Fatal("verify passed a store whose table is damaged throughout")
	}
}

// verifyTamperedSkippingFiles is verifyTampered without CheckFiles.
func verifyTamperedSkippingFiles(dir string) verdict {
	s, err := verify.OpenStore(dir)
	if err != nil {
		return verdict{refused: err}
	}
	defer s.Close()
	heads, err := verify.StoreHeads(s, verify.StoreScope{})
	if err != nil {
		return verdict{refused: err}
	}
	rep, err := verify.VerifyStore(s, heads, verify.StoreScope{}, tamperOptions())
	return verdict{refused: err, rep: rep}
}
