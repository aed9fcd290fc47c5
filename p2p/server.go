package p2p

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
	"github.com/affine-ledger/ledger/p2p/wire"
)

// serve answers one sync request on s. The stream holds one of the peer's
// slots from now until the response is written.
func (n *Network) serve(s network.Stream) {
	p := s.Conn().RemotePeer()
	if !n.act.enter() {
		s.Reset()
		return
	}
	defer n.act.exit()
	if n.bans.banned(p) {
		s.Reset()
		return
	}
	stop := context.AfterFunc(n.ctx, func() { s.Reset() })
	defer stop()
	release, ok, own := n.serving.open(p, n.peers.boundIn(p, n.cfg.Validators.Contains))
	if !ok {
		n.refuse(s, p, own)
		return
	}
	defer release()
	s.SetDeadline(time.Now().Add(RequestTimeout))
	s.SetReadDeadline(time.Now().Add(RequestReadTimeout))
	data, err := wire.ReadFrame(bufio.NewReader(s), wire.MaxRequestBytes)
	if err != nil {
		s.Reset()
		if isMisbehavior(err) {
			n.punish(p, fmt.Errorf("sync request: %w", err))
		}
		return
	}
	resp, kind, invalid, held := n.answer(p, data)
	if kind == "refused" && n.serving.refuse(p) {
		s.Reset()
		n.punish(p, fmt.Errorf("sync: goes on requesting after %d refusals", MaxRefusals))
		return
	}
	n.metrics.served.WithLabelValues(kind).Inc()
	out, err := codec.Marshal(resp)
	if err != nil {
		n.log.Error("p2p: encode sync response", "err", err)
		n.serving.unreserve(held)
		s.Reset()
		return
	}
	// The response holds its own bytes of response memory until written;
	// if they cannot be had (only a status can outgrow its reservation),
	// a few bytes saying "busy" go instead.
	reserved := len(out)
	if !n.serving.resize(held, reserved) {
		reserved = 0
		if out, err = codec.Marshal(errorResponse(wire.CodeBusy, "busy; retry later")); err != nil {
			s.Reset()
			return
		}
	}
	defer n.serving.unreserve(reserved)
	if err := wire.WriteFrame(s, out); err != nil {
		s.Reset()
		return
	}
	s.Close()
	if invalid != nil {
		// Banned at once, disconnected a moment later, so the peer can
		// read the answer and learn why.
		n.bans.ban(p, BanDuration)
		n.goDo(func() {
			select {
			case <-n.ctx.Done():
			case <-time.After(500 * time.Millisecond):
			}
			n.punish(p, fmt.Errorf("sync request: %w", invalid))
		})
	}
}

// refuse answers a stream over the slots with error 3. It first reads and
// discards what p sends (for at most RefuseTimeout), so that an honest
// requester, which writes its whole request before reading, gets the
// answer and retries. A peer that keeps opening streams over its own
// slots (own) past MaxRefusals is banned; one refused because other
// peers hold the node's slots is not to blame.
func (n *Network) refuse(s network.Stream, p peer.ID, own bool) {
	if own && n.serving.refuse(p) {
		s.Reset()
		n.punish(p, fmt.Errorf("sync: goes on opening streams after %d refusals", MaxRefusals))
		return
	}
	s.SetDeadline(time.Now().Add(RefuseTimeout))
	io.Copy(io.Discard, io.LimitReader(s, wire.MaxRequestBytes+4))
	out, err := codec.Marshal(errorResponse(wire.CodeBusy, "too many streams; retry later"))
	if err != nil || wire.WriteFrame(s, out) != nil {
		s.Reset()
		return
	}
	n.metrics.served.WithLabelValues("refused").Inc()
	s.Close()
}

