package verify

import (
	"fmt"
	"sync"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/transparency-dev/merkle/compact"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/decisions"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Options configure a Verifier.
type Options struct {
	// Reexecute replays every transcript through its env (spec/verify.md
	// step T6). Off, the audit checks integrity only.
	Reexecute bool
	// StrictSeeds turns a format-1 seed that no recorded anchor derives
	// into a failure instead of a count (spec/verify.md#seeds). A format-2
	// seed is checked exactly either way.
	StrictSeeds bool
	// Challenges remembers every challenge ID per validator. Required.
	Challenges ChallengeSet
	// Progress, if set, is called after every block with the totals so far.
	Progress func(blocks int, bytes int64)
	// ConcurrentFetch lets the verifier call Fetch from several goroutines
	// at once (a store can; a stream cannot).
	ConcurrentFetch bool
	// Workers bounds the goroutines that check transcripts in parallel
	// (default GOMAXPROCS).
	Workers int
	// Genesis and Netuid, each if set, assert the ledger's network
	// (ledger verify --genesis, --netuid), which every format-2 block
	// names (spec/verify.md, N2). Both set, they are the ledger's network;
	// else it is the one its store records (VerifyStore), else its first
	// format-2 block's, and must match the part that is set.
	Genesis *record.Hash
	Netuid  *uint16
}

// Fetch returns the bytes of an object a block links, exactly as the source
// holds them: the verifier checks them against the link itself.
type Fetch func(c cid.Cid) ([]byte, error)

// Start is the state of a chain before the first block to verify: Genesis
// for a whole chain, or the checkpoint, link, time and anchor of the block
// before a later starting height together with the frontier of its log.
type Start struct {
	Height   uint64
	Prev     cid.Cid
	TimeMS   int64
	Anchor   record.Anchor
	Size     uint64
	Frontier []record.Hash
	// Root is the signed root the frontier must give (Height > 0 only).
	Root record.Hash
	// Anchors, if set, reports whether a block below Height records an
	// anchor: where a format-2 seed may come from (T5) besides the blocks
	// verified and the one at Height-1.
	Anchors func(record.Anchor) (bool, error)
	// Format and Net are those of the block at Height-1, whose format the
	// blocks verified must keep (N1) and whose network, in format 2, must
	// be the ledger's (N2); Format 0 when unknown (the first block then
	// sets the chain's).
	Format uint64
	Net    record.Network
	// Nodes, if set, are the Merkle nodes the source stores for the
	// chain's log (a store's): each node the recomputed log completes is
	// held to them once its block passes B8, and a mismatch is the
	// store's failure, not the chain's (B9).
	Nodes StoredNodes
	// Indexes, if set, records the chain's transcripts as they are
	// appended, for the check of a store's indexes after the chains
	// (B10, VerifyStore).
	Indexes *ChainIndexes
}

// Genesis is the start of a whole chain.
func Genesis() Start { return Start{} }

// Verifier checks chains fed to it block by block (see the package doc).
// It is not safe for concurrent use.
type Verifier struct {
	opts  Options
	rep   Report
	begin time.Time
	ch    *chainState
	// net is the ledger's network, zero until known (network.go).
	net record.Network
}

type chainState struct {
	v      keys.PublicKey
	failed bool
	blocks int
	// next is the height expected next; prev, timeMS and anchor describe
	// the last verified block (prev undefined before height 0).
	next   uint64
	prev   cid.Cid
	timeMS int64
	anchor record.Anchor
	// format is the chain's block format, 0 before its first block.
	format uint64
	tree   *compact.Range
	seeds  *seedState
	// nodes is nil unless the source stores the log's nodes.
	nodes *nodeCheck
	// indexes is nil unless the source keeps transcript indexes.
	indexes *ChainIndexes
}

// New returns a Verifier.
func New(opts Options) *Verifier {
	if opts.Challenges == nil {
		panic("verify: Options.Challenges is required")
	}
	vf := &Verifier{opts: opts, begin: time.Now()}
	if opts.Genesis != nil && opts.Netuid != nil {
		vf.net = record.Network{Genesis: *opts.Genesis, Netuid: *opts.Netuid}
	}
	return vf
}

// StartChain begins validator v's chain. The previous chain, if any, ends.
func (vf *Verifier) StartChain(v keys.PublicKey, from Start) error {
	tree, err := treeFromFrontier(from.Size, from.Frontier)
	if err != nil {
		return fmt.Errorf("start chain of %s at height %d: %w", v, from.Height, err)
	}
	vf.ch = &chainState{v: v, next: from.Height, prev: from.Prev, timeMS: from.TimeMS, anchor: from.Anchor, format: from.Format, tree: tree, seeds: newSeedState(v, vf.opts.Challenges, from.Anchors)}
	if from.Nodes != nil {
		vf.ch.nodes = &nodeCheck{stored: from.Nodes}
	}
	vf.ch.indexes = from.Indexes
	vf.rep.Chains++
	if from.Height > 0 {
		vf.ch.seeds.observe(from.Anchor)
		if got := rootOf(tree); got != from.Root {
			// The block is signed and the store took it for its log's
			// checkpoint when it stored it (store.md): the nodes the
			// frontier was read from are what is wrong, or a block below
			// the audit, which a full audit tells apart.
			vf.failChain(Failure{Transcript: -1, Reason: fmt.Sprintf("%svalidator %s's log: the store's Merkle nodes of its frontier at size %d (%s) give root %s, but the signed block %s at height %d says %s, so the audit cannot start at height %d; verify without --from to find the node or block at fault",
				storeDamage, v, from.Size, frontierNodes(from.Size), got, from.Prev, from.Height-1, from.Root, from.Height)})
		} else if from.Format == record.BlockFormat {
			if err := vf.checkNetwork(from.Net); err != nil {
				vf.failChain(blockFailure(v, from.Height-1, from.Prev, -1, "%v", err))
			} else {
				vf.pinNetwork(from.Net)
			}
		}
	}
	return nil
}

// Failed reports whether the current chain has failed: its driver should
// feed it no more blocks.
func (vf *Verifier) Failed() bool { return vf.ch == nil || vf.ch.failed }

// Head returns the CID and height of the last block verified in the
// current chain (ok false if none).
func (vf *Verifier) Head() (cid.Cid, uint64, bool) {
	if vf.ch == nil || vf.ch.blocks == 0 {
		return cid.Undef, 0, false
	}
	return vf.ch.prev, vf.ch.next - 1, true
}

// SourceError records that the source could not supply the chain's block
// at height (c, if known, names it): the chain fails there.
func (vf *Verifier) SourceError(height uint64, c cid.Cid, err error) {
	vf.failChain(blockFailure(vf.ch.v, height, c, -1, "%v", err))
}

// Fail records a failure not tied to the current chain.
func (vf *Verifier) Fail(f Failure) { vf.rep.fail(f) }

func (vf *Verifier) failChain(f Failure) {
	if vf.ch.failed {
		return
	}
	vf.ch.failed = true
	vf.rep.fail(f)
}

// Report returns the report so far, its OK and Seconds filled in.
func (vf *Verifier) Report() Report {
	r := vf.rep
	r.Failures = append([]Failure(nil), vf.rep.Failures...)
	if r.Failures == nil {
		r.Failures = []Failure{}
	}
	r.OK = len(r.Failures) == 0
	r.Seconds = time.Since(vf.begin).Seconds()
	if !vf.net.IsZero() {
		n := vf.net
		r.Network = &n
	}
	return r
}

// Block verifies the next block of the current chain: raw is what the
// source holds under c. It fetches the linked objects in order,
// transcripts then decisions, one call at a time but not always from the
// same goroutine (unless Options.ConcurrentFetch), and stops at the first failure (Failed then
// reports true; a streaming driver skips what the block linked).
func (vf *Verifier) Block(raw []byte, c cid.Cid, fetch Fetch) {
	src := source{fetch: fetch}
	if vf.opts.ConcurrentFetch {
		src.visit = func(c cid.Cid, fn func([]byte) error) error {
			raw, err := fetch(c)
			if err != nil {
				return err
			}
			return fn(raw)
		}
	}
	vf.block(raw, c, nil, src)
}

// preread is what a stream's driver found of a block before handing it
// over: raw hashes to c, shape is what codec.Unmarshal decoded from raw
// (to tell a block from a fork proof), and sig, if not nil, delivers
// shape's signature check, started while the block before it finished.
type preread struct {
	shape *record.Block
	sig   <-chan error
}

// block verifies a block; pre, if not nil, is what the caller found of it
// already.
func (vf *Verifier) block(raw []byte, c cid.Cid, pre *preread, src source) {
	ch := vf.ch
	if ch == nil || ch.failed {
		return
	}
	vf.rep.Blocks++
	vf.rep.Bytes += int64(len(raw))
	if ch.nodes != nil {
		ch.nodes.pending = ch.nodes.pending[:0]
	}
	// Failures name the height the block stands at in the chain, which is
	// the height it claims unless that claim is what is wrong.
	fail := func(format string, args ...any) {
		vf.failChain(blockFailure(ch.v, ch.next, c, -1, format, args...))
	}
	if pre == nil {
		if err := codec.CheckCID(raw, c); err != nil {
			fail("block bytes do not match their CID: %v", err)
			return
		}
	}
	blk, err := decodeBlock(raw, pre)
	if err != nil {
		fail("%v", err)
		return
	}
	// The signature check, the costliest of a block's own, runs while the
	// pipeline checks the first transcripts; its verdict still comes
	// before theirs.
	var sigErr <-chan error
	if pre != nil {
		sigErr = pre.sig
	}
	if sigErr == nil {
		sigErr = checkSignature(blk)
	}
	signed := sync.OnceValue(func() error { return <-sigErr })
	if err := vf.checkLinks(blk, signed); err != nil {
		fail("%v", err)
		return
	}
	if err := vf.objects(blk, c, src, func() error {
		if err := signed(); err != nil {
			fail("%v", err)
			return err
		}
		return nil
	}); err != nil {
		return
	}
	got := record.Checkpoint{Size: ch.tree.End(), Root: rootOf(ch.tree)}
	if got != blk.Checkpoint {
		fail("%v: block says size %d root %s, its log recomputed is size %d root %s",
			ledger.ErrBadCheckpoint, blk.Checkpoint.Size, blk.Checkpoint.Root, got.Size, got.Root)
		return
	}
	if ch.nodes != nil {
		if f := ch.nodes.blockPassed(ch.v, blk.Height, c); f != nil {
			vf.rep.fail(*f)
		}
	}
	ch.blocks++
	ch.next = blk.Height + 1
	ch.prev = c
	ch.timeMS = blk.TimeMS
	ch.anchor = blk.Anchor
	ch.format = blk.Format
	if vf.opts.Progress != nil {
		vf.opts.Progress(vf.rep.Blocks, vf.rep.Bytes)
	}
}

// decodeBlock is record.DecodeBlock, given what its decoding step gives
// when the caller has it. A block that claims format 1 is decoded again:
// the format has a layout of its own, without net, and the same header
// in the layout of format 2 is another encoding of the same signed
// block, which DecodeBlock refuses.
func decodeBlock(raw []byte, pre *preread) (*record.Block, error) {
	if pre == nil || len(raw) > record.MaxBlockBytes || pre.shape.Format != record.BlockFormat {
		return record.DecodeBlock(raw)
	}
	if err := pre.shape.Check(); err != nil {
		return nil, err
	}
	return pre.shape, nil
}

// checkSignature starts b's signature check, which delivers its verdict
// once; b must not change meanwhile.
func checkSignature(b *record.Block) <-chan error {
	verdict := make(chan error, 1)
	go func() { verdict <- b.VerifySignature() }()
	return verdict
}

// checkLinks checks what ties a block to its chain: the validator, the
// height, the previous link, the signature (signed, which it waits for only
// to report a later failure, so that failures keep this order), the format
// and network, and time and anchor order.
func (vf *Verifier) checkLinks(b *record.Block, signed func() error) error {
	ch := vf.ch
	if b.Validator != ch.v {
		return fmt.Errorf("block of validator %s in the chain of %s", b.Validator, ch.v)
	}
	if b.Height != ch.next {
		return fmt.Errorf("height %d where height %d comes next", b.Height, ch.next)
	}
	if b.Height > 0 && !b.Prev.Cid.Equals(ch.prev) {
		return fmt.Errorf("%v: prev links %s, the block at height %d is %s", ledger.ErrBadParent, b.Prev.Cid, b.Height-1, ch.prev)
	}
	err := checkFormat(b, ch.format)
	if err == nil && b.Format == record.BlockFormat {
		// Not pinned as the ledger's network if none is known yet: the
		// block is not known to be signed (objects pins it once it is).
		err = vf.checkNetwork(b.Net)
	}
	if err == nil {
		err = ch.checkOrder(b)
	}
	if err != nil {
		if serr := signed(); serr != nil {
			return serr
		}
	}
	return err
}

// checkOrder is B7: time and anchor number do not go back.
func (ch *chainState) checkOrder(b *record.Block) error {
	switch {
	case b.Height > 0 && b.TimeMS < ch.timeMS:
		return fmt.Errorf("%v: time %d ms is before the parent's %d ms", ledger.ErrBadParent, b.TimeMS, ch.timeMS)
	case b.Height > 0 && b.Anchor.Number < ch.anchor.Number:
		return fmt.Errorf("%v: anchor %d is older than the parent's %d", ledger.ErrBadParent, b.Anchor.Number, ch.anchor.Number)
	}
	return nil
}

// errObjectBytes fails a block whose objects pass the bound.
var errObjectBytes = fmt.Errorf("the block's transcripts and decisions total more than %d bytes", record.MaxBlockObjectBytes)

// objects fetches and checks the block's transcripts and decisions. It
// returns a non-nil error once the chain failed. signed reports the
// block's signature check (and fails the chain if it failed): the
// transcripts' parallel checks start before it, their verdicts only after.
func (vf *Verifier) objects(b *record.Block, c cid.Cid, src source, signed func() error) error {
	ch := vf.ch
	p := vf.startPipeline(b, src)
	defer p.stop()
	if err := signed(); err != nil {
		return err
	}
	if b.Format == record.BlockFormat {
		vf.pinNetwork(b.Net) // checkLinks passed it
	}
	ch.seeds.observe(b.Anchor)
	linked := 0 // the block's object bytes so far (spec/ledger.md bounds them)
	i, err := p.inOrder(func(i int, it *item) error {
		if it.fetchErr != nil {
			return it.fetchErr
		}
		vf.rep.Bytes += int64(it.size)
		vf.rep.Transcripts++
		if linked += it.size; linked > record.MaxBlockObjectBytes {
			return errObjectBytes
		}
		return vf.transcript(b, i, it)
	})
	if err != nil {
		vf.failChain(blockFailure(ch.v, ch.next, c, i, "transcript %s: %v", b.Transcripts[i].Cid, err))
		return err
	}
	p.stop()
	for i, l := range b.Decisions {
		err := src.read(l.Cid, func(raw []byte) error {
			vf.rep.Bytes += int64(len(raw))
			if err := codec.CheckCID(raw, l.Cid); err != nil {
				return err
			}
			if linked += len(raw); linked > record.MaxBlockObjectBytes {
				return errObjectBytes
			}
			typ, version, err := decisions.CheckType(raw)
			if err != nil {
				return err
			}
			return vf.duelResult(raw, typ, version)
		})
		if err != nil {
			vf.failChain(blockFailure(ch.v, ch.next, c, -1, "decision %d (%s): %v", i, l.Cid, err))
			return err
		}
	}
	return nil
}
