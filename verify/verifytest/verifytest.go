// Package verifytest builds real ledgers for the tests and benchmarks of
// verify, archive and the ledger command: validators with real sr25519
// keys append, through the store's Appender, transcripts that were played
// through the registered envs with seeds derived from anchors their chain
// records (and recorded in the transcripts, format 2, unless a ledger of
// format 1 is asked for), so a fresh ledger passes every check of
// spec/verify.md, re-execution included, and any change to it is a real
// tampering.
package verifytest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/archive"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/registry"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
)

// Spec describes a ledger to build.
type Spec struct {
	Validators int
	// Blocks per validator, each with PerBlock transcripts.
	Blocks   int
	PerBlock int
	// Lengths, if set, gives validator v's chain Lengths[v] blocks instead
	// of Blocks (v below its length): chains that end at other heights.
	Lengths []int
	// Envs to draw from in turn; nil for every current env.
	Envs []string
	// Pad pads every model reply to at least this many bytes.
	Pad int
	// Decisions adds one decision record to every other block.
	Decisions bool
	// Start, if set, gives for block b the earlier block (at most b) whose
	// anchor b's challenges are drawn at: a duel that spans blocks, its
	// counters running on. By default every block is a duel of its own,
	// drawn at the block's anchor.
	Start func(b int) int
	// Anchor, if set, gives block b's anchor instead of BlockAnchor(b):
	// chains that stay at one chain block, or record two hashes at one
	// number (a reorganised public chain). Numbers must not decrease.
	Anchor func(b int) record.Anchor
	// Format is the transcript format: 0 for the current one,
	// ledger.TranscriptFormatV1 for a ledger written before seeds were
	// recorded.
	Format uint64
	// Mutate, if set, may change transcript i of block b of validator v
	// after it was played: a lying validator, for tests.
	Mutate func(v, b, i int, t *record.Transcript)
}

// Key returns validator i's hotkey (deterministic).
func Key(i int) *keys.Hotkey {
	var seed [32]byte
	seed[0], seed[1] = 0x5e, byte(i+1)
	k, err := keys.FromSeed(seed)
	if err != nil {
		panic(err)
	}
	return k
}

// Miner returns miner i's hotkey.
func Miner(i int) keys.PublicKey {
	var m keys.PublicKey
	m[0], m[31] = 0x4d, byte(i)
	return m
}

