package subtensor

import (
	"encoding/hex"
	"testing"
)

// TestParseMetadataMalformed: metadata on which the SCALE library
// dereferences nil is an error, not a crash. Not a fuzz target: the same
// library allocates whatever length a vector announces (12 bytes can ask
// for 200 GB), which no wrapper can stop; metadata is read only from the
// configured node (spec/limits.md).
func TestParseMetadataMalformed(t *testing.T) {
	if _, err := ParseMetadata("0x" + hex.EncodeToString([]byte("meta\x0e"))); err == nil {
		t.Fatal("malformed metadata accepted")
	}
	// The synthetic runtimes still parse.
	h := syntheticMetadata(t, [][3]any{{"CheckSpecVersion", 1, 2}, {"CheckNonce", 2, 1}})
	rt, err := ParseMetadata(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{callSetCommitment, callSetWeights, callCommitWeights, callRevealWeights} {
		if _, ok := rt.Calls[name]; !ok {
			t.Fatalf("runtime without %s", name)
		}
	}
}
