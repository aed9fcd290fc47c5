package codec

import (
	"strings"
	"testing"

	"github.com/multiformats/go-multibase"
)

// TestLinkJSONTakesOneText: a CID's text in another base or case names
// the same CID, and is refused, naming the text it should be.
func TestLinkJSONTakesOneText(t *testing.T) {
	t.Parallel()
	_, c, err := Encode(map[string]int{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	b58, err := c.StringOfBase(multibase.Base58BTC)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{strings.ToUpper(c.String()), b58} {
		var l Link
		err := l.UnmarshalJSON([]byte(`"` + text + `"`))
		if err == nil || !strings.Contains(err.Error(), c.String()) {
			t.Errorf("%s: %v, want a refusal naming %s", text, err, c)
		}
	}
	var l Link
	if err := l.UnmarshalJSON([]byte(`"` + c.String() + `"`)); err != nil || !l.Cid.Equals(c) {
		t.Fatalf("the CID's own text: %v", err)
	}
}
