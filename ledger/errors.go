package ledger

import (
	"errors"
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
)

// Sentinel errors. Every error of this package wraps one or more of them;
// test with errors.Is.
var (
	// ErrInvalidBlock: a peer's block that must not be stored. Wrapped
	// together with the specific reason below, so the network layer can
	// reject (and penalize) on ErrInvalidBlock alone.
	ErrInvalidBlock = errors.New("invalid block")
	// ErrBadParent: the block does not extend the validator's chain (wrong
	// previous link, height, time or anchor order).
	ErrBadParent = errors.New("does not extend its parent")
	// ErrBadCheckpoint: the block's checkpoint is not the log after its
	// transcripts.
	ErrBadCheckpoint = errors.New("bad checkpoint")
	// ErrMissingObject: a transcript or decision the block links to was
	// not supplied, or its bytes do not hash to the link.
	ErrMissingObject = errors.New("missing or altered object")
	// ErrChallengeReused: a challenge ID appears twice in one validator's
	// log with the same miner.
	ErrChallengeReused = errors.New("challenge ID already used by this validator for this miner")
	// ErrMissingParent: the block's parent is not stored yet; the caller
	// should backfill. Returned as *MissingParentError.
	ErrMissingParent = errors.New("parent block not stored")
	// ErrEquivocation: the validator signed two different blocks at one
	// height. The evidence is stored (ForkProofs); returned as
	// *EquivocationError.
	ErrEquivocation = errors.New("validator equivocated")
	// ErrLocalChain: a peer's block of a chain this store's appender
	// writes. It is not an invalid block: the key signed it on another
	// machine, or this store lost blocks the network holds (appending
	// would then equivocate). The network layer must not blame the peer
	// that sent it.
	ErrLocalChain = errors.New("this node writes that chain")
	// ErrWrongNetwork: a block, or a store, of another network than the
	// store's (record.Network), or a block of format 1, which names none.
	// A peer's such block is refused as ErrInvalidBlock too.
	ErrWrongNetwork = errors.New("not of this store's network")
	// ErrNoNetwork: an appender of a store that has no network yet
	// (WithNetwork).
	ErrNoNetwork = errors.New("store has no network")
	// ErrNotFound: no such block, transcript, object or leaf.
	ErrNotFound = errors.New("not found")
	// ErrCorrupt: stored data disagrees with itself (a head pointer that
	// does not match its blocks, bytes that do not hash to their key).
	ErrCorrupt = errors.New("store is inconsistent")
	// ErrNotStore: OpenReadOnly found no ledger store in the directory.
	ErrNotStore = errors.New("not a ledger store")
	// ErrLocked: the store is open elsewhere in a way that excludes this
	// open (a writer excludes everyone; readers exclude a writer).
	// Returned as *LockedError, which names the holding process.
	ErrLocked = errors.New("store is in use")
	// ErrReadOnly: a write to a store opened with OpenReadOnly.
	ErrReadOnly = errors.New("store opened read-only")
	// ErrClosed: the store or appender was closed.
	ErrClosed = errors.New("closed")
	// ErrWriteFailed: Pebble failed to write or sync a batch (an I/O
	// error). Pebble may then hold data it could not make durable, so the
	// store refuses every later write; Store.Err reports it. Reopen the
	// store (restart the process) to recover from what was synced.
	ErrWriteFailed = errors.New("write failed")
)

// BlockError says why a block was refused, naming the block.
type BlockError struct {
	Validator keys.PublicKey
	Height    uint64
	CID       cid.Cid
	// Reason is one of the sentinels above, or record.ErrBadSignature or
	// record.ErrMalformed.
	Reason error
	Detail string
}

func (e *BlockError) Error() string {
	return fmt.Sprintf("validator %s height %d (%s): %v: %s", e.Validator, e.Height, codec.ShortCID(e.CID), e.Reason, e.Detail)
}

// Unwrap makes both ErrInvalidBlock and the specific reason match.
func (e *BlockError) Unwrap() []error { return []error{ErrInvalidBlock, e.Reason} }

func refused(b *record.Block, c cid.Cid, reason error, format string, args ...any) error {
	return &BlockError{Validator: b.Validator, Height: b.Height, CID: c, Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// MissingParentError is returned for a block whose parent is not stored.
// The caller can fetch heights [Have+1, Height) of Validator (or from 0 when
// HaveAny is false) and put them first.
type MissingParentError struct {
	Validator keys.PublicKey
	// Height is the height of the refused block.
	Height uint64
	// Have is the height of the stored head, valid when HaveAny.
	Have    uint64
	HaveAny bool
}

func (e *MissingParentError) Error() string {
	have := "no blocks"
	if e.HaveAny {
		have = fmt.Sprintf("head at height %d", e.Have)
	}
	return fmt.Sprintf("validator %s height %d: %v (store has %s)", e.Validator, e.Height, ErrMissingParent, have)
}

// Is matches ErrMissingParent.
func (e *MissingParentError) Is(target error) bool { return target == ErrMissingParent }

// EquivocationError is returned when a block conflicts with a stored one at
// the same height. The block itself is not written to the chain; the fork
// proof holding both is.
type EquivocationError struct {
	Validator keys.PublicKey
	Height    uint64
	// Proof is the CID of the stored fork proof.
	Proof cid.Cid
}

func (e *EquivocationError) Error() string {
	return fmt.Sprintf("validator %s height %d: %v (fork proof %s)", e.Validator, e.Height, ErrEquivocation, e.Proof)
}

// Is matches ErrEquivocation.
func (e *EquivocationError) Is(target error) bool { return target == ErrEquivocation }
