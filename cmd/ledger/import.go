package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ipfs/go-cid"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/internal/rmtree"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/verify"
)

func newImportCmd() *cobra.Command {
	var dataDir, carFile string
	var asJSON, noReexec bool
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Load a CARv1 archive into a store, checking everything",
		Long: `Loads an archive written by ledger export into a store (created if missing). --data is a
store directory or a node's data directory, whose store/ is used (and created if missing), as
every other command reads it. Nothing in the file is trusted: every section is checked against
its CID, the archive's order is enforced, every block goes through the verifier (re-execution
included unless --no-reexec) and then through the store's own checks, in height order per
validator, and the roots must name the chains' last blocks. It stops at the first problem;
blocks loaded before it are valid and stay. A store it created and left empty is removed. A
directory that is neither a store nor a node's data directory must be new or empty: import does
not put a store among other files.

--json prints {"chains", "blocks", "transcripts", "decisions", "fork_proofs", "bytes"}, where
bytes is the records' bytes loaded, as ledger verify counts them: less than the archive's length
(ledger export's "bytes") by its header, section lengths and CIDs.` + exitCodesHelp,
		Example: `  ledger import --data ~/.ledger/store --car ledger.car
  ssh validator ledger export --data /srv/ledger --out - | ledger import --data ~/.ledger/store --car -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dataDir == "" || carFile == "" {
				return usageError{"--data and --car are required"}
			}
			if st, err := os.Stat(dataDir); err == nil && !st.IsDir() {
				return usageError{fmt.Sprintf("--data %s is not a directory", dataDir)}
			}
			// Before the input is read: a wrong --data fails at once.
			storeAt, err := newStoreDir(dataDir)
			if err != nil {
				return err
			}
			in, size, err := openInput(cmd, carFile)
			if err != nil {
				return err
			}
			defer in.Close()
			name := displayName(carFile, "standard input")
			// The header first: a file that is no archive (a wrong path,
			// a typo) must not leave a new empty store behind.
			src, err := checkedHeader(in)
			if err != nil {
				return usageError{fmt.Sprintf("%s: %v", name, err)}
			}
			made, whole, err := madeByOpen(storeAt)
			if err != nil {
				return err
			}
			s, err := ledger.Open(storeAt)
			if err != nil {
				return err
			}
			defer s.Close()
			set, closeSet, err := newChallengeSet(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeSet()
			opts := verify.Options{Reexecute: !noReexec, Challenges: set}
			if n := s.Network(); !n.IsZero() {
				// A store takes blocks of its own network only: the
				// verifier names another's as such.
				opts.Genesis, opts.Netuid = &n.Genesis, &n.Netuid
			}
			vf := verify.New(opts)
			bar := newProgress(cmd.ErrOrStderr(), size, "importing")
			r := progressbar.NewReader(src, bar)
			st, err := archive.Import(s, &r, archive.ImportOptions{Check: importCheck(vf)})
			bar.Finish()
			kept := ""
			switch {
			case err != nil && st.Blocks > 0:
				// What came before the failure passed every check, and
				// the store keeps it.
				kept = fmt.Sprintf(" (the store keeps the %s before it: each passed every check)", plural(st.Blocks, "block"))
			case err != nil && made != "" && storeEmpty(s):
				// A store this import made and left empty would pass
				// for a ledger, as an audit of nothing would.
				if rerr := removeMade(s, made, whole); rerr != nil {
					kept = fmt.Sprintf(" (nothing was stored; removing the store it created at %s failed: %v)", storeAt, rerr)
				} else {
					kept = fmt.Sprintf(" (nothing was stored, and the store it created at %s is removed)", storeAt)
				}
			}
			switch {
			case errors.Is(err, archive.ErrMalformed):
				return usageError{fmt.Sprintf("%s: %v%s", name, err, kept)}
			case err != nil:
				return checkFailed{fmt.Sprintf("%s: %v%s", name, err, kept)}
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), st)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %s: %s\n", name, archiveCounts(st))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dataDir, "data", "", "ledger store directory, or a node's data directory (created if missing)")
	f.StringVar(&carFile, "car", "", "archive written by ledger export (- for standard input)")
	f.BoolVar(&asJSON, "json", false, "print the counts as JSON (bytes: the records' bytes loaded)")
	f.BoolVar(&noReexec, "no-reexec", false, "skip re-executing transcripts before storing them")
	return cmd
}

// checkedHeader reads the CARv1 header from in and checks it as
// archive.Import will, and returns a reader of the whole input again,
// header included. It reads no more than the header: its length prefix
// byte by byte, then the length it names (at most archive.MaxHeader).
func checkedHeader(in io.Reader) (io.Reader, error) {
	var head []byte
	one := make([]byte, 1)
	for len(head) < binary.MaxVarintLen64 {
		if _, err := io.ReadFull(in, one); err != nil {
			if err != io.EOF {
				return nil, err // not the end of the input: it could not be read
			}
			break
		}
		head = append(head, one[0])
		if one[0] < 0x80 {
			break
		}
	}
	if n, k := binary.Uvarint(head); k > 0 && n <= archive.MaxHeader {
		body := make([]byte, n)
		m, err := io.ReadFull(in, body)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return nil, err
		}
		head = append(head, body[:m]...)
	}
	// A short or oversized header fails here as it would in Import.
	if _, err := archive.NewReader(bytes.NewReader(head)); err != nil {
		return nil, err
	}
	return io.MultiReader(bytes.NewReader(head), in), nil
}

// importCheck runs the verifier on every block before the store sees it.
func importCheck(vf *verify.Verifier) func(bool, []byte, cid.Cid, []archive.Section) error {
	return func(first bool, raw []byte, c cid.Cid, objs []archive.Section) error {
		if first {
			blk, err := record.DecodeBlock(raw)
			if err != nil {
				return err
			}
			if err := vf.StartChain(blk.Validator, verify.Genesis()); err != nil {
				return err
			}
		}
		byCID := make(map[cid.Cid][]byte, len(objs))
		for _, o := range objs {
			byCID[o.CID] = o.Data
		}
		vf.Block(raw, c, func(c cid.Cid) ([]byte, error) {
			if d, ok := byCID[c]; ok {
				return d, nil
			}
			return nil, fmt.Errorf("not in the archive after its block")
		})
		if vf.Failed() {
			fs := vf.Report().Failures
			return fmt.Errorf("verify: %s", fs[len(fs)-1])
		}
		return nil
	}
}

// madeByOpen is what opening a store at dir creates: nothing (made "")
// if dir holds anything already; the files in dir (made dir, whole false)
// if it is an empty directory; else the directory made (whole true), dir
// or its topmost missing ancestor.
func madeByOpen(dir string) (made string, whole bool, err error) {
	ents, err := os.ReadDir(dir)
	switch {
	case err == nil && len(ents) > 0:
		return "", false, nil
	case err == nil:
		return dir, false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", false, err
	}
	made = dir
	for p := filepath.Dir(made); p != made; made, p = p, filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		}
	}
	return made, true, nil
}

// storeEmpty reports whether s holds no chain and no fork proof.
func storeEmpty(s *ledger.Store) bool {
	for range s.Heads() {
		return false
	}
	return !holdsForkProofs(s)
}

// removeMade closes s and removes what opening it created (madeByOpen):
// the directory made, whole, or the files made in an empty directory.
func removeMade(s *ledger.Store, made string, whole bool) error {
	if err := s.Close(); err != nil {
		return err
	}
	if whole {
		return rmtree.RemoveAll(made)
	}
	ents, err := os.ReadDir(made)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := rmtree.RemoveAll(filepath.Join(made, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
