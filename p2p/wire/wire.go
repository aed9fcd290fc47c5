package wire

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// SyncProtocol is the stream protocol of heads exchange and backfill.
// Version 2 added the status's genesis; a node speaks no other version.
const SyncProtocol = "/ledger/sync/2"

// ErrBadMessage is wrapped by every sync message that breaks spec/p2p.md:
// the peer that sent it is penalized.
var ErrBadMessage = errors.New("bad sync message")

// Head is one validator's latest block as a status reports it.
type Head struct {
	Validator keys.PublicKey `cbor:"validator"`
	Height    uint64         `cbor:"height"`
	CID       codec.Link     `cbor:"cid"`
}

// Status is what a node tells a peer about itself: its network (subnet,
// and the genesis hash of the chain its store is bound to, nil while it is
// bound to none), every chain head it stores, the fork proofs it holds,
// and its binding if it is a validator's node.
type Status struct {
	NetUID  uint64       `cbor:"netuid"`
	Genesis *Genesis     `cbor:"genesis"`
	Heads   []Head       `cbor:"heads"`
	Forks   []codec.Link `cbor:"forks"`
	Binding *Binding     `cbor:"binding"`
}

// BlocksRequest asks for up to Count consecutive blocks of Validator from
// height From.
type BlocksRequest struct {
	Validator keys.PublicKey `cbor:"validator"`
	From      uint64         `cbor:"from"`
	Count     uint64         `cbor:"count"`
}

// ObjectsRequest asks for objects by CID.
type ObjectsRequest struct {
	CIDs []codec.Link `cbor:"cids"`
}

// Request is a sync request: exactly one field is set.
type Request struct {
	Status  *Status         `cbor:"status,omitempty"`
	Blocks  *BlocksRequest  `cbor:"blocks,omitempty"`
	Objects *ObjectsRequest `cbor:"objects,omitempty"`
}

// BlocksResponse holds consecutive blocks from the requested height (fewer
// than asked when the chain ends or the budget is spent; none when the
// responder has no block at that height), and a prefix of their objects in
// order: the first block's transcripts then decisions, then the second's...
type BlocksResponse struct {
	Blocks  [][]byte `cbor:"blocks"`
	Objects [][]byte `cbor:"objects"`
}

// ObjectsResponse holds requested objects the responder has, in request
// order, for a prefix of the request that fits the budget.
type ObjectsResponse struct {
	Objects [][]byte `cbor:"objects"`
}

// Error codes of an ErrorResponse.
const (
	CodeBadRequest  = 1 // the request breaks the spec
	CodeRateLimited = 2 // too many requests from this peer; retry later
	CodeBusy        = 3 // too many concurrent requests, or a store error
)

// ErrorResponse refuses a request.
type ErrorResponse struct {
	Code    uint64 `cbor:"code"`
	Message string `cbor:"message"`
}

// Response is a sync response: exactly one field is set. A status request is
// answered by a status, blocks by blocks, objects by objects, any by error.
type Response struct {
	Status  *Status          `cbor:"status,omitempty"`
	Blocks  *BlocksResponse  `cbor:"blocks,omitempty"`
	Objects *ObjectsResponse `cbor:"objects,omitempty"`
	Error   *ErrorResponse   `cbor:"error,omitempty"`
}

// DecodeRequest parses and checks a request. It never panics.
func DecodeRequest(data []byte) (*Request, error) {
	if len(data) > MaxRequestBytes {
		return nil, badMessage("request of %d bytes, max %d", len(data), MaxRequestBytes)
	}
	var r Request
	if err := codec.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: request: %w", ErrBadMessage, err)
	}
	if n := set(r.Status != nil, r.Blocks != nil, r.Objects != nil); n != 1 {
		return nil, badMessage("request sets %d of status, blocks, objects; want exactly one", n)
	}
	switch {
	case r.Status != nil:
		if err := r.Status.check(); err != nil {
			return nil, err
		}
	case r.Blocks != nil:
		if r.Blocks.Count == 0 || r.Blocks.Count > MaxBlocksPerRequest {
			return nil, badMessage("blocks request count %d, want 1 to %d", r.Blocks.Count, MaxBlocksPerRequest)
		}
		if r.Blocks.From > r.Blocks.From+r.Blocks.Count {
			return nil, badMessage("blocks request from %d count %d overflows", r.Blocks.From, r.Blocks.Count)
		}
	case r.Objects != nil:
		if n := len(r.Objects.CIDs); n == 0 || n > MaxObjectsPerRequest {
			return nil, badMessage("objects request of %d CIDs, want 1 to %d", n, MaxObjectsPerRequest)
		}
		for i, l := range r.Objects.CIDs {
			if err := codec.CheckAddress(l.Cid); err != nil {
				return nil, badMessage("objects request CID %d: %v", i, err)
			}
		}
	}
	return &r, nil
}

