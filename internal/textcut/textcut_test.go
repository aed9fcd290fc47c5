package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrefix(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abc", 2, "ab"},
		{"abc", 0, ""},
		{"aé", 2, "a"}, // é is 2 bytes: not split
		{"aé", 3, "aé"},
		{"€x", 2, ""}, // € is 3 bytes
		{"€x", 3, "€"},
	} {
		if got := Prefix(c.s, c.n); got != c.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func FuzzPrefix(f *testing.F) {
	f.Add("héllo wörld", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > len(s)+4 {
			return
		}
		p := Prefix(s, n)
		if len(p) > n || !strings.HasPrefix(s, p) {
			t.Fatalf("Prefix(%q, %d) = %q", s, n, p)
		}
		if utf8.ValidString(s) && !utf8.ValidString(p) {
			t.Fatalf("Prefix(%q, %d) = %q splits a rune", s, n, p)
		}
		// The longest such prefix: one more rune would not fit.
		if rest := s[len(p):]; rest != "" && utf8.ValidString(s) {
			_, size := utf8.DecodeRuneInString(rest)
			if len(p)+size <= n {
				t.Fatalf("Prefix(%q, %d) = %q stops short", s, n, p)
			}
		}
	})
}
