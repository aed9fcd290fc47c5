package p2p

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// RemoteError is a peer's error response.
type RemoteError struct {
	Peer    peer.ID
	Code    uint64
	Message string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("peer %s refused: code %d: %s", e.Peer, e.Code, e.Message)
}

// request makes one sync exchange with p: one stream, one request, one
// response. A response that breaks the spec is misbehavior; an error
// response is a *RemoteError.
func (n *Network) request(ctx context.Context, p peer.ID, req *wire.Request) (*wire.Response, error) {
	release, err := n.out.acquire(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("sync with %s: %w", p, err)
	}
	defer release()
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	data, err := codec.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("sync request: %w", err)
	}
	s, err := n.host.NewStream(ctx, p, wire.SyncProtocol)
	if err != nil {
		if stalled(parent, ctx) {
			err = errStalled
		}
		return nil, fmt.Errorf("sync with %s: %w", p, err)
	}
	stop := context.AfterFunc(ctx, func() { s.Reset() })
	defer stop()
	deadline, _ := ctx.Deadline()
	s.SetDeadline(deadline)
	if err := wire.WriteFrame(s, data); err != nil {
		s.Reset()
		return nil, fmt.Errorf("sync with %s: send: %w", p, err)
	}
	if err := s.CloseWrite(); err != nil {
		s.Reset()
		return nil, fmt.Errorf("sync with %s: send: %w", p, err)
	}
	raw, err := wire.ReadFrame(bufio.NewReader(s), wire.MaxResponseBytes)
	if err != nil {
		s.Reset()
		if isMisbehavior(err) {
			return nil, bad(fmt.Errorf("sync response from %s: %w", p, err))
		}
		if stalled(parent, ctx) {
			err = errStalled
		}
		return nil, fmt.Errorf("sync with %s: receive: %w", p, err)
	}
	s.Close()
	resp, err := wire.DecodeResponse(raw)
	if err != nil {
		return nil, bad(fmt.Errorf("sync response from %s: %w", p, err))
	}
	if resp.Error != nil {
		return nil, &RemoteError{Peer: p, Code: resp.Error.Code, Message: resp.Error.Message}
	}
	return resp, nil
}

// errStalled is a sync exchange that got no answer in RequestTimeout. It
// is not misbehavior (a loaded peer may be that slow), but it is what a
// peer that claims chains it does not serve costs a backfill (passOver).
var errStalled = fmt.Errorf("no answer within %v", RequestTimeout)

// stalled reports whether an exchange under ctx, made under parent, ran
// out of its own time rather than being cancelled.
func stalled(parent, ctx context.Context) bool { return stalledAt(parent, ctx, time.Now()) }

