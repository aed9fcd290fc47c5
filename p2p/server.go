package p2p

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"golang.org/x/time/rate"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger"
)

// Concurrency limits of the responder.
const (
	maxStreamsPerPeer = 4
	maxStreams        = 64
)

// servingLimits holds the responder's per-peer rate limiters and stream
// counts.
type servingLimits struct {
	mu      sync.Mutex
	rate    rate.Limit
	burst   int
	limits  map[peer.ID]*rate.Limiter
	streams map[peer.ID]int
	total   int
}

func newServingLimits(r rate.Limit, burst int) *servingLimits {
	return &servingLimits{rate: r, burst: burst, limits: map[peer.ID]*rate.Limiter{}, streams: map[peer.ID]int{}}
}

// admit takes a stream slot and a request token for p; release gives the
// slot back. code is 0 when admitted.
func (l *servingLimits) admit(p peer.ID) (code uint64, release func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total >= maxStreams || l.streams[p] >= maxStreamsPerPeer {
		return CodeBusy, nil
	}
	lim, ok := l.limits[p]
	if !ok {
		if len(l.limits) > 4096 {
			clear(l.limits) // bounded memory; a reset only refills buckets
		}
		lim = rate.NewLimiter(l.rate, l.burst)
		l.limits[p] = lim
	}
	if !lim.Allow() {
		return CodeRateLimited, nil
	}
	l.total++
	l.streams[p]++
	return 0, func() {
		l.mu.Lock()
		l.total--
		if l.streams[p]--; l.streams[p] == 0 {
			delete(l.streams, p)
		}
		l.mu.Unlock()
	}
}

// serve answers one sync request on s.
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
	s.SetDeadline(time.Now().Add(RequestTimeout))
	s.SetReadDeadline(time.Now().Add(RequestReadTimeout))
	data, err := readFrame(bufio.NewReader(s), MaxRequestBytes)
	if err != nil {
		s.Reset()
		if isMisbehavior(err) {
			n.punish(p, fmt.Errorf("sync request: %w", err))
		}
		return
	}
	resp, kind, invalid := n.answer(p, data)
	n.metrics.served.WithLabelValues(kind).Inc()
	out, err := codec.Marshal(resp)
	if err != nil {
		n.log.Error("p2p: encode sync response", "err", err)
		s.Reset()
		return
	}
	if err := writeFrame(s, out); err != nil {
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

// answer builds the response to a request from p and names its kind for
// metrics; invalid is set when the request broke the spec (the peer is
// then banned).
func (n *Network) answer(p peer.ID, data []byte) (resp *Response, kind string, invalid error) {
	req, err := DecodeRequest(data)
	if err != nil {
		return errorResponse(CodeBadRequest, err.Error()), "bad", err
	}
	code, release := n.serving.admit(p)
	if code != 0 {
		return errorResponse(code, "rate limited or busy; retry later"), "refused", nil
	}
	defer release()
	switch {
	case req.Status != nil:
		if err := n.takeStatus(p, req.Status); err != nil {
			return errorResponse(CodeBadRequest, err.Error()), "bad", nil
		}
		st, err := n.status()
		if err != nil {
			return errorResponse(CodeBusy, "store error"), "error", nil
		}
		return &Response{Status: st}, "status", nil
	case req.Blocks != nil:
		br, err := n.serveBlocks(req.Blocks)
		if err != nil {
			n.log.Warn("p2p: serve blocks", "err", err)
			return errorResponse(CodeBusy, "store error"), "error", nil
		}
		return &Response{Blocks: br}, "blocks", nil
	default:
		or, err := n.serveObjects(req.Objects)
		if err != nil {
			n.log.Warn("p2p: serve objects", "err", err)
			return errorResponse(CodeBusy, "store error"), "error", nil
		}
		return &Response{Objects: or}, "objects", nil
	}
}

func errorResponse(code uint64, msg string) *Response {
	if len(msg) > MaxErrorMessage {
		msg = msg[:MaxErrorMessage]
	}
	for !utf8.ValidString(msg) {
		msg = msg[:len(msg)-1]
	}
	return &Response{Error: &ErrorResponse{Code: code, Message: msg}}
}

// serveBlocks reads consecutive blocks and a prefix of their objects within
// ResponseBudget.
func (n *Network) serveBlocks(r *BlocksRequest) (*BlocksResponse, error) {
	out := &BlocksResponse{Blocks: [][]byte{}, Objects: [][]byte{}}
	size := 0
	objectsOpen := true // objects stay a prefix: once one is left out, all later are
	for b, err := range n.store.Blocks(r.Validator, r.From) {
		if err != nil {
			return nil, err
		}
		if b.Height != r.From+uint64(len(out.Blocks)) {
			break // a gap cannot happen in a sound store; stop at it
		}
		if len(out.Blocks) > 0 && size+len(b.Raw) > ResponseBudget {
			break
		}
		out.Blocks = append(out.Blocks, b.Raw)
		size += len(b.Raw)
		for _, l := range Links(b.Block) {
			if !objectsOpen {
				break
			}
			raw, err := n.store.Object(l)
			if err != nil {
				return nil, fmt.Errorf("object %s of block %s: %w", l, b.Ref(), err)
			}
			if size+len(raw) > ResponseBudget || len(out.Objects) == MaxObjectsPerRequest {
				objectsOpen = false
				break
			}
			out.Objects = append(out.Objects, raw)
			size += len(raw)
		}
		if !objectsOpen || uint64(len(out.Blocks)) == r.Count || size >= ResponseBudget {
			// Once objects are cut off, further blocks would only add
			// objects to fetch separately: they come with the next request.
			break
		}
	}
	return out, nil
}

// serveObjects returns the requested objects it holds, in request order,
// within ResponseBudget.
func (n *Network) serveObjects(r *ObjectsRequest) (*ObjectsResponse, error) {
	out := &ObjectsResponse{Objects: [][]byte{}}
	size := 0
	for _, l := range r.CIDs {
		raw, err := n.store.Object(l.Cid)
		if errors.Is(err, ledger.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(out.Objects) > 0 && size+len(raw) > ResponseBudget {
			break
		}
		out.Objects = append(out.Objects, raw)
		size += len(raw)
	}
	return out, nil
}
