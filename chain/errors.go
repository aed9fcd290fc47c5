package chain

import "errors"

// Errors a backend returns for refused reads and writes. They mirror
// subtensor's dispatch errors (named in each comment) so that code written
// against the local chain handles a real node's refusals the same way.
// Backends wrap them with context; test with errors.Is.
var (
	// ErrNotFound: no such block, hotkey or commitment.
	ErrNotFound = errors.New("not found")
	// ErrNotRegistered: the signing hotkey has no uid on the subnet
	// (HotKeyNotRegisteredInSubNet, AccountNotAllowedCommit).
	ErrNotRegistered = errors.New("hotkey not registered on the subnet")
	// ErrNoPermit: setting weights needs a validator permit
	// (NeuronNoValidatorPermit).
	ErrNoPermit = errors.New("hotkey has no validator permit")
	// ErrSpaceLimit: the commitment would exceed the hotkey's space for
	// this epoch (SpaceLimitExceeded).
	ErrSpaceLimit = errors.New("commitment space limit exceeded for this epoch")
	// ErrTooManyFields: more than MaxFields commitment fields
	// (TooManyFieldsInCommitmentInfo).
	ErrTooManyFields = errors.New("too many commitment fields")
	// ErrBadWeights: uids and values differ in length, repeat a uid, name
	// a uid that does not exist, or are empty (WeightVecNotEqualSize,
	// DuplicateUids, UidVecContainInvalidOne); on subtensor also more uids
	// than the subnet has, or a weight above its max weight limit
	// (UidsLengthExceedUidsInSubNet, MaxWeightExceeded).
	ErrBadWeights = errors.New("invalid weights")
	// ErrTooFewWeights: the row names fewer uids than the subnet's
	// min_allowed_weights (capped at its neuron count) and is not a single
	// self-weight (WeightVecLengthIsLow; CheckLength).
	ErrTooFewWeights = errors.New("weight row names too few uids")
	// ErrVersionKey: the weights' version key is below the subnet's
	// (IncorrectWeightVersionKey).
	ErrVersionKey = errors.New("weights version key below the subnet's")
	// ErrCommitRevealOn: set_weights while commit-reveal is on
	// (CommitRevealEnabled).
	ErrCommitRevealOn = errors.New("commit-reveal is enabled: commit and reveal weights instead")
	// ErrCommitRevealOff: commit or reveal while commit-reveal is off
	// (CommitRevealDisabled).
	ErrCommitRevealOff = errors.New("commit-reveal is disabled: set weights directly")
	// ErrTooManyCommits: ten unrevealed commits already
	// (TooManyUnrevealedCommits).
	ErrTooManyCommits = errors.New("too many unrevealed weight commits")
	// ErrNoCommit: nothing committed to reveal (NoWeightsCommitFound).
	ErrNoCommit = errors.New("no weight commit found")
	// ErrCommitMismatch: the revealed values and salt do not hash to any
	// pending commit (InvalidRevealCommitHashNotMatch).
	ErrCommitMismatch = errors.New("revealed weights do not match the committed hash")
	// ErrRevealTooEarly: the commit's reveal epoch has not come
	// (RevealTooEarly).
	ErrRevealTooEarly = errors.New("reveal too early")
	// ErrRevealExpired: the commit's reveal epoch has passed
	// (ExpiredWeightCommit).
	ErrRevealExpired = errors.New("weight commit expired")
	// ErrTooFast: weights set or committed again before the subnet's
	// weights rate limit allows (SettingWeightsTooFast,
	// CommittingWeightsTooFast). The local chain has no rate limit.
	ErrTooFast = errors.New("weights sent again within the subnet's rate limit")
	// ErrDispatch: a write included in a block whose call failed with a
	// dispatch error that no other error here names (subtensor's
	// NotEnoughStakeToSetWeights, say); the message names it.
	ErrDispatch = errors.New("refused by the chain (dispatch error)")
	// ErrInvalidTransaction: the node's transaction pool refused the
	// write before any block held it, by the runtime's checks (RPC error
	// 1010, or an "invalid" status); subtensor runs the weight, rate and
	// reveal checks there too, so a reveal too early usually ends here.
	ErrInvalidTransaction = errors.New("refused by the chain's transaction pool (invalid transaction)")
	// ErrBadSignature: a write whose signature does not verify.
	ErrBadSignature = errors.New("bad signature")
	// ErrStaleNonce: a write whose nonce is not the account's next one
	// (a replay, or a race between two writers of one hotkey).
	ErrStaleNonce = errors.New("stale or future nonce")
	// ErrBadRequest: a request that does not parse.
	ErrBadRequest = errors.New("bad request")
	// ErrStateUnavailable: a read at a block whose state the chain no
	// longer keeps.
	ErrStateUnavailable = errors.New("state not kept at that block")
	// ErrUnsupported: the backend cannot do this.
	ErrUnsupported = errors.New("not supported by this chain backend")
)

// refusals are the errors by which a chain judged a write and refused it,
// as opposed to failing to judge it (a connection lost, a timeout).
var refusals = []error{
	ErrNotRegistered, ErrNoPermit, ErrSpaceLimit, ErrTooManyFields, ErrBadWeights, ErrTooFewWeights,
	ErrVersionKey, ErrCommitRevealOn, ErrCommitRevealOff, ErrTooManyCommits, ErrNoCommit,
	ErrCommitMismatch, ErrRevealTooEarly, ErrRevealExpired, ErrBadSignature, ErrStaleNonce, ErrBadRequest,
	ErrTooFast, ErrDispatch, ErrInvalidTransaction,
}

// Refused reports whether err is the chain's refusal of a write: sending
// the same write again at once would be refused again. Any other error
// (the node unreachable, the request cut) left the write unjudged.
func Refused(err error) bool {
	for _, r := range refusals {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}
