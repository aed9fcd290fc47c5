package duel

import (
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

// Adoption record constants (spec/duel.md, "Adoption records").
const (
	// AdoptType is the type field of an adoption record.
	AdoptType = "adopt"
	// AdoptVersion is the record format version.
	AdoptVersion = 1
	// MaxAdoptBytes bounds an encoded adoption record: the largest valid
	// one (a 64-byte model hash) is under 300 bytes.
	MaxAdoptBytes = 1 << 10
)

// Adopt is the decision record a validator writes when it takes the
// network's champion instead of its own (spec/validator.md, "Following
// consensus"): the frontier it adopts, and the duel result that set it.
// Without it a reign taken from the consensus would start at the floor,
// below the ratio the validators that crowned the champion hold it to,
// and this validator would be the lenient one until the gap decayed.
// With it, the validator's ledger alone still gives its ratio, and an
// auditor holding the source checks that the ratio follows from it.
type Adopt struct {
	Type    string `cbor:"type" json:"type"`
	Version uint64 `cbor:"v" json:"v"`
	// Champion is the champion adopted: Source's contender.
	Champion Side `cbor:"champion" json:"champion"`
	// Source is the duel result in which Champion dethroned the champion
	// before it, recorded in the chain of validator From.
	Source codec.Link     `cbor:"source" json:"source"`
	From   keys.PublicKey `cbor:"from" json:"from"`
	// SetPPM and SetAt are the frontier Source leaves (Frontier.Apply):
	// the ratio its contender set, and its start block.
	SetPPM uint32 `cbor:"set_ppm" json:"set_ppm"`
	SetAt  uint64 `cbor:"set_at" json:"set_at"`
}

// NewAdopt returns the adoption of the champion that src crowned: src is
// the duel result stored under source in validator from's chain, and the
// contender must have won it. src should have passed Verify.
func NewAdopt(p FrontierParams, from keys.PublicKey, source cid.Cid, src Result) (Adopt, error) {
	if err := p.Validate(); err != nil {
		return Adopt{}, err
	}
	if src.Winner != Contender.String() {
		return Adopt{}, fmt.Errorf("%w: adopt from duel result %s: its contender did not win", ErrMalformed, source)
	}
	a := Adopt{
		Type: AdoptType, Version: AdoptVersion,
		Champion: cloneSide(src.Contender), Source: codec.LinkTo(source), From: from,
		SetPPM: p.NextRatio(src.GeoMeanPPM), SetAt: src.Start.Number,
	}
	return a, a.Check()
}

// Check enforces what spec/duel.md asks of an adoption record alone: its
// type and version, set keys, an address for Source, a model hash of at
// most MaxModelHash bytes and a ratio in [PPM/2, MaxRatioPPM]. Whether
// the frontier follows from Source is CheckSource's.
func (a Adopt) Check() error {
	switch {
	case a.Type != AdoptType || a.Version != AdoptVersion:
		return fmt.Errorf("%w: type %q version %d, want %q version %d", ErrMalformed, a.Type, a.Version, AdoptType, AdoptVersion)
	case a.Champion.Hotkey == (keys.PublicKey{}):
		return fmt.Errorf("%w: adoption of no champion (zero hotkey)", ErrMalformed)
	case len(a.Champion.ModelHash) > MaxModelHash:
		return fmt.Errorf("%w: champion model hash has %d bytes, max %d", ErrMalformed, len(a.Champion.ModelHash), MaxModelHash)
	case a.From == (keys.PublicKey{}):
		return fmt.Errorf("%w: adoption from no validator (zero hotkey)", ErrMalformed)
	case a.SetPPM < PPM/2 || a.SetPPM > MaxRatioPPM:
		return fmt.Errorf("%w: set_ppm %d outside [%d, %d]", ErrMalformed, a.SetPPM, PPM/2, MaxRatioPPM)
	}
	if err := codec.CheckAddress(a.Source.Cid); err != nil {
		return fmt.Errorf("%w: source: %v", ErrMalformed, err)
	}
	return nil
}

// CheckSource checks that a is what NewAdopt makes of src, the duel result
// stored under a.Source, under p.
func (a Adopt) CheckSource(p FrontierParams, src Result) error {
	want, err := NewAdopt(p, a.From, a.Source.Cid, src)
	if err != nil {
		return err
	}
	switch {
	case a.Champion.Hotkey != want.Champion.Hotkey || string(a.Champion.ModelHash) != string(want.Champion.ModelHash):
		return fmt.Errorf("%w: adopts %s, but the source crowned %s", ErrFrontier, a.Champion.Hotkey, want.Champion.Hotkey)
	case a.SetAt != want.SetAt:
		return fmt.Errorf("%w: set_at is block %d, but the source started at block %d", ErrFrontier, a.SetAt, want.SetAt)
	case a.SetPPM != want.SetPPM:
		return fmt.Errorf("%w: set_ppm is %d, but the source sets %d", ErrFrontier, a.SetPPM, want.SetPPM)
	}
	return nil
}

// Adopted returns the frontier a sets. A ratio below the floor is refused:
// no duel result sets one (NextRatio), so such a record was made up.
func (p FrontierParams) Adopted(a Adopt) (Frontier, error) {
	if err := p.Validate(); err != nil {
		return Frontier{}, err
	}
	if a.SetPPM < p.Floor() {
		return Frontier{}, fmt.Errorf("%w: adopted set_ppm %d is below the floor %d", ErrFrontier, a.SetPPM, p.Floor())
	}
	return Frontier{Champion: cloneSide(a.Champion), SetPPM: a.SetPPM, SetAt: a.SetAt}, nil
}

// EncodeAdopt checks a and returns its canonical DAG-CBOR bytes and CID.
func EncodeAdopt(a Adopt) ([]byte, cid.Cid, error) {
	if err := a.Check(); err != nil {
		return nil, cid.Undef, err
	}
	b, c, err := codec.Encode(a)
	if err != nil {
		return nil, cid.Undef, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if len(b) > MaxAdoptBytes {
		return nil, cid.Undef, fmt.Errorf("%w: %d bytes, max %d", ErrMalformed, len(b), MaxAdoptBytes)
	}
	return b, c, nil
}

// DecodeAdopt reads an adoption record strictly: at most MaxAdoptBytes of
// canonical DAG-CBOR with no unknown or missing keys, passing Check. It
// never panics.
func DecodeAdopt(data []byte) (Adopt, error) {
	if len(data) > MaxAdoptBytes {
		return Adopt{}, fmt.Errorf("%w: %d bytes, max %d", ErrMalformed, len(data), MaxAdoptBytes)
	}
	var a Adopt
	if err := codec.Unmarshal(data, &a); err != nil {
		return Adopt{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if err := a.Check(); err != nil {
		return Adopt{}, err
	}
	return a, nil
}
