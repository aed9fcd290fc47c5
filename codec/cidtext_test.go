package codec_test

import (
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/codec"
)

// TestParseCID: the canonical text of a ledger address reads; every other
// text is refused, once, saying why: not a CID at all (go-cid's reason
// without its repeated "invalid cid: "), not a ledger address, or another
// text of the CID (a last digit whose unused bits are set, upper case,
// another multibase), naming the canonical one.
func TestParseCID(t *testing.T) {
	t.Parallel()
	c := codec.Sum([]byte("a record"))
	canon := c.String()
	last := canon[len(canon)-1]
	// Base32's last digit of a 36-byte CID carries 2 unused bits, zero in
	// the canonical text: the next digit up differs from it in those only.
	padded := canon[:len(canon)-1] + string(last+1)
	if got, err := codec.ParseCID(canon); err != nil || !got.Equals(c) {
		t.Fatalf("ParseCID(%s) = %v, %v", canon, got, err)
	}
	base58, _ := c.StringOfBase('z')
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "empty"},
		{"bogus", "bogus", `"bogus" is not a CID: expected 1 as the cid version number, got: 113`},
		{"unused bits set", padded, "not the canonical text of its CID, " + canon},
		{"upper case", strings.ToUpper(canon), "not the canonical text of its CID, " + canon},
		{"base58", base58, "not the canonical text of its CID, " + canon},
		{"CIDv0", "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG", "not a ledger address"},
	} {
		got, err := codec.ParseCID(tc.in)
		if err == nil {
			t.Errorf("%s: %q reads as %s", tc.name, tc.in, got)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), "invalid cid") > 0 {
			t.Errorf("%s: %q; want it to say %q (and no \"invalid cid\")", tc.name, err, tc.want)
		}
	}
}
