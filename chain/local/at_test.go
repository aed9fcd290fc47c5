package local

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/keys"
)

// exerciseAt checks chain.Chain.At against a fresh devnet chain at block
// 0: the state as of an epoch boundary stays what it was when the next
// block came, while the head moves on; other blocks are refused. register
// changes a hotkey's stake (an operator's act).
func exerciseAt(t *testing.T, c chain.Chain, advance func(int), register func(keys.PublicKey, uint64), d devnet) {
	cx := ctx(t)
	commit := func(text string) {
		t.Helper()
		must(t, "commit "+text, c.SetCommitment(cx, d.charlie, []chain.Data{chain.Raw([]byte(text))}))
	}
	// Writes made while block 10 is the head are part of block 10.
	advanceTo(t, c, advance, 10)
	commit("at 10")
	register(d.bob.Public(), 2000)
	advance(1)
	commit("at 11")
	register(d.bob.Public(), 7000)

	want := func(r chain.Reader, block, bobStake uint64, text string) {
		t.Helper()
		m, err := r.Metagraph(cx)
		must(t, "metagraph", err)
		if m.Block != block || m.Neurons[1].Stake != bobStake {
			t.Errorf("block %d: metagraph of block %d, Bob's stake %d; want %d", block, m.Block, m.Neurons[1].Stake, bobStake)
		}
		got, err := r.Commitment(cx, d.charlie.Public())
		if text == "" {
			wantErr(t, "no commitment yet", err, chain.ErrNotFound)
			return
		}
		must(t, "commitment", err)
		if string(got.Fields[0].Bytes) != text {
			t.Errorf("block %d: commitment %q, want %q", block, got.Fields[0].Bytes, text)
		}
		cs, err := r.Commitments(cx)
		must(t, "commitments", err)
		if len(cs) != 1 || string(cs[0].Fields[0].Bytes) != text {
			t.Errorf("block %d: commitments %+v", block, cs)
		}
	}
	at := func(n uint64) chain.Reader {
		t.Helper()
		r, err := c.At(cx, n)
		must(t, "at", err)
		return r
	}
	want(c, 11, 7000, "at 11")
	want(at(11), 11, 7000, "at 11")
	want(at(10), 10, 2000, "at 10")
	want(at(0), 0, 1000, "")

	refused := func(n uint64, target error) {
		t.Helper()
		r, err := c.At(cx, n)
		if err == nil {
			_, err = r.Metagraph(cx)
		}
		wantErr(t, "state at a block the chain does not keep", err, target)
	}
	refused(5, chain.ErrStateUnavailable)
	refused(12, chain.ErrNotFound)

	// The last keptBoundaries boundaries before the head are kept.
	head := uint64(10 * (keptBoundaries + 2))
	advanceTo(t, c, advance, head)
	refused(10, chain.ErrStateUnavailable)
	want(at(head-10*keptBoundaries), head-10*keptBoundaries, 7000, "at 11")
}

func TestAtInProcess(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	dir := t.TempDir()
	c := newManual(t, d.genesis, dir, nil)
	advance := func(n int) { must(t, "advance", c.Advance(n)) }
	register := func(k keys.PublicKey, stake uint64) {
		_, err := c.Register(k, stake, true)
		must(t, "register", err)
	}
	exerciseAt(t, c, advance, register, d)

	// The kept states survive a restart.
	cx := ctx(t)
	before, err := c.At(cx, 100)
	must(t, "at", err)
	m1, _ := before.Metagraph(cx)
	must(t, "close", c.Close())
	c2 := newManual(t, d.genesis, dir, nil)
	after, err := c2.At(cx, 100)
	must(t, "at after restart", err)
	m2, _ := after.Metagraph(cx)
	if m1.Block != m2.Block || len(m2.Neurons) != len(m1.Neurons) || m2.Neurons[1].Stake != m1.Neurons[1].Stake {
		t.Fatalf("after restart: %+v, was %+v", m2, m1)
	}
}

func TestAtOverHTTP(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	c := newManual(t, d.genesis, "", nil)
	cl, err := Dial(ctx(t), serve(t, c))
	must(t, "dial", err)
	defer cl.Close()
	advance := func(n int) {
		_, err := cl.Advance(ctx(t), testToken, n)
		must(t, "advance", err)
	}
	register := func(k keys.PublicKey, stake uint64) {
		_, err := cl.Register(ctx(t), testToken, RegisterRequest{Hotkey: k, Stake: stake, Validator: true})
		must(t, "register", err)
	}
	exerciseAt(t, cl, advance, register, d)

	for _, q := range []string{"?at=x", "?at=1&at=2", "?at=-1"} {
		resp, err := http.Get(cl.base + "/v1/metagraph" + q)
		must(t, "get", err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET /v1/metagraph%s: status %d, want 400", q, resp.StatusCode)
		}
	}
}

// TestFormat1State: a snapshot of format 1 (before kept states) opens,
// keeps states from then on, and is saved as format 3; formats past 3
// are refused.
func TestFormat1State(t *testing.T) {
	t.Parallel()
	d := newDevnet(t)
	dir := t.TempDir()
	c := newManual(t, d.genesis, dir, nil)
	must(t, "advance", c.Advance(15))
	must(t, "close", c.Close())
	path := filepath.Join(dir, stateFile)
	data, err := os.ReadFile(path)
	must(t, "read", err)
	data = regexp.MustCompile(`(?s),\s*"kept": \[.*\]\s*}\s*$`).ReplaceAll(data, []byte("\n}\n"))
	data = regexp.MustCompile(`"format": 3`).ReplaceAll(data, []byte(`"format": 1`))
	must(t, "write", os.WriteFile(path, data, 0o600))

	c = newManual(t, d.genesis, dir, nil)
	cx := ctx(t)
	if _, err := c.At(cx, 10); err == nil {
		t.Fatal("a format 1 state kept block 10's state")
	}
	must(t, "advance", c.Advance(6))
	if _, err := c.At(cx, 20); err != nil {
		t.Fatalf("block 20 after the upgrade: %v", err)
	}
	must(t, "close", c.Close())
	data, _ = os.ReadFile(path)
	if !regexp.MustCompile(`"format": 3`).Match(data) {
		t.Fatal("the state was not saved as format 3")
	}

	for _, f := range []string{"4", "0"} {
		bad := regexp.MustCompile(`"format": 3`).ReplaceAll(data, []byte(`"format": `+f))
		must(t, "write", os.WriteFile(path, bad, 0o600))
		if _, err := New(Options{Dir: dir, Manual: true}); err == nil {
			t.Fatalf("a format %s state opened", f)
		}
	}
}
