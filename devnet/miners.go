package devnet

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/miner"
)

// Role is what a devnet miner is for.
type Role string

// Roles of the roster, in commitment order.
const (
	// RoleFirst is a noisy miner that commits first: the first champion.
	RoleFirst Role = "first"
	// RoleStrong is the perfect solver that should dethrone it.
	RoleStrong Role = "strong"
	// RoleFaulty answers with bodies that are not chat completions.
	RoleFaulty Role = "faulty"
	// RoleCopy commits the strong miner's model hash later: validators
	// must refuse to duel it.
	RoleCopy Role = "copy"
	// RoleNoisy are further noisy miners of various strengths.
	RoleNoisy Role = "noisy"
)

// Miner is one reference miner of the devnet.
type Miner struct {
	Index    int            `json:"index"`
	Role     Role           `json:"role"`
	Strategy string         `json:"strategy"`
	Hotkey   keys.PublicKey `json:"hotkey"`
	Endpoint string         `json:"endpoint"`
	Model    string         `json:"model"`
	// ModelHash is hex; the copy shares the strong miner's.
	ModelHash string `json:"model_hash"`

	key *keys.Hotkey
	srv *http.Server
}

// roster returns the strategies of m miners, in commitment order.
func roster(m int) []struct {
	role     Role
	strategy string
} {
	all := []struct {
		role     Role
		strategy string
	}{
		{RoleFirst, "noisy:0.5"},
		{RoleStrong, "perfect"},
		{RoleFaulty, "garbage"},
		{RoleCopy, "perfect"},
	}
	for i := 0; len(all) < m; i++ {
		all = append(all, struct {
			role     Role
			strategy string
		}{RoleNoisy, fmt.Sprintf("noisy:0.%d", 9-i%5)})
	}
	return all[:m]
}

// devKey is a development hotkey derived from a well-known path: the
// devnet's keys are not secrets.
func devKey(kind string, i int) (*keys.Hotkey, error) {
	return keys.FromURI(fmt.Sprintf("//devnet//%s//%d", kind, i))
}

// startMiners starts m miner servers on loopback.
func startMiners(m int) ([]*Miner, error) {
	var out []*Miner
	strong := ""
	for i, r := range roster(m) {
		s, err := miner.ParseStrategy(r.strategy)
		if err != nil {
			return out, err
		}
		k, err := devKey("miner", i)
		if err != nil {
			return out, err
		}
		cfg := miner.Config{Strategy: s, Seed: uint64(i + 1), Solvers: miner.EnvSolvers()}
		cfg.ModelHash = miner.DefaultModelHash(s, cfg.Seed)
		switch r.role {
		case RoleStrong:
			strong = cfg.ModelHash
		case RoleCopy:
			cfg.ModelHash = strong
		}
		cfg.Model = fmt.Sprintf("devnet/miner-%d-%s", i, r.role)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return out, fmt.Errorf("miner %d: %w", i, err)
		}
		srv := &http.Server{Handler: miner.NewServer(cfg), ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		out = append(out, &Miner{
			Index: i, Role: r.role, Strategy: r.strategy, Hotkey: k.Public(), key: k, srv: srv,
			Endpoint: "http://" + ln.Addr().String() + "/v1", Model: cfg.Model, ModelHash: cfg.ModelHash,
		})
	}
	return out, nil
}

// commit has each miner commit its model on c, in roster order, one chain
// block apart so that the queue order is the roster's.
func commit(ctx context.Context, c chain.Chain, ms []*Miner) error {
	last := uint64(0)
	for _, m := range ms {
		h, err := hex.DecodeString(m.ModelHash)
		if err != nil {
			return fmt.Errorf("miner %d: model hash: %w", m.Index, err)
		}
		f, err := chain.MinerCommitment{Model: m.Model, Revision: "main", Endpoint: m.Endpoint, ModelHash: h}.Fields()
		if err != nil {
			return fmt.Errorf("miner %d: %w", m.Index, err)
		}
		for {
			b, err := c.Head(ctx)
			if err != nil {
				return err
			}
			if m.Index == 0 || b.Number > last {
				last = b.Number
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
		if err := c.SetCommitment(ctx, m.key, f); err != nil {
			return fmt.Errorf("miner %d commits: %w", m.Index, err)
		}
	}
	return nil
}

func stopMiners(ms []*Miner) error {
	var errs []error
	for _, m := range ms {
		if m.srv != nil {
			errs = append(errs, m.srv.Close())
		}
	}
	return errors.Join(errs...)
}
