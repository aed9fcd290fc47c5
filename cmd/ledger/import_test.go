package main

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/node"
)

// TestImportIntoNodeDataDir: verify, export, prove and transcripts take a
// node's data directory for --data and read the store in its store/
// subdirectory (storeDir). import opens --data as it is, so the same
// directory given to import gets a second, new store beside the node's:
// the import reports success, the node's store does not hold the chains,
// and from then on every other command reads the new store instead of the
// node's (storeDir finds a MANIFEST in the directory itself first).
func TestImportIntoNodeDataDir(t *testing.T) {
	t.Parallel()
	car := exportedLedger(t)
	data := t.TempDir() // a node's data directory, its store in store/
	s, err := ledger.Open(node.StoreDir(data), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := ledgerRun(t, "import", "--data", data, "--car", car); code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	if m, _ := filepath.Glob(filepath.Join(data, "MANIFEST-*")); len(m) > 0 {
		t.Errorf("import made a second store in the data directory itself, beside %s", node.StoreDir(data))
	}
	s, err = ledger.Open(node.StoreDir(data), ledger.WithNetwork(recordtest.Network))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	for _, err := range s.Heads() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("the node's store holds %d chains after importing an archive of 2 into its data directory", n)
	}
}

// TestNewStoreDir: where import puts the store for each kind of --data,
// and that the other commands (storeDir) then find that same store.
func TestNewStoreDir(t *testing.T) {
	t.Parallel()
	mkStore := func(t *testing.T, dir string) {
		s, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		// want is relative to the --data directory.
		want string
	}{
		{"missing directory", func(t *testing.T, dir string) { os.Remove(dir) }, "."},
		{"empty directory", func(t *testing.T, dir string) {}, "."},
		{"a store", mkStore, "."},
		{"a node's data directory with its store", func(t *testing.T, dir string) { mkStore(t, node.StoreDir(dir)) }, "store"},
		{"a node's data directory, store/ empty", func(t *testing.T, dir string) {
			if err := os.Mkdir(node.StoreDir(dir), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "store"},
		{"a node's data directory, identity only", func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Dir(node.IdentityFile(dir)), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(node.IdentityFile(dir), []byte("key"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "store"},
		// Neither kind, and not empty: refused ("" is an error naming
		// what the directory holds).
		{"a directory holding a file", func(t *testing.T, dir string) { writeIn(t, dir, "file.txt") }, ""},
		{"a local chain's directory", func(t *testing.T, dir string) { writeIn(t, dir, "state.json") }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "data")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir)
			got, err := newStoreDir(dir)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("newStoreDir = %s, want it refused", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(dir, tc.want); got != want {
				t.Fatalf("newStoreDir = %s, want %s", got, want)
			}
			mkStore(t, got)
			if found, err := storeDir(dir); err != nil || found != got {
				t.Fatalf("after creating %s, storeDir = %s, %v", got, found, err)
			}
		})
	}
}

// writeIn writes a small file named name in dir.
func writeIn(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// onlyFiles fails unless dir holds exactly the named entries: no
// temporary file was left.
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

// TestImportRefusesAnotherDirectory: import into a non-empty directory
// that is neither a store nor a node's data directory (a local chain's
// state directory, one holding a file) is usage (exit 2), naming what the
// directory holds, and leaves it as it was: no Pebble files among the
// others.
func TestImportRefusesAnotherDirectory(t *testing.T) {
	t.Parallel()
	car := exportedLedger(t)
	for _, name := range []string{"file.txt", "state.json"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dst := t.TempDir()
			writeIn(t, dst, name)
			code, out, errs := ledgerRun(t, "import", "--data", dst, "--car", car)
			if code != exitUsage || !strings.Contains(errs, name) || !strings.Contains(errs, "neither a ledger store nor a node's data directory") {
				t.Errorf("exit %d: %s %q; want 2 naming %s", code, out, errs, name)
			}
			onlyFiles(t, dst, name)
		})
	}
}

// TestImportBadArchiveCreatesNoStore: import of a file that is not a
// readable CARv1 is usage (exit 2) and leaves no new empty store at
// --data (a typo'd path would gain one).
func TestImportBadArchiveCreatesNoStore(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"text":           "not a car",
		"empty":          "",
		"header cut off": "\x30\xa2",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dst := filepath.Join(t.TempDir(), "new")
			if code, out, errs := ledgerRun(t, "import", "--data", dst, "--car", writeFile(t, content)); code != exitUsage {
				t.Fatalf("exit %d: %s %s", code, out, errs)
			}
			if _, err := os.Stat(dst); err == nil {
				entries, _ := os.ReadDir(dst)
				t.Fatalf("import of an unreadable archive created %s (%d files)", dst, len(entries))
			}
		})
	}
}