// DecodeResponse parses and checks a response on its own (that it answers
// the request is the client's check). It never panics.
func DecodeResponse(data []byte) (*Response, error) {
	if len(data) > MaxResponseBytes {
		return nil, badMessage("response of %d bytes, max %d", len(data), MaxResponseBytes)
	}
	var r Response
	if err := codec.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: response: %w", ErrBadMessage, err)
	}
	if n := set(r.Status != nil, r.Blocks != nil, r.Objects != nil, r.Error != nil); n != 1 {
		return nil, badMessage("response sets %d of status, blocks, objects, error; want exactly one", n)
	}
	switch {
	case r.Status != nil:
		return &r, r.Status.check()
	case r.Blocks != nil:
		if n := len(r.Blocks.Blocks); n > MaxBlocksPerRequest {
			return nil, badMessage("%d blocks, max %d", n, MaxBlocksPerRequest)
		}
		for i, b := range r.Blocks.Blocks {
			if len(b) > record.MaxBlockBytes {
				return nil, badMessage("block %d has %d bytes, max %d", i, len(b), record.MaxBlockBytes)
			}
		}
		if err := checkObjects(r.Blocks.Objects); err != nil {
			return nil, err
		}
	case r.Objects != nil:
		if err := checkObjects(r.Objects.Objects); err != nil {
			return nil, err
		}
	case r.Error != nil:
		if len(r.Error.Message) > MaxErrorMessage || !utf8.ValidString(r.Error.Message) {
			return nil, badMessage("error message is not UTF-8 of at most %d bytes", MaxErrorMessage)
		}
	}
	return &r, nil
}

func checkObjects(objs [][]byte) error {
	if len(objs) > MaxObjectsPerRequest {
		return badMessage("%d objects, max %d", len(objs), MaxObjectsPerRequest)
	}
	for i, o := range objs {
		if len(o) > MaxObjectBytes {
			return badMessage("object %d has %d bytes, max %d", i, len(o), MaxObjectBytes)
		}
	}
	return nil
}

// check enforces a status's limits and order.
func (s *Status) check() error {
	if s.NetUID > 0xffff {
		return badMessage("status netuid %d is not a 16-bit subnet", s.NetUID)
	}
	if s.Genesis != nil && *s.Genesis == (Genesis{}) {
		// A zero hash names no chain (record.Network.Check): a node
		// bound to none sends null, so that there is one way to say it.
		return badMessage("status genesis is all zeros; a node of no network sends null")
	}
	if len(s.Heads) > MaxHeads {
		return badMessage("status with %d heads, max %d", len(s.Heads), MaxHeads)
	}
	if len(s.Forks) > MaxForks {
		return badMessage("status with %d fork proofs, max %d", len(s.Forks), MaxForks)
	}
	for i, h := range s.Heads {
		if err := codec.CheckAddress(h.CID.Cid); err != nil {
			return badMessage("status head %d: %v", i, err)
		}
		if i > 0 && bytes.Compare(s.Heads[i-1].Validator[:], h.Validator[:]) >= 0 {
			return badMessage("status heads not in strictly increasing validator order at %d", i)
		}
	}
	for i, f := range s.Forks {
		if err := codec.CheckAddress(f.Cid); err != nil {
			return badMessage("status fork proof %d: %v", i, err)
		}
	}
	return nil
}

// heads returns the status's heads by validator.
func (s *Status) heads() map[keys.PublicKey]Head {
	m := make(map[keys.PublicKey]Head, len(s.Heads))
	for _, h := range s.Heads {
		m[h.Validator] = h
	}
	return m
}

func set(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func badMessage(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadMessage, fmt.Sprintf(format, args...))
}
