// Package registry lists every environment version this release implements, so that any
// challenge ID ever issued can be mapped back to the generator that made it.
package registry

import (
	"fmt"
	"sort"
	"strings"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/abd"
	"github.com/affine-ledger/ledger/envs/coin"
	"github.com/affine-ledger/ledger/envs/mult8"
	"github.com/affine-ledger/ledger/envs/sat"
	"github.com/affine-ledger/ledger/envs/tictactoe"
)

// Old versions stay in this list forever: removing one would make old transcripts
// unverifiable.
var all = []envs.Factory{
	mult8.Factory,
	tictactoe.Factory,
	sat.Factory,
	abd.Factory,
	coin.Factory,
}

type key struct {
	name    string
	version uint16
}

var byKey = func() map[key]envs.Factory {
	m := map[key]envs.Factory{}
	for _, f := range all {
		s := f.Spec()
		m[key{s.Name, s.Version}] = f
	}
	return m
}()

// Get returns the factory of one env version.
func Get(name string, version uint16) (envs.Factory, error) {
	if f, ok := byKey[key{name, version}]; ok {
		return f, nil
	}
	if _, err := Latest(name); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("env %s has no version %d", name, version)
}

// ForID returns the factory that generates id.
func ForID(id challenge.ID) (envs.Factory, error) { return Get(id.Env, id.Version) }

// Latest returns the newest version of name, the one new challenges use.
func Latest(name string) (envs.Factory, error) {
	var best envs.Factory
	for _, f := range all {
		if s := f.Spec(); s.Name == name && (best == nil || s.Version > best.Spec().Version) {
			best = f
		}
	}
	if best == nil {
		return nil, fmt.Errorf("unknown env %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return best, nil
}

// Names returns the env names in sorted order.
func Names() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range all {
		if n := f.Spec().Name; !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Current returns the newest version of every env, sorted by name: the set a duel plays.
func Current() []envs.Factory {
	var out []envs.Factory
	for _, n := range Names() {
		f, _ := Latest(n)
		out = append(out, f)
	}
	return out
}
