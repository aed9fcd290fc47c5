package envs

import (
	"testing"
	"unicode"
)

// TestUnicodeVersion: mult8 and coin read words and digits by Unicode
// categories, which spec/envs fixes at Unicode 15.0. They take them from
// the Go toolchain's unicode tables, so a toolchain with a newer Unicode
// would score answers using the new letters or digits differently with no
// env version changed. Moving on needs new env versions, not a new Go.
func TestUnicodeVersion(t *testing.T) {
	if unicode.Version != "15.0.0" {
		t.Fatalf("built with Unicode %s; the envs' specs say 15.0 (spec/envs/mult8.md, coin.md)", unicode.Version)
	}
}
