package chain

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// ErrBadSpec is wrapped by every chain spec parse error.
var ErrBadSpec = errors.New("bad chain spec")

// Spec is a parsed chain spec string (spec/chain.md, "Chain specs"):
//
//	local                                  in-process local chain
//	local+http://127.0.0.1:9944            a "ledger chain serve" instance
//	subtensor+wss://host:443/netuid=N      a Bittensor node (ws or wss)
type Spec struct {
	// Backend is "local" or "subtensor".
	Backend string
	// URL is the server's address without the backend prefix and without
	// the /netuid=N path; empty for in-process local.
	URL string
	// Netuid is the subnet (subtensor only; 0 when absent).
	Netuid uint16
}

// String returns the spec in its text form.
func (s Spec) String() string {
	out := s.Backend
	if s.URL != "" {
		out += "+" + s.URL
	}
	if s.Backend == "subtensor" {
		out += "/netuid=" + strconv.Itoa(int(s.Netuid))
	}
	return out
}

// ParseSpec reads a chain spec string.
func ParseSpec(s string) (Spec, error) {
	if s == "local" {
		return Spec{Backend: "local"}, nil
	}
	backend, rest, ok := strings.Cut(s, "+")
	if !ok {
		return Spec{}, fmt.Errorf("%w %q: want local, local+http://HOST:PORT or subtensor+wss://HOST:PORT/netuid=N", ErrBadSpec, s)
	}
	u, err := url.Parse(rest)
	if err != nil {
		return Spec{}, fmt.Errorf("%w %q: %v", ErrBadSpec, s, err)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return Spec{}, fmt.Errorf("%w %q: want SCHEME://HOST:PORT with nothing else", ErrBadSpec, s)
	}
	switch backend {
	case "local":
		if u.Scheme != "http" && u.Scheme != "https" {
			return Spec{}, fmt.Errorf("%w %q: a local chain server speaks http or https, not %q", ErrBadSpec, s, u.Scheme)
		}
		if u.Path != "" && u.Path != "/" {
			return Spec{}, fmt.Errorf("%w %q: unexpected path %q", ErrBadSpec, s, u.Path)
		}
		return Spec{Backend: "local", URL: u.Scheme + "://" + u.Host}, nil
	case "subtensor":
		if u.Scheme != "ws" && u.Scheme != "wss" {
			return Spec{}, fmt.Errorf("%w %q: a subtensor node speaks ws or wss, not %q", ErrBadSpec, s, u.Scheme)
		}
		n, ok := strings.CutPrefix(u.Path, "/netuid=")
		if !ok {
			return Spec{}, fmt.Errorf("%w %q: the path must be /netuid=N", ErrBadSpec, s)
		}
		netuid, err := strconv.ParseUint(n, 10, 16)
		if err != nil || strconv.FormatUint(netuid, 10) != n {
			return Spec{}, fmt.Errorf("%w %q: netuid %q is not a number in 0..65535", ErrBadSpec, s, n)
		}
		return Spec{Backend: "subtensor", URL: u.Scheme + "://" + u.Host, Netuid: uint16(netuid)}, nil
	}
	return Spec{}, fmt.Errorf("%w %q: unknown backend %q (local or subtensor)", ErrBadSpec, s, backend)
}

// OpenOptions configure Open; backends read the ones that concern them.
type OpenOptions struct {
	// Dir is the state directory of an in-process local chain; empty keeps
	// its state in memory only.
	Dir string
	// Genesis is the genesis file of an in-process local chain that starts
	// in an empty Dir.
	Genesis string
}

// Option sets an OpenOptions field.
type Option func(*OpenOptions)

// WithDir sets OpenOptions.Dir.
func WithDir(dir string) Option { return func(o *OpenOptions) { o.Dir = dir } }

// WithGenesis sets OpenOptions.Genesis.
func WithGenesis(path string) Option { return func(o *OpenOptions) { o.Genesis = path } }

// Opener opens a chain of one backend.
type Opener func(ctx context.Context, spec Spec, opts OpenOptions) (Chain, error)

var (
	backendsMu sync.RWMutex
	backends   = map[string]Opener{}
)

// Register makes a backend available to Open. Backend packages call it from
// init; registering a name twice panics.
func Register(backend string, open Opener) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if _, dup := backends[backend]; dup {
		panic("chain: backend " + backend + " registered twice")
	}
	backends[backend] = open
}

// Backends lists the registered backends.
func Backends() []string {
	backendsMu.RLock()
	defer backendsMu.RUnlock()
	var out []string
	for name := range backends {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Open parses spec and opens the chain it names. The backend's package must
// be imported (chain/local, chain/subtensor), usually for its side effect.
func Open(ctx context.Context, spec string, opts ...Option) (Chain, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	var o OpenOptions
	for _, opt := range opts {
		opt(&o)
	}
	backendsMu.RLock()
	open := backends[s.Backend]
	backendsMu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("chain %q: backend %q is not linked in (import github.com/affine-ledger/ledger/chain/%s)", spec, s.Backend, s.Backend)
	}
	c, err := open(ctx, s, o)
	if err != nil {
		return nil, fmt.Errorf("chain %q: %w", spec, err)
	}
	return c, nil
}
