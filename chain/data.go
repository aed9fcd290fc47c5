package chain

import (
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/affine-ledger/ledger/chain/scale"
)

// Commitment limits of subtensor's Commitments pallet.
const (
	// MaxFields is the number of Data fields one commitment may hold.
	MaxFields = 3
	// MaxRaw is the longest Raw field.
	MaxRaw = 128
	// MaxBigRaw is the longest BigRaw field.
	MaxBigRaw = 512
	// MaxTimelock is the longest timelock-encrypted field.
	MaxTimelock = 1024
	// MinSpaceCost is the least a set_commitment call costs against the
	// space limit, however short its fields.
	MinSpaceCost = 100
	// DefaultMaxSpace is the pallet's default space per hotkey and epoch.
	DefaultMaxSpace = 3100
)

// DataKind is the variant of a commitment field: its leading SCALE byte is
// 0 for None, 1+len for Raw, and these constants from 130 on.
type DataKind uint8

// The Data variants of subtensor's Commitments pallet.
const (
	DataNone        DataKind = 0
	DataRaw         DataKind = 1 // encoded as 1+len(bytes), len <= 128
	DataBlakeTwo256 DataKind = 130
	DataSha256      DataKind = 131
	DataKeccak256   DataKind = 132
	DataShaThree256 DataKind = 133
	DataTimelock    DataKind = 134
	DataResetBonds  DataKind = 135
	DataBigRaw      DataKind = 136
)

var kindNames = map[DataKind]string{
	DataNone: "none", DataRaw: "raw", DataBlakeTwo256: "blake2_256", DataSha256: "sha256",
	DataKeccak256: "keccak256", DataShaThree256: "sha3_256", DataTimelock: "timelock",
	DataResetBonds: "reset_bonds", DataBigRaw: "big_raw",
}

