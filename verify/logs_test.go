package verify_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/verify"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// TestCheckFilesNamesOlderLog: damage in a write-ahead log before the
// newest fails Pebble's replay with an error that names no file
// ("pebble: error when replaying WAL: pebble/record: unexpected EOF");
// CheckFiles names the log and where its damage starts.
func TestCheckFilesNamesOlderLog(t *testing.T) {
	t.Parallel()
	base, _ := buildAt(t, verifytest.Spec{Validators: 2, Blocks: 2, PerBlock: 1, Envs: []string{"mult8"}})
	dir, older := twoLiveLogs(t, base)
	if _, err := verify.CheckFiles(dir); err != nil {
		t.Fatalf("CheckFiles of the store with two live logs, intact: %v", err)
	}
	path := filepath.Join(dir, older)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = verify.CheckFiles(dir)
	if !errors.Is(err, verify.ErrDamagedFile) || !strings.Contains(err.Error(), "log "+older+": the record at byte 0 is damaged or cut short") {
		t.Fatalf("CheckFiles: %v, want ErrDamagedFile naming log %s", err, older)
	}
}

// twoLiveLogs copies the closed store at base and leaves in the copy what
// a crash leaves between a memtable's rotation and its flush: two logs
// that Pebble replays, the older closed with its trailer. It returns the
// copy and the older log's name. The records written are the layout key
// with the value it has, so the store is the same.
func twoLiveLogs(t *testing.T, base string) (string, string) {
	t.Helper()
	src := copyStore(t, base)
	format, ok, err := ledgertest.Get(src, []byte("\x00format"))
	if err != nil || !ok {
		t.Fatalf("layout key: %v %v", ok, err)
	}
	fs := &holdTables{FS: vfs.Default, held: make(chan struct{}), release: make(chan struct{})}
	db, err := pebble.Open(src, &pebble.Options{FS: fs, Logger: quietPebble{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set([]byte("\x00format"), format, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	before := logs(t, src)
	fs.holding.Store(true)
	flushed, err := db.AsyncFlush()
	if err != nil {
		t.Fatal(err)
	}
	<-fs.held // the memtable rotated: a new log; its flush waits
	if err := db.Set([]byte("\x00format"), format, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	dir := copyStore(t, src)
	close(fs.release)
	<-flushed
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	after := logs(t, dir)
	if len(before) == 0 || len(after) < 2 || !slices.Contains(after, before[len(before)-1]) {
		t.Fatalf("logs %v before the rotation, %v in the copy: want the newest before and a newer one", before, after)
	}
	return dir, before[len(before)-1]
}

func logs(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			out = append(out, e.Name()) // zero-padded: in order
		}
	}
	return out
}

// holdTables holds the creation of tables, once holding is set, until
// release is closed: a flush stops before it writes its table.
type holdTables struct {
	vfs.FS
	holding atomic.Bool
	once    sync.Once
	held    chan struct{}
	release chan struct{}
}

func (h *holdTables) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if h.holding.Load() && strings.HasSuffix(name, ".sst") {
		h.once.Do(func() { close(h.held) })
		<-h.release
	}
	return h.FS.Create(name, category)
}

type quietPebble struct{}

func (quietPebble) Infof(string, ...any)  {}
func (quietPebble) Errorf(string, ...any) {}
func (quietPebble) Fatalf(format string, a ...any) {
	panic(format)
}

// TestCheckFilesFollowsTheNewestMarker: where a crash left two MANIFEST
// markers, Pebble reads the MANIFEST the one of the higher sequence
// number names, and so does CheckFiles: a damaged MANIFEST that only an
// older marker names is not the store's, and one the newest names is.
func TestCheckFilesFollowsTheNewestMarker(t *testing.T) {
	t.Parallel()
	base, _ := buildAt(t, verifytest.Spec{Validators: 1, Blocks: 1, PerBlock: 1, Envs: []string{"mult8"}})
	ents, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	var marker, manifest string
	for _, e := range ents {
		if rest, ok := strings.CutPrefix(e.Name(), "marker.manifest."); ok {
			marker = e.Name()
			_, manifest, _ = strings.Cut(rest, ".")
		}
	}
	seq, err := strconv.ParseUint(strings.Split(marker, ".")[2], 10, 64)
	if marker == "" || err != nil || seq == 0 {
		t.Fatalf("marker %q (%v): want one of a sequence above 0", marker, err)
	}
	for _, tc := range []struct {
		name string
		seq  uint64
		want string // "" for a store that passes
	}{
		{"older marker", seq - 1, ""},
		{"newer marker", seq + 1, "MANIFEST-999999: the record at byte 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyStore(t, base)
			b, err := os.ReadFile(filepath.Join(dir, manifest))
			if err != nil {
				t.Fatal(err)
			}
			b[9] ^= 0x10
			for name, data := range map[string][]byte{
				"MANIFEST-999999": b,
				fmt.Sprintf("marker.manifest.%06d.MANIFEST-999999", tc.seq): nil,
			} {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err = verify.CheckFiles(dir)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("CheckFiles: %v, want the current MANIFEST (%s) read", err, manifest)
			case tc.want != "" && (!errors.Is(err, verify.ErrDamagedFile) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("CheckFiles: %v, want ErrDamagedFile naming %q", err, tc.want)
			}
		})
	}
}
