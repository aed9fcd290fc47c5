package chain

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	t.Parallel()
	good := []struct {
		in   string
		want Spec
	}{
		{"local", Spec{Backend: "local"}},
		{"local+http://127.0.0.1:9944", Spec{Backend: "local", URL: "http://127.0.0.1:9944"}},
		{"local+http://127.0.0.1:9944/", Spec{Backend: "local", URL: "http://127.0.0.1:9944"}},
		{"subtensor+wss://entrypoint-finney.opentensor.ai:443/netuid=120", Spec{Backend: "subtensor", URL: "wss://entrypoint-finney.opentensor.ai:443", Netuid: 120}},
		{"subtensor+ws://127.0.0.1:9944/netuid=0", Spec{Backend: "subtensor", URL: "ws://127.0.0.1:9944"}},
	}
	for _, c := range good {
		got, err := ParseSpec(c.in)
		if err != nil || got != c.want {
			t.Errorf("%q: %+v %v", c.in, got, err)
		}
		if again, err := ParseSpec(got.String()); err != nil || again != got {
			t.Errorf("%q: String %q does not parse back", c.in, got.String())
		}
	}
	bad := []string{"", "locale", "local+ws://h:1", "local+http://", "subtensor+wss://h:1", "subtensor+wss://h:1/netuid=x",
		"subtensor+wss://h:1/netuid=70000", "subtensor+wss://h:1/netuid=01", "subtensor+http://h:1/netuid=1",
		"remote+http://h:1", "local+http://u:p@h:1", "local+http://h:1/x", "local+http://h:1?a=b"}
	for _, s := range bad {
		if _, err := ParseSpec(s); !errors.Is(err, ErrBadSpec) {
			t.Errorf("%q: err %v", s, err)
		}
	}
}

func TestOpenUnlinkedBackend(t *testing.T) {
	t.Parallel()
	// This package's tests link no backend.
	_, err := Open(context.Background(), "subtensor+ws://127.0.0.1:1/netuid=1")
	if err == nil || !strings.Contains(err.Error(), "chain/subtensor") {
		t.Fatalf("err %v", err)
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add("local+http://127.0.0.1:9944")
	f.Add("subtensor+wss://h:443/netuid=1")
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSpec(s)
		if err != nil {
			return
		}
		again, err := ParseSpec(spec.String())
		if err != nil || again != spec {
			t.Fatalf("%q parsed as %+v, whose text %q parses as %+v (%v)", s, spec, spec.String(), again, err)
		}
	})
}
