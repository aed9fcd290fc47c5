package vtrust

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

// Outcome record constants (spec/vtrust.md, "Outcome records").
const (
	// OutcomeType is the type field of an outcome, so that a reader of the
	// opaque decision records of a block tells it from a duel result.
	OutcomeType = "reexec"
	// OutcomeVersion is the record format version.
	OutcomeVersion = 1
	// MaxReasonBytes bounds an outcome's reason, as the ledger bounds a
	// transcript's.
	MaxReasonBytes = 4096
	// MaxOutcomeBytes bounds an encoded outcome: the largest valid one
	// (two keys, two links, a full reason) is below 4.4 KiB.
	MaxOutcomeBytes = 8 << 10
)

// ErrMalformed is wrapped by every decoding and checking error of an
// outcome record.
var ErrMalformed = errors.New("malformed re-execution outcome")

// Verdict is what an auditor concluded about one record of a validator.
type Verdict string

// Verdicts, from mildest to most severe.
const (
	// Agree: every check reproduced the record.
	Agree Verdict = "agree"
	// Disagree: a check failed without proving the record false (a seed
	// no recorded anchor derives, a decision whose transcripts are not in
	// the log). It lowers the validator's re-execution agreement.
	Disagree Verdict = "disagree"
	// Fault: a deterministic result does not reproduce (a reward, turn
	// reward, reason, prompt or observation of a transcript; a duel
	// result's outcomes against its transcripts' rewards). It is a hard
	// fault: the validator's vTrust is 0 for the epoch.
	Fault Verdict = "fault"
)

// severity orders verdicts so that merging keeps the most severe.
func (v Verdict) severity() (int, bool) {
	switch v {
	case Agree:
		return 0, true
	case Disagree:
		return 1, true
	case Fault:
		return 2, true
	}
	return 0, false
}

// Outcome is one auditor's verdict on one record of another validator's
// ledger: a transcript it re-executed or a decision record it checked
// against the transcripts. It is canonical DAG-CBOR (package codec), so it
// can be linked from the auditor's own blocks as a decision record and
// gossiped as evidence.
type Outcome struct {
	Type    string `cbor:"type" json:"type"`
	Version uint64 `cbor:"v" json:"v"`
	// Auditor re-executed; Validator signed the block holding the record.
	Auditor   keys.PublicKey `cbor:"auditor" json:"auditor"`
	Validator keys.PublicKey `cbor:"validator" json:"validator"`
	// Block is the validator's block that links Record; Record is the
	// transcript or decision record judged.
	Block  codec.Link `cbor:"block" json:"block"`
	Record codec.Link `cbor:"record" json:"record"`
	// Verdict is agree, disagree or fault; Reason says what did not
	// reproduce, empty exactly when the verdict is agree.
	Verdict Verdict `cbor:"verdict" json:"verdict"`
	Reason  string  `cbor:"reason" json:"reason"`
}

// NewOutcome fills in the type and version and checks the result.
func NewOutcome(auditor, validator keys.PublicKey, block, record cid.Cid, verdict Verdict, reason string) (Outcome, error) {
	o := Outcome{
		Type: OutcomeType, Version: OutcomeVersion,
		Auditor: auditor, Validator: validator,
		Block: codec.LinkTo(block), Record: codec.LinkTo(record),
		Verdict: verdict, Reason: reason,
	}
	return o, o.Check()
}

// Check enforces the rules of spec/vtrust.md that the encoding alone does
// not.
func (o *Outcome) Check() error {
	if o.Type != OutcomeType || o.Version != OutcomeVersion {
		return fmt.Errorf("%w: type %q version %d, want %q version %d", ErrMalformed, o.Type, o.Version, OutcomeType, OutcomeVersion)
	}
	if o.Auditor == (keys.PublicKey{}) || o.Validator == (keys.PublicKey{}) {
		return fmt.Errorf("%w: auditor and validator must both be set", ErrMalformed)
	}
	if o.Auditor == o.Validator {
		return fmt.Errorf("%w: validator %s audits itself", ErrMalformed, o.Validator)
	}
	for _, l := range [...]struct {
		name string
		link codec.Link
	}{{"block", o.Block}, {"record", o.Record}} {
		if err := codec.CheckAddress(l.link.Cid); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrMalformed, l.name, err)
		}
	}
	if o.Block.Cid.KeyString() == o.Record.Cid.KeyString() {
		return fmt.Errorf("%w: block and record are the same CID %s", ErrMalformed, o.Record.Cid)
	}
	if _, ok := o.Verdict.severity(); !ok {
		return fmt.Errorf("%w: verdict %q, want agree, disagree or fault", ErrMalformed, clip(string(o.Verdict)))
	}
	if (o.Verdict == Agree) != (o.Reason == "") {
		return fmt.Errorf("%w: verdict %s with reason %q: a reason is given exactly when the verdict is not agree", ErrMalformed, o.Verdict, clip(o.Reason))
	}
	if len(o.Reason) > MaxReasonBytes {
		return fmt.Errorf("%w: reason has %d bytes, max %d", ErrMalformed, len(o.Reason), MaxReasonBytes)
	}
	if !utf8.ValidString(o.Reason) {
		return fmt.Errorf("%w: reason is not valid UTF-8", ErrMalformed)
	}
	return nil
}

// Encode checks o and returns its canonical bytes and CID.
func (o *Outcome) Encode() ([]byte, cid.Cid, error) {
	if err := o.Check(); err != nil {
		return nil, cid.Undef, err
	}
	b, c, err := codec.Encode(o)
	if err != nil {
		return nil, cid.Undef, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if len(b) > MaxOutcomeBytes {
		return nil, cid.Undef, fmt.Errorf("%w: %d bytes, max %d", ErrMalformed, len(b), MaxOutcomeBytes)
	}
	return b, c, nil
}

// DecodeOutcome reads an outcome strictly: at most MaxOutcomeBytes of
// canonical DAG-CBOR with no unknown or missing keys, passing Check. It
// never panics.
func DecodeOutcome(data []byte) (Outcome, error) {
	if len(data) > MaxOutcomeBytes {
		return Outcome{}, fmt.Errorf("%w: %d bytes, max %d", ErrMalformed, len(data), MaxOutcomeBytes)
	}
	var o Outcome
	if err := codec.Unmarshal(data, &o); err != nil {
		return Outcome{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if err := o.Check(); err != nil {
		return Outcome{}, err
	}
	return o, nil
}

// addressPrefix starts the binary form of every CID codec.Sum makes: CID
// version 1, codec dag-cbor (0x71), multihash sha2-256 (0x12) of 32 bytes
// (0x20).
const addressPrefix = "\x01\x71\x12\x20"

// digest returns the SHA-256 digest of an address checkAddress accepted.
func digest(c cid.Cid) (d [32]byte) {
	copy(d[:], c.KeyString()[len(addressPrefix):])
	return d
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