// Build appends spec's chains to s and returns the validators' keys.
func Build(s *ledger.Store, spec Spec) ([]*keys.Hotkey, error) {
	names := spec.Envs
	if names == nil {
		names = registry.Names()
	}
	var out []*keys.Hotkey
	for vi := 0; vi < spec.Validators; vi++ {
		k := Key(vi)
		out = append(out, k)
		w, err := newChainWriter(s, k, spec.Format)
		if err != nil {
			return nil, err
		}
		n := 0
		// Counters count the challenges drawn per env at one anchor,
		// from 0 (spec/challenge-id.md).
		counters := map[record.Anchor]map[string]uint64{}
		blocks := spec.Blocks
		if vi < len(spec.Lengths) {
			blocks = spec.Lengths[vi]
		}
		anchorOf := BlockAnchor
		if spec.Anchor != nil {
			anchorOf = spec.Anchor
		}
		for b := 0; b < blocks; b++ {
			anchor := anchorOf(b)
			start := anchor
			if spec.Start != nil {
				start = anchorOf(spec.Start(b))
			}
			if counters[start] == nil {
				counters[start] = map[string]uint64{}
			}
			ts := make([]record.Transcript, 0, spec.PerBlock)
			for i := 0; i < spec.PerBlock; i++ {
				env := names[n%len(names)]
				t, err := Transcript(k.Public(), start, env, counters[start][env], n, spec.Pad)
				if err != nil {
					return nil, err
				}
				if spec.Format == record.TranscriptFormatV1 {
					t.Format, t.Seed = record.TranscriptFormatV1, nil
				}
				counters[start][env]++
				n++
				if spec.Mutate != nil {
					spec.Mutate(vi, b, i, &t)
				}
				ts = append(ts, t)
			}
			var ds [][]byte
			if spec.Decisions && b%2 == 1 {
				d, err := codec.Marshal(map[string]any{"type": "note", "block": int64(b)})
				if err != nil {
					return nil, err
				}
				ds = append(ds, d)
			}
			if err := w.write(anchor, ts, ds); err != nil {
				return nil, fmt.Errorf("validator %d block %d: %w", vi, b, err)
			}
		}
		if err := w.close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// chainWriter writes one validator's chain, a block per write.
type chainWriter interface {
	write(anchor record.Anchor, ts []record.Transcript, ds [][]byte) error
	close() error
}

// newChainWriter writes k's chain through an appender, or for format-1
// transcripts, which writers no longer write, as a peer's signed blocks.
func newChainWriter(s *ledger.Store, k *keys.Hotkey, format uint64) (chainWriter, error) {
	if format == record.TranscriptFormatV1 {
		return &signedPuts{s: s, k: k, tree: record.NewTree()}, nil
	}
	a, err := s.NewAppender(k)
	if err != nil {
		return nil, err
	}
	return appenderWriter{a}, nil
}

type appenderWriter struct{ a *ledger.Appender }

func (w appenderWriter) write(anchor record.Anchor, ts []record.Transcript, ds [][]byte) error {
	_, err := w.a.Append(context.Background(), anchor, ts, ds)
	return err
}

func (w appenderWriter) close() error { return w.a.Close() }

// signedPuts builds and signs each block itself and puts it, as a peer's
// block reaches a store, checked alike.
type signedPuts struct {
	s    *ledger.Store
	k    *keys.Hotkey
	tree *record.Tree
	head *record.Block
	cid  cid.Cid
}

func (p *signedPuts) write(anchor record.Anchor, ts []record.Transcript, ds [][]byte) error {
	h := record.Header{
		Format: record.BlockFormat, Net: recordtest.Network, Validator: p.k.Public(), Anchor: anchor, TimeMS: time.Now().UnixMilli(),
		Transcripts: []codec.Link{}, Decisions: []codec.Link{},
	}
	if p.head != nil {
		h.Height, h.Prev = p.head.Height+1, codec.LinkTo(p.cid)
		h.TimeMS = max(h.TimeMS, p.head.TimeMS)
	}
	objs := map[cid.Cid][]byte{}
	for _, t := range ts {
		raw, c, err := t.Encode()
		if err != nil {
			return err
		}
		objs[c] = raw
		h.Transcripts = append(h.Transcripts, codec.LinkTo(c))
		p.tree.Append(c, nil)
	}
	for _, d := range ds {
		c := codec.Sum(d)
		objs[c] = d
		h.Decisions = append(h.Decisions, codec.LinkTo(c))
	}
	h.Checkpoint = p.tree.Checkpoint()
	blk, raw, c, err := record.Sign(h, p.k)
	if err != nil {
		return err
	}
	if _, err := p.s.Put(raw, objs); err != nil {
		return err
	}
	p.head, p.cid = blk, c
	return nil
}

func (p *signedPuts) close() error { return nil }

// words are what Prose writes: common English, no digits or markup, so
// that padding compresses like a model's reasoning (about 2:1 under
// snappy, where a run of one letter shrinks a hundredfold and makes reads
// look cheaper than they are) and never changes how a reply scores.
var words = strings.Fields(`the a of to and in is that it for we this be on with as
	so not are by answer first then each number digit product carry step check
	let us now next multiply add result value think because therefore since
	which gives from our must can wait again right left column row write
	keep sum total but if when only both same other more less than`)

// Prose returns n bytes of words drawn by a generator seeded with seed:
// different seeds, different text.
func Prose(n int, seed uint64) string {
	var b strings.Builder
	b.Grow(n + 16)
	x := seed*0x9e3779b97f4a7c15 + 1
	for b.Len() < n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b.WriteString(words[x%uint64(len(words))])
		if x>>60 == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()[:n]
}

// BlockAnchor is the anchor Build appends block b of every chain with.
func BlockAnchor(b int) record.Anchor { return recordtest.Anchor(uint64(b + 1)) }

// Transcript plays counter's challenge of env drawn by v at anchor, with a
// model that always replies with the same text (n varies it), and records
// it as a validator would (format 2, its seed recorded).
func Transcript(v keys.PublicKey, anchor record.Anchor, env string, counter uint64, n, pad int) (record.Transcript, error) {
	reply := fmt.Sprintf("<answer>%d</answer>", n%10)
	if pad > len(reply) {
		reply = Prose(pad-len(reply), uint64(n)<<32|counter) + reply
	}
	m := record.Miner{Hotkey: Miner(n % 3), UID: uint16(n % 3), Model: fmt.Sprintf("org/model-%d", n%3), Revision: "main", ModelHash: []byte{0xab, byte(n % 3)}, Endpoint: "chute"}
	d := record.Duel{Champion: Miner(0), Contender: Miner(1), Start: anchor}.ID()
	t, err := Play(v, record.Seed{Anchor: anchor, Counter: counter}, env, m, d, func([]envs.Message) string { return reply })
	if err != nil {
		return t, err
	}
	copy(t.Invocation[:], fmt.Sprintf("inv-%08d-%06d", n, counter))
	t.StartedMS = 1_700_000_000_000 + int64(n)*1000
	t.FinishedMS = t.StartedMS + 100
	return t, nil
}

// Play plays the challenge of env that seed derives for v, with model m
// answering by reply, and records it as a validator would (format 2, its
// seed recorded) for duel d.
func Play(v keys.PublicKey, seed record.Seed, env string, m record.Miner, d record.DuelID, reply func([]envs.Message) string) (record.Transcript, error) {
	f, err := registry.Latest(env)
	if err != nil {
		return record.Transcript{}, err
	}
	spec := f.Spec()
	id, err := seed.Derive(v, spec.Name, spec.Version)
	if err != nil {
		return record.Transcript{}, err
	}
	ep, err := envs.Play(f, id, reply)
	if err != nil {
		return record.Transcript{}, err
	}
	rewards := make([]int64, len(ep.Rewards))
	for i, r := range ep.Rewards {
		rewards[i] = int64(r)
	}
	var inv record.InvocationID
	copy(inv[:], fmt.Sprintf("inv-%x-%06d-%x", m.Hotkey[:4], seed.Counter, seed.Anchor.Number))
	start := int64(1_700_000_000_000 + seed.Counter*1000)
	return record.Transcript{
		Format:       record.TranscriptFormat,
		Challenge:    id,
		Env:          id.Env,
		EnvVersion:   id.Version,
		Validator:    v,
		Seed:         &seed,
		Miner:        m,
		Duel:         d,
		Invocation:   inv,
		Conversation: ep.Messages,
		TurnRewards:  rewards,
		Reward:       int64(ep.Reward),
		Reason:       ep.Reason,
		LatencyMS:    100,
		Attempts:     1,
		HTTPStatus:   200,
		Usage:        &record.Usage{PromptTokens: 10, CompletionTokens: 5},
		StartedMS:    start,
		FinishedMS:   start + 100,
	}, nil
}

// Equivocate makes v sign a second block at height (the stored one with
// its time moved) and puts it, so the store records a fork proof. It
// returns the proof's CID.
func Equivocate(s *ledger.Store, k *keys.Hotkey, height uint64) (cid.Cid, error) {
	b, err := s.BlockAt(k.Public(), height)
	if err != nil {
		return cid.Undef, err
	}
	h := b.Header
	h.TimeMS++
	_, raw, _, err := record.Sign(h, k)
	if err != nil {
		return cid.Undef, err
	}
	_, err = s.Put(raw, nil)
	eq, ok := err.(*ledger.EquivocationError)
	if !ok {
		return cid.Undef, fmt.Errorf("equivocate: put returned %v, want an equivocation", err)
	}
	return eq.Proof, nil
}

// WithRoots returns an archive header with the roots of header as edit
// leaves them: a doctored header, for tests of archive readers.
func WithRoots(header []byte, edit func([]cid.Cid) []cid.Cid) ([]byte, error) {
	r, err := archive.NewReader(bytes.NewReader(header))
	if err != nil {
		return nil, err
	}
	return archive.Header(edit(slices.Clone(r.Roots)))
}