func (k DataKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Data is one commitment field. Bytes holds the raw bytes, the 32-byte
// hash, or the ciphertext; Round is the drand round of a timelock field.
type Data struct {
	Kind  DataKind
	Bytes []byte
	Round uint64
}

// Raw returns a Raw field (at most MaxRaw bytes, checked on encoding).
func Raw(b []byte) Data { return Data{Kind: DataRaw, Bytes: b} }

// Sha256Field returns a Sha256 field holding h.
func Sha256Field(h [32]byte) Data { return Data{Kind: DataSha256, Bytes: h[:]} }

// SpaceCost is the field's length for the rate limit, as the pallet counts
// it: the byte length of Raw, BigRaw and ciphertexts, 32 for hashes, 0 for
// None and ResetBonds.
func (d Data) SpaceCost() uint64 {
	switch d.Kind {
	case DataNone, DataResetBonds:
		return 0
	default:
		return uint64(len(d.Bytes))
	}
}

// Check reports whether d is a well-formed field.
func (d Data) Check() error {
	switch d.Kind {
	case DataNone, DataResetBonds:
		if len(d.Bytes) != 0 || d.Round != 0 {
			return fmt.Errorf("%s field carries data", d.Kind)
		}
	case DataRaw:
		if len(d.Bytes) > MaxRaw {
			return fmt.Errorf("raw field of %d bytes, at most %d", len(d.Bytes), MaxRaw)
		}
	case DataBlakeTwo256, DataSha256, DataKeccak256, DataShaThree256:
		if len(d.Bytes) != 32 {
			return fmt.Errorf("%s field of %d bytes, want 32", d.Kind, len(d.Bytes))
		}
	case DataTimelock:
		if len(d.Bytes) > MaxTimelock {
			return fmt.Errorf("timelock field of %d bytes, at most %d", len(d.Bytes), MaxTimelock)
		}
	case DataBigRaw:
		if len(d.Bytes) > MaxBigRaw {
			return fmt.Errorf("big_raw field of %d bytes, at most %d", len(d.Bytes), MaxBigRaw)
		}
	default:
		return fmt.Errorf("unknown field kind %d", uint8(d.Kind))
	}
	if d.Kind != DataTimelock && d.Round != 0 {
		return fmt.Errorf("%s field carries a round", d.Kind)
	}
	return nil
}

// EncodeSCALE appends d's SCALE encoding. d must pass Check.
func (d Data) EncodeSCALE(e *scale.Encoder) {
	switch d.Kind {
	case DataRaw:
		e.U8(uint8(len(d.Bytes)) + 1)
		e.Fixed(d.Bytes)
	case DataNone, DataResetBonds:
		e.U8(uint8(d.Kind))
	case DataTimelock:
		e.U8(uint8(d.Kind))
		e.VecU8(d.Bytes)
		e.U64(d.Round)
	case DataBigRaw:
		e.U8(uint8(d.Kind))
		e.VecU8(d.Bytes)
	default:
		e.U8(uint8(d.Kind))
		e.Fixed(d.Bytes)
	}
}

// DecodeData reads one field.
func DecodeData(d *scale.Decoder) Data {
	b := d.U8()
	switch {
	case d.Err() != nil:
		return Data{}
	case b == 0:
		return Data{Kind: DataNone}
	case b <= MaxRaw+1:
		return Data{Kind: DataRaw, Bytes: d.Fixed(int(b) - 1)}
	}
	switch k := DataKind(b); k {
	case DataBlakeTwo256, DataSha256, DataKeccak256, DataShaThree256:
		return Data{Kind: k, Bytes: d.Fixed(32)}
	case DataTimelock:
		ct := d.VecU8(MaxTimelock, "timelock ciphertext")
		return Data{Kind: k, Bytes: ct, Round: d.U64()}
	case DataResetBonds:
		return Data{Kind: k}
	case DataBigRaw:
		return Data{Kind: k, Bytes: d.VecU8(MaxBigRaw, "big_raw field")}
	}
	d.Fail("unknown commitment field byte %d", b)
	return Data{}
}

// EncodeFields returns the SCALE encoding of a commitment's info,
// {fields: Vec<Data>}, checking each field and the field count.
func EncodeFields(fields []Data) ([]byte, error) {
	if len(fields) > MaxFields {
		return nil, fmt.Errorf("%w: %d fields, at most %d", ErrTooManyFields, len(fields), MaxFields)
	}
	var e scale.Encoder
	e.Compact(uint64(len(fields)))
	for i, f := range fields {
		if err := f.Check(); err != nil {
			return nil, fmt.Errorf("%w: field %d: %v", ErrBadRequest, i, err)
		}
		f.EncodeSCALE(&e)
	}
	return e.Bytes(), nil
}

// DecodeFields reads a commitment's info, {fields: Vec<Data>}, from d.
func DecodeFields(d *scale.Decoder) []Data {
	n := d.Len(MaxFields, 1, "commitment fields")
	out := make([]Data, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		out = append(out, DecodeData(d))
	}
	return out
}

// SpaceCost is what a set_commitment call with fields costs against the
// hotkey's space: max(sum of field costs, MinSpaceCost).
func SpaceCost(fields []Data) uint64 {
	var sum uint64
	for _, f := range fields {
		sum += f.SpaceCost()
	}
	return max(sum, MinSpaceCost)
}

// dataJSON is Data's JSON form: {"kind": "raw", "hex": "..."} plus "round"
// for timelock fields.
type dataJSON struct {
	Kind  string `json:"kind"`
	Hex   string `json:"hex,omitempty"`
	Round uint64 `json:"round,omitempty"`
}

// MarshalJSON writes {"kind", "hex", "round"}.
func (d Data) MarshalJSON() ([]byte, error) {
	return json.Marshal(dataJSON{Kind: d.Kind.String(), Hex: hex.EncodeToString(d.Bytes), Round: d.Round})
}

// UnmarshalJSON reads what MarshalJSON writes and checks the field.
func (d *Data) UnmarshalJSON(b []byte) error {
	var j dataJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("commitment field: %w", err)
	}
	kind, ok := DataKind(255), false
	for k, name := range kindNames {
		if name == j.Kind {
			kind, ok = k, true
		}
	}
	if !ok {
		return fmt.Errorf("commitment field: unknown kind %q", j.Kind)
	}
	raw, err := hex.DecodeString(j.Hex)
	if err != nil {
		return fmt.Errorf("commitment field: hex: %w", err)
	}
	if len(raw) == 0 {
		raw = nil
	}
	v := Data{Kind: kind, Bytes: raw, Round: j.Round}
	if err := v.Check(); err != nil {
		return fmt.Errorf("commitment field: %w", err)
	}
	*d = v
	return nil
}