// TestImportCutShortSaysWhatItKept: an archive cut short fails, and the
// failure says how many blocks before the damage the store kept; they
// are there, and verify.
func TestImportCutShortSaysWhatItKept(t *testing.T) {
	t.Parallel()
	car := exportedLedger(t)
	raw := readFile(t, car)
	cut := writeFile(t, string(raw[:len(raw)*2/3]))
	dst := filepath.Join(t.TempDir(), "new")
	code, out, errs := ledgerRun(t, "import", "--data", dst, "--car", cut)
	m := regexp.MustCompile(`the store keeps the (\d+) blocks? before it`).FindStringSubmatch(errs)
	if code == 0 || m == nil {
		t.Fatalf("import of a cut archive: exit %d, %q %q", code, out, errs)
	}
	if code, out, errs := ledgerRun(t, "verify", "--data", dst, "--no-reexec", "--json"); code != 0 || !strings.Contains(out, `"blocks": `+m[1]) {
		t.Fatalf("the %s blocks kept: verify exit %d, %s %s", m[1], code, out, errs)
	}
}

// TestArchivePathsOfTheWrongKind: a directory given for --car, or a file
// for import's --data, is bad usage naming the flag and saying what the
// path is, not "empty input" (a directory's read error was taken for the
// end of the archive) or the store library's mkdir error; and import
// creates nothing.
func TestArchivePathsOfTheWrongKind(t *testing.T) {
	t.Parallel()
	car := exportedLedger(t)
	dirCar := t.TempDir()
	dst := filepath.Join(t.TempDir(), "new")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "--data", dst, "--car", dirCar}, "--car " + dirCar + ": is a directory"},
		{[]string{"verify", "--car", dirCar}, "--car " + dirCar + ": is a directory"},
		{[]string{"import", "--data", car, "--car", car}, "--data " + car + " is not a directory"},
	} {
		code, out, errs := ledgerRun(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || strings.Contains(errs, "empty input") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 with %q", tc.args, code, out, errs, tc.want)
		}
	}
	if _, err := os.Stat(dst); err == nil {
		t.Errorf("import of a directory created %s", dst)
	}
}

// TestImportOfNothingLeavesNoStore: an archive whose header is valid and
// that holds no section fails (its roots name blocks it does not hold).
// The store the import made for it held nothing and would pass for a
// ledger: it is removed, whether the import made the directory or only
// its files; a store that was there already stays as it was.
func TestImportOfNothingLeavesNoStore(t *testing.T) {
	t.Parallel()
	car := exportedLedger(t)
	raw := readFile(t, car)
	n, k := binary.Uvarint(raw)
	headerOnly := writeFile(t, string(raw[:k+int(n)]))
	importFails := func(t *testing.T, dst string) string {
		t.Helper()
		code, out, errs := ledgerRun(t, "import", "--data", dst, "--car", headerOnly)
		if code != exitCheckFail {
			t.Fatalf("import of a header alone: exit %d, %s %s; want 1", code, out, errs)
		}
		return errs
	}
	t.Run("new directory", func(t *testing.T) {
		t.Parallel()
		parent := filepath.Join(t.TempDir(), "a")
		errs := importFails(t, filepath.Join(parent, "b", "store"))
		if _, err := os.Stat(parent); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(errs, "nothing was stored, and the store it created") {
			t.Fatalf("after the failed import, %s: %v; stderr %q", parent, err, errs)
		}
	})
	t.Run("empty directory", func(t *testing.T) {
		t.Parallel()
		dst := t.TempDir()
		importFails(t, dst)
		if ents, err := os.ReadDir(dst); err != nil || len(ents) != 0 {
			t.Fatalf("after the failed import, %s holds %d files (%v), want none", dst, len(ents), err)
		}
	})
	t.Run("existing store", func(t *testing.T) {
		t.Parallel()
		dst, _ := builtLedger(t)
		errs := importFails(t, dst)
		if strings.Contains(errs, "removed") {
			t.Fatalf("import into an existing store: %q", errs)
		}
		if code, out, errs := ledgerRun(t, "verify", "--data", dst, "--no-reexec"); code != 0 {
			t.Fatalf("the existing store after the failed import: exit %d, %s %s", code, out, errs)
		}
	})
}

// exportedLedger exports a ledger (builtLedger) with `ledger export` and
// returns the archive's path.
func exportedLedger(t *testing.T) string {
	t.Helper()
	src, _ := builtLedger(t)
	car := filepath.Join(t.TempDir(), "ledger.car")
	if code, out, errs := ledgerRun(t, "export", "--data", src, "--out", car); code != 0 {
		t.Fatalf("export: %d %s %s", code, out, errs)
	}
	return car
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