// answer builds the response to a request from p and names its kind for
// metrics; invalid is set when the request broke the spec (the peer is
// then banned). held is the response memory reserved for it, which the
// caller gives back.
func (n *Network) answer(p peer.ID, data []byte) (resp *wire.Response, kind string, invalid error, held int) {
	req, err := wire.DecodeRequest(data)
	if err != nil {
		return errorResponse(wire.CodeBadRequest, err.Error()), "bad", err, 0
	}
	if !n.serving.allow(p) {
		return errorResponse(wire.CodeRateLimited, "rate limited; retry later"), "refused", nil, 0
	}
	switch {
	case req.Status != nil:
		if err := n.takeStatus(p, req.Status); err != nil {
			return errorResponse(wire.CodeBadRequest, err.Error()), "bad", nil, 0
		}
		st, err := n.status()
		if err != nil {
			return errorResponse(wire.CodeBusy, "store error"), "error", nil, 0
		}
		return &wire.Response{Status: st}, "status", nil, 0
	}
	// Blocks and objects responses can be large: their memory is
	// reserved before they are built.
	if !n.serving.reserve(maxResponseBody) {
		return errorResponse(wire.CodeBusy, "busy; retry later"), "busy", nil, 0
	}
	if req.Blocks != nil {
		br, err := n.serveBlocks(req.Blocks)
		if err != nil {
			n.log.Warn("p2p: serve blocks", "err", err)
			return errorResponse(wire.CodeBusy, "store error"), "error", nil, maxResponseBody
		}
		return &wire.Response{Blocks: br}, "blocks", nil, maxResponseBody
	}
	or, err := n.serveObjects(req.Objects)
	if err != nil {
		n.log.Warn("p2p: serve objects", "err", err)
		return errorResponse(wire.CodeBusy, "store error"), "error", nil, maxResponseBody
	}
	return &wire.Response{Objects: or}, "objects", nil, maxResponseBody
}

func errorResponse(code uint64, msg string) *wire.Response {
	if len(msg) > wire.MaxErrorMessage {
		msg = msg[:wire.MaxErrorMessage]
	}
	for !utf8.ValidString(msg) {
		msg = msg[:len(msg)-1]
	}
	return &wire.Response{Error: &wire.ErrorResponse{Code: code, Message: msg}}
}

// serveBlocks reads consecutive blocks and a prefix of their objects within
// ResponseBudget.
func (n *Network) serveBlocks(r *wire.BlocksRequest) (*wire.BlocksResponse, error) {
	out := &wire.BlocksResponse{Blocks: [][]byte{}, Objects: [][]byte{}}
	size := 0
	objectsOpen := true // objects stay a prefix: once one is left out, all later are
	for b, err := range n.store.Blocks(r.Validator, r.From) {
		if err != nil {
			return nil, err
		}
		if b.Height != r.From+uint64(len(out.Blocks)) {
			break // a gap cannot happen in a sound store; stop at it
		}
		if len(out.Blocks) > 0 && size+len(b.Raw) > wire.ResponseBudget {
			break
		}
		out.Blocks = append(out.Blocks, b.Raw)
		size += len(b.Raw)
		for _, l := range wire.Links(b.Block) {
			if !objectsOpen {
				break
			}
			raw, err := n.store.Object(l)
			if err != nil {
				return nil, fmt.Errorf("object %s of block %s: %w", l, b.Ref(), err)
			}
			if size+len(raw) > wire.ResponseBudget || len(out.Objects) == wire.MaxObjectsPerRequest {
				objectsOpen = false
				break
			}
			out.Objects = append(out.Objects, raw)
			size += len(raw)
		}
		if !objectsOpen || uint64(len(out.Blocks)) == r.Count || size >= wire.ResponseBudget {
			// Once objects are cut off, further blocks would only add
			// objects to fetch separately: they come with the next request.
			break
		}
	}
	return out, nil
}

// serveObjects returns the requested objects it holds, in request order,
// within ResponseBudget.
func (n *Network) serveObjects(r *wire.ObjectsRequest) (*wire.ObjectsResponse, error) {
	out := &wire.ObjectsResponse{Objects: [][]byte{}}
	size := 0
	for _, l := range r.CIDs {
		raw, err := n.store.Object(l.Cid)
		if errors.Is(err, ledger.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(out.Objects) > 0 && size+len(raw) > wire.ResponseBudget {
			break
		}
		out.Objects = append(out.Objects, raw)
		size += len(raw)
	}
	return out, nil
}