// stalledAt is stalled at time now. The stream's deadline is ctx's, on a
// timer of its own, and may fire first: the exchange then fails with "i/o
// deadline reached" while ctx.Err() is still nil. So the deadline is
// compared with the clock, and ctx.Err() is not required.
func stalledAt(parent, ctx context.Context, now time.Time) bool {
	if parent.Err() != nil {
		return false
	}
	if d, ok := parent.Deadline(); ok && !now.Before(d) {
		return false // the caller's time ran out, not the exchange's
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !now.Before(d)
}

// withRetry repeats a request refused as rate limited or busy, a few times.
func (n *Network) withRetry(ctx context.Context, p peer.ID, req *wire.Request) (*wire.Response, error) {
	delay := 100 * time.Millisecond
	for attempt := 0; ; attempt++ {
		resp, err := n.request(ctx, p, req)
		re, refused := err.(*RemoteError)
		if !refused || re.Code == wire.CodeBadRequest || attempt == 5 {
			return resp, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay *= 2
	}
}

// fetchObjects gets every object of want from p, which must hold them all
// (it stored a block linking them), and which must total at most limit
// bytes: an honest peer's block links at most record.MaxBlockObjectBytes.
func (n *Network) fetchObjects(ctx context.Context, p peer.ID, want []cid.Cid, limit int) (map[cid.Cid][]byte, error) {
	out, size, err := n.fetchUpTo(ctx, p, want, limit)
	if err != nil {
		return nil, err
	}
	if size > limit {
		return nil, bad(fmt.Errorf("peer %s: the objects asked total more than %d bytes", p, limit))
	}
	return out, nil
}

// fetchUpTo gets objects of want from p in order until it has them all or
// holds more than budget bytes (then a prefix of want, at most one response
// past the budget). Objects that are not requested, or a response that
// makes no progress, are misbehavior.
func (n *Network) fetchUpTo(ctx context.Context, p peer.ID, want []cid.Cid, budget int) (map[cid.Cid][]byte, int, error) {
	out := make(map[cid.Cid][]byte, len(want))
	size := 0
	rest := want
	for len(rest) > 0 && size <= budget {
		ask := rest[:min(len(rest), wire.MaxObjectsPerRequest)]
		resp, err := n.withRetry(ctx, p, &wire.Request{Objects: &wire.ObjectsRequest{CIDs: codec.LinksTo(ask)}})
		if err != nil {
			return nil, 0, err
		}
		if resp.Objects == nil {
			return nil, 0, bad(fmt.Errorf("peer %s answered an objects request with another kind", p))
		}
		got, err := matchObjects(ask, resp.Objects.Objects)
		if err != nil {
			return nil, 0, bad(fmt.Errorf("objects from %s: %w", p, err))
		}
		// The response covers a prefix of ask: everything up to the last
		// object returned must be there, since p holds them all.
		progress := 0
		for i, c := range ask {
			if _, ok := got[c]; !ok {
				break
			}
			out[c] = got[c]
			size += len(got[c])
			progress = i + 1
		}
		if progress == 0 || progress < len(got) {
			return nil, 0, bad(fmt.Errorf("peer %s does not serve object %s that it must hold", p, ask[progress]))
		}
		rest = rest[progress:]
	}
	return out, size, nil
}

// matchObjects maps each object to the requested CID it hashes to, in
// request order. An object that was not requested, or out of order, is an
// error.
func matchObjects(ask []cid.Cid, objs [][]byte) (map[cid.Cid][]byte, error) {
	got := make(map[cid.Cid][]byte, len(objs))
	i := 0
	for k, o := range objs {
		c := codec.Sum(o)
		for i < len(ask) && !ask[i].Equals(c) {
			i++
		}
		if i == len(ask) {
			return nil, fmt.Errorf("object %d (%s) was not requested, or is out of order", k, c)
		}
		got[c] = o
		i++
	}
	return got, nil
}

// fetched is a block received by sync with its objects, checked against
// the request but not yet stored.
type fetched struct {
	blk     *record.Block
	raw     []byte
	cid     cid.Cid
	objects map[cid.Cid][]byte
}

// syncBudget bounds the object bytes one fetchBlocks call of a backfill
// gathers: a request may name 512 blocks, and each may link up to
// record.MaxBlockObjectBytes.
const syncBudget = record.MaxBlockObjectBytes

// fetchBlocks gets up to count of v's blocks from height from, with all
// their objects. Fewer blocks come back when p's chain ends, its response
// budget is spent, or their objects pass budget bytes (the first block is
// always whole); none when p has no block at from.
func (n *Network) fetchBlocks(ctx context.Context, p peer.ID, v keys.PublicKey, from, count uint64, budget int) ([]fetched, error) {
	resp, err := n.withRetry(ctx, p, &wire.Request{Blocks: &wire.BlocksRequest{Validator: v, From: from, Count: count}})
	if err != nil {
		return nil, err
	}
	if resp.Blocks == nil {
		return nil, bad(fmt.Errorf("peer %s answered a blocks request with another kind", p))
	}
	br := resp.Blocks
	if uint64(len(br.Blocks)) > count {
		return nil, bad(fmt.Errorf("peer %s sent %d blocks, %d asked", p, len(br.Blocks), count))
	}
	out := make([]fetched, len(br.Blocks))
	var missing []cid.Cid
	k := 0 // next object of the response
	size := 0
	for i, raw := range br.Blocks {
		blk, err := record.DecodeBlock(raw)
		if err != nil {
			return nil, bad(fmt.Errorf("block %d from %s: %w", i, p, err))
		}
		if blk.Validator != v || blk.Height != from+uint64(i) {
			return nil, bad(fmt.Errorf("peer %s sent block of %s height %d for %s height %d", p, blk.Validator.Short(), blk.Height, v.Short(), from+uint64(i)))
		}
		if err := n.checkBlockNetwork(blk); err != nil {
			// Before its objects are fetched; and the store, while it has
			// no network, would take the first block of any subnet.
			err = fmt.Errorf("block %d from %s: %w", i, p, err)
			if n.setApartIfOfItsOwnChain(p, blk.Net, err) {
				return nil, err
			}
			return nil, bad(err)
		}
		f := fetched{blk: blk, raw: raw, cid: codec.Sum(raw), objects: map[cid.Cid][]byte{}}
		for _, l := range wire.Links(blk) {
			if k < len(br.Objects) {
				if err := codec.CheckCID(br.Objects[k], l); err != nil {
					return nil, bad(fmt.Errorf("object %d from %s: %w", k, p, err))
				}
				f.objects[l] = br.Objects[k]
				size += len(br.Objects[k])
				k++
				continue
			}
			missing = append(missing, l)
		}
		out[i] = f
	}
	if k < len(br.Objects) {
		return nil, bad(fmt.Errorf("peer %s sent %d objects more than its blocks link", p, len(br.Objects)-k))
	}
	if len(missing) == 0 {
		return out, nil
	}
	rest, _, err := n.fetchUpTo(ctx, p, missing, budget-size)
	if err != nil {
		return nil, err
	}
	for i := range out {
		complete := true
		for _, l := range wire.Links(out[i].blk) {
			if _, ok := out[i].objects[l]; ok {
				continue
			}
			if o, ok := rest[l]; ok {
				out[i].objects[l] = o
			} else {
				complete = false
			}
		}
		if complete {
			continue
		}
		if i > 0 {
			return out[:i], nil
		}
		if err := n.completeFirst(ctx, p, &out[0]); err != nil {
			return nil, err
		}
		return out[:1], nil
	}
	return out, nil
}

// completeFirst fetches the objects f still lacks, which with those it
// has may total at most record.MaxBlockObjectBytes.
func (n *Network) completeFirst(ctx context.Context, p peer.ID, f *fetched) error {
	have := 0
	var lack []cid.Cid
	for _, l := range wire.Links(f.blk) {
		if o, ok := f.objects[l]; ok {
			have += len(o)
		} else {
			lack = append(lack, l)
		}
	}
	if have > record.MaxBlockObjectBytes {
		return bad(fmt.Errorf("peer %s: block %s height %d links more than %d bytes", p, f.blk.Validator.Short(), f.blk.Height, record.MaxBlockObjectBytes))
	}
	got, err := n.fetchObjects(ctx, p, lack, record.MaxBlockObjectBytes-have)
	if err != nil {
		return fmt.Errorf("block %s height %d: %w", f.blk.Validator.Short(), f.blk.Height, err)
	}
	maps.Copy(f.objects, got)
	return nil
}
