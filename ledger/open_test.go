package ledger_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/ledgertest"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// threeBlocks makes a closed store holding blocks 0..2 of Alice.
func threeBlocks(t *testing.T) (string, keys.PublicKey, []ledger.Receipt) {
	dir := t.TempDir()
	s := open(t, dir)
	k := alice(t)
	a := appender(t, s, k)
	var rs []ledger.Receipt
	for i := uint64(0); i < 3; i++ {
		rs = append(rs, appendRange(t, a, k.Public(), 2*i, 2))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, k.Public(), rs
}

func TestOpenDetectsHeadMismatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		tamper func(dir string, v keys.PublicKey, rs []ledger.Receipt) error
		want   string
	}{
		{"head behind the blocks", func(dir string, v keys.PublicKey, rs []ledger.Receipt) error {
			return ledgertest.SetHead(dir, v, rs[1].Block.CID)
		}, "a block at height 2 is stored"},
		{"head names an unknown block", func(dir string, v keys.PublicKey, rs []ledger.Receipt) error {
			return ledgertest.SetHead(dir, v, codec.Sum([]byte("nothing")))
		}, "which is not stored"},
		{"height index disagrees", func(dir string, v keys.PublicKey, rs []ledger.Receipt) error {
			return ledgertest.SetBlockAt(dir, v, 2, rs[0].Block.CID)
		}, "height index holds"},
		{"head pointer lost", func(dir string, v keys.PublicKey, rs []ledger.Receipt) error {
			return ledgertest.Delete(dir, ledgertest.HeadKey(v))
		}, "blocks but no head pointer"},
		{"head block altered", func(dir string, v keys.PublicKey, rs []ledger.Receipt) error {
			return ledgertest.OverwriteObject(dir, rs[2].Block.CID, []byte{0xa0})
		}, "bytes hash to"},
		{"merkle node altered", func(dir string, v keys.PublicKey, rs []ledger.Receipt) error {
			return ledgertest.SetNode(dir, v, 2, 0, record.Hash{1}) // root of leaves 0..3
		}, "stored Merkle nodes give root"},
		{"leaf missing", func(dir string, v keys.PublicKey, rs []ledger.Receipt) error {
			return ledgertest.Delete(dir, ledgertest.LeafKey(v, 5))
		}, "leaf 5 is not stored"},
		{"extra leaf", func(dir string, v keys.PublicKey, rs []ledger.Receipt) error {
			return ledgertest.Set(dir, ledgertest.LeafKey(v, 6), []byte("x"))
		}, "leaf 6 is stored"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, v, rs := threeBlocks(t)
			if err := c.tamper(dir, v, rs); err != nil {
				t.Fatal(err)
			}
			_, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network))
			if !errors.Is(err, ledger.ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrCorrupt mentioning %q", err, c.want)
			}
		})
	}
	t.Run("untouched store opens", func(t *testing.T) {
		dir, _, _ := threeBlocks(t)
		s := open(t, dir)
		s.Close()
	})
	t.Run("other layout version", func(t *testing.T) {
		dir, _, _ := threeBlocks(t)
		if err := ledgertest.Set(dir, []byte("\x00format"), []byte("affine-ledger/store/v0")); err != nil {
			t.Fatal(err)
		}
		if _, err := ledger.Open(dir, ledger.WithNetwork(recordtest.Network)); err == nil || !strings.Contains(err.Error(), "store/v0") {
			t.Fatalf("got %v", err)
		}
	})
}

func TestTamperedReadsAreCaught(t *testing.T) {
	t.Parallel()
	dir, v, rs := threeBlocks(t)
	victim := rs[0].Transcripts[1]
	tr := recordtest.Transcript(v, 1, 0)
	tr.Reward = 0
	forged, _, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := ledgertest.OverwriteObject(dir, victim, forged); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir) // transcripts are not checked on open (O(log) open)
	defer s.Close()
	raw, err := s.Object(victim)
	if err != nil || string(raw) != string(forged) {
		t.Fatal("Object must return the stored bytes as they are, for auditors")
	}
	if _, err := s.Transcript(victim); !errors.Is(err, ledger.ErrCorrupt) {
		t.Fatalf("decoded read of a forged transcript: %v", err)
	}
}
