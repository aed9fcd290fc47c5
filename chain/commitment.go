package chain

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// ErrNotOurs is wrapped when commitment fields are not a commitment of the
// kind asked for (another format, another kind, or garbage): readers skip
// such commitments.
var ErrNotOurs = errors.New("not a ledger commitment of this kind")

// Tags that start the first field of each commitment kind (spec/chain.md,
// "Commitments").
const (
	minerTag     = "lm1:"
	validatorTag = "lv1:"
	chutePrefix  = "chute:"
)

// MinerCommitment is what a miner announces on-chain: the model it serves
// and where validators can query it.
//
// On chain it takes two or three fields:
//
//	0  Raw     "lm1:" model "@" revision
//	1  Raw     "chute:" chute id, or the endpoint URL (http or https)
//	2  Sha256  the model hash, 32 bytes (optional)
type MinerCommitment struct {
	Model    string `json:"model"`
	Revision string `json:"revision"`
	// Exactly one of Chute and Endpoint is set.
	Chute    string `json:"chute,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// ModelHash is the hash of the weights, if the miner publishes one.
	ModelHash []byte `json:"model_hash,omitempty"`
}

// Fields returns the commitment's on-chain fields, or an error naming what
// does not fit.
func (m MinerCommitment) Fields() ([]Data, error) {
	if err := checkName("model", m.Model, "@"); err != nil {
		return nil, err
	}
	if err := checkName("revision", m.Revision, "@"); err != nil {
		return nil, err
	}
	head := minerTag + m.Model + "@" + m.Revision
	if len(head) > MaxRaw {
		return nil, fmt.Errorf("model and revision take %d bytes, at most %d", len(m.Model)+len(m.Revision), MaxRaw-len(minerTag)-1)
	}
	var where string
	switch {
	case m.Chute != "" && m.Endpoint != "":
		return nil, errors.New("give a chute or an endpoint, not both")
	case m.Chute != "":
		if err := checkName("chute", m.Chute, ""); err != nil {
			return nil, err
		}
		where = chutePrefix + m.Chute
	case m.Endpoint != "":
		if err := checkEndpoint(m.Endpoint); err != nil {
			return nil, err
		}
		where = m.Endpoint
	default:
		return nil, errors.New("a chute or an endpoint is required")
	}
	if len(where) > MaxRaw {
		return nil, fmt.Errorf("chute or endpoint of %d bytes, at most %d", len(where), MaxRaw)
	}
	fields := []Data{Raw([]byte(head)), Raw([]byte(where))}
	switch len(m.ModelHash) {
	case 0:
	case 32:
		fields = append(fields, Data{Kind: DataSha256, Bytes: bytes.Clone(m.ModelHash)})
	default:
		return nil, fmt.Errorf("model hash of %d bytes, want 32", len(m.ModelHash))
	}
	return fields, nil
}

// ParseMinerCommitment reads the fields Fields writes. It wraps ErrNotOurs
// for anything else.
func ParseMinerCommitment(fields []Data) (MinerCommitment, error) {
	var m MinerCommitment
	if len(fields) < 2 || len(fields) > 3 || fields[0].Kind != DataRaw || fields[1].Kind != DataRaw {
		return m, fmt.Errorf("%w: want 2 or 3 fields starting with two raw ones", ErrNotOurs)
	}
	head, ok := strings.CutPrefix(string(fields[0].Bytes), minerTag)
	if !ok {
		return m, fmt.Errorf("%w: first field does not start with %q", ErrNotOurs, minerTag)
	}
	model, rev, ok := strings.Cut(head, "@")
	if !ok {
		return m, fmt.Errorf("%w: no @ between model and revision", ErrNotOurs)
	}
	m.Model, m.Revision = model, rev
	where := string(fields[1].Bytes)
	if id, ok := strings.CutPrefix(where, chutePrefix); ok {
		m.Chute = id
	} else {
		m.Endpoint = where
	}
	if len(fields) == 3 {
		if fields[2].Kind != DataSha256 || len(fields[2].Bytes) != 32 {
			return m, fmt.Errorf("%w: third field is not a sha256 model hash", ErrNotOurs)
		}
		m.ModelHash = bytes.Clone(fields[2].Bytes)
	}
	// Re-encoding must give the same fields: one meaning per commitment.
	again, err := m.Fields()
	if err != nil {
		return MinerCommitment{}, fmt.Errorf("%w: %v", ErrNotOurs, err)
	}
	for i := range again {
		if !bytes.Equal(again[i].Bytes, fields[i].Bytes) {
			return MinerCommitment{}, fmt.Errorf("%w: field %d is not canonical", ErrNotOurs, i)
		}
	}
	return m, nil
}

// Identity is what decides whether two commitments are the same model: the
// model hash if the miner gave one, else SHA-256("ledger/chain/model/v1" 0x00
// model 0x00 revision).
func (m MinerCommitment) Identity() [32]byte {
	if len(m.ModelHash) == 32 {
		return [32]byte(m.ModelHash)
	}
	return sha256.Sum256([]byte("ledger/chain/model/v1\x00" + m.Model + "\x00" + m.Revision))
}

// ValidatorCommitment is what a validator announces on-chain: the head of
// its ledger, so that anyone can hold it to that log.
//
//	0  Raw     "lv1:" height ":" size   (decimal, no leading zeros)
//	1  Sha256  the checkpoint root at that height
type ValidatorCommitment struct {
	// Height is the ledger block height; Size and Root are its checkpoint.
	Height uint64   `json:"height"`
	Size   uint64   `json:"size"`
	Root   [32]byte `json:"root"`
}

// Fields returns the commitment's on-chain fields.
func (v ValidatorCommitment) Fields() []Data {
	head := validatorTag + strconv.FormatUint(v.Height, 10) + ":" + strconv.FormatUint(v.Size, 10)
	return []Data{Raw([]byte(head)), Sha256Field(v.Root)}
}

// ParseValidatorCommitment reads the fields Fields writes. It wraps
// ErrNotOurs for anything else.
func ParseValidatorCommitment(fields []Data) (ValidatorCommitment, error) {
	var v ValidatorCommitment
	if len(fields) != 2 || fields[0].Kind != DataRaw || fields[1].Kind != DataSha256 || len(fields[1].Bytes) != 32 {
		return v, fmt.Errorf("%w: want a raw field and a sha256 field", ErrNotOurs)
	}
	head, ok := strings.CutPrefix(string(fields[0].Bytes), validatorTag)
	if !ok {
		return v, fmt.Errorf("%w: first field does not start with %q", ErrNotOurs, validatorTag)
	}
	hs, ss, ok := strings.Cut(head, ":")
	if !ok {
		return v, fmt.Errorf("%w: want height:size", ErrNotOurs)
	}
	var err error
	if v.Height, err = canonicalUint(hs); err != nil {
		return ValidatorCommitment{}, fmt.Errorf("%w: height: %v", ErrNotOurs, err)
	}
	if v.Size, err = canonicalUint(ss); err != nil {
		return ValidatorCommitment{}, fmt.Errorf("%w: size: %v", ErrNotOurs, err)
	}
	v.Root = [32]byte(fields[1].Bytes)
	return v, nil
}

func canonicalUint(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, err
	}
	if strconv.FormatUint(n, 10) != s {
		return 0, fmt.Errorf("%q is not canonical decimal", s)
	}
	return n, nil
}

// checkName allows what Hugging Face repository names, git revisions and
// chute ids use: ASCII letters, digits and . _ - / (no spaces, no control
// characters, nothing in banned).
func checkName(what, s, banned string) error {
	if s == "" {
		return fmt.Errorf("%s is empty", what)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '/'
		if !ok || strings.IndexByte(banned, c) >= 0 {
			return fmt.Errorf("%s %q: byte %d (%q) is not allowed (letters, digits, . _ - / only)", what, s, i, c)
		}
	}
	return nil
}

func checkEndpoint(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("endpoint: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("endpoint %q: want an http:// or https:// URL", s)
	}
	if u.String() != s {
		return fmt.Errorf("endpoint %q is not in canonical form (%q)", s, u.String())
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return fmt.Errorf("endpoint %q: byte %d is not printable ASCII", s, i)
		}
	}
	return nil
}
