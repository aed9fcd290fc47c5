package proofs

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
)

// A proof file has one encoding of its content (spec/proofs.md): a
// proof that verifies must not have a twin that differs in bytes which
// carry meaning yet verifies too. encoding/json is more lenient on every
// count (member names in any case, the last of duplicate members, absent
// members and null as zero values, base64 with line breaks or non-zero
// padding bits) and record.Hash reads upper-case hex, so the reader below
// walks the object itself and decodes each member by the spec's rule.

// ReadProof reads a proof file of any type strictly and returns
// *InclusionProof, *ConsistencyProof or *ForkProof. A file whose first
// byte starts a CBOR map is read as a fork proof record (fork.go);
// anything else as JSON: one object holding exactly the members its type
// lists, each once, names matched exactly; no null; numbers are integers;
// byte strings are canonical base64 with padding; hashes are 64
// lower-case hex digits; cid is a ledger address in its canonical text
// (codec.ParseCID). Every error wraps ErrProofFormat and names the
// member.
func ReadProof(r io.Reader) (any, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxProofFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxProofFile {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrProofFormat, MaxProofFile)
	}
	if isCBORMap(data) {
		return readFork(data)
	}
	m, err := readObject(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProofFormat, err)
	}
	typ, err := m.str("type")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProofFormat, err)
	}
	var p any
	switch typ {
	case InclusionType:
		p, err = readInclusion(m)
	case ConsistencyType:
		p, err = readConsistency(m)
	default:
		return nil, fmt.Errorf("%w: type %q, want %q or %q", ErrProofFormat, typ, InclusionType, ConsistencyType)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrProofFormat, typ, err)
	}
	return p, nil
}

var (
	inclusionMembers   = []string{"type", "transcript", "cid", "leaf_index", "tree_size", "hashes", "block"}
	consistencyMembers = []string{"type", "older", "newer", "hashes"}
)

func readInclusion(m object) (*InclusionProof, error) {
	if err := m.exactly(inclusionMembers); err != nil {
		return nil, err
	}
	p := &InclusionProof{Type: InclusionType}
	var err error
	if p.Transcript, err = m.base64Bytes("transcript"); err != nil {
		return nil, err
	}
	if p.CID, err = m.str("cid"); err != nil {
		return nil, err
	}
	// One spelling: go-cid reads other texts of the same CID too.
	if _, err := codec.ParseCID(p.CID); err != nil {
		return nil, fmt.Errorf("cid: %v", err)
	}
	if p.LeafIndex, err = m.integer("leaf_index"); err != nil {
		return nil, err
	}
	if p.TreeSize, err = m.integer("tree_size"); err != nil {
		return nil, err
	}
	if p.Hashes, err = m.hashes("hashes"); err != nil {
		return nil, err
	}
	if p.Block, err = m.base64Bytes("block"); err != nil {
		return nil, err
	}
	return p, nil
}

func readConsistency(m object) (*ConsistencyProof, error) {
	if err := m.exactly(consistencyMembers); err != nil {
		return nil, err
	}
	p := &ConsistencyProof{Type: ConsistencyType}
	var err error
	if p.Older, err = m.base64Bytes("older"); err != nil {
		return nil, err
	}
	if p.Newer, err = m.base64Bytes("newer"); err != nil {
		return nil, err
	}
	if p.Hashes, err = m.hashes("hashes"); err != nil {
		return nil, err
	}
	return p, nil
}

// object is a JSON object's members, by exact name, in file order.
type object struct {
	names  []string
	values map[string]json.RawMessage
}

// readObject reads data as exactly one JSON object, refusing a member
// that appears twice.
func readObject(data []byte) (object, error) {
	m := object{values: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err == io.EOF {
		return m, errors.New("no JSON object: the file is empty or white space")
	}
	if err != nil {
		return m, err
	}
	if tok != json.Delim('{') {
		return m, errors.New("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return m, m.after(err)
		}
		name, ok := tok.(string)
		if !ok { // json.Decoder yields only strings as keys; no panic if not
			return m, fmt.Errorf("member name %v", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return m, fmt.Errorf("member %q: %v", name, err)
		}
		if _, dup := m.values[name]; dup {
			return m, fmt.Errorf("member %q appears twice", name)
		}
		m.names = append(m.names, name)
		m.values[name] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return m, m.after(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return m, errors.New("data after the proof object")
	}
	return m, nil
}

// after names the member read last in a syntax error found after it: the
// decoder reads "06" as 0 and only then finds the 6.
func (m object) after(err error) error {
	if len(m.names) == 0 {
		return err
	}
	return fmt.Errorf("after member %q: %v", m.names[len(m.names)-1], err)
}

// exactly checks that the members are want's, no more and no fewer.
func (m object) exactly(want []string) error {
	for _, name := range m.names {
		if known(want, name) {
			continue
		}
		for _, w := range want {
			if strings.EqualFold(name, w) {
				return fmt.Errorf("unknown member %q (names are case-sensitive: %q)", name, w)
			}
		}
		return fmt.Errorf("unknown member %q", name)
	}
	for _, w := range want {
		if _, ok := m.values[w]; !ok {
			return fmt.Errorf("no member %q", w)
		}
	}
	return nil
}

func known(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// str reads member name as a JSON string.
func (m object) str(name string) (string, error) {
	v, ok := m.values[name]
	if !ok {
		return "", fmt.Errorf("no member %q", name)
	}
	return jsonString(name, v)
}

func jsonString(what string, v json.RawMessage) (string, error) {
	if len(v) == 0 || v[0] != '"' {
		return "", fmt.Errorf("%s: want a string, got %.20s", what, v)
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("%s: %v", what, err)
	}
	return s, nil
}

// integer reads member name as a JSON number written as a non-negative
// integer: no fraction, no exponent, no sign.
func (m object) integer(name string) (uint64, error) {
	v := m.values[name]
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%s: want a non-negative integer, got %.20s", name, v)
		}
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", name, err)
	}
	return n, nil
}

// strictBase64 is RFC 4648 §4 with padding and zero padding bits. Strict
// still skips CR and LF, so base64Bytes refuses them first.
var strictBase64 = base64.StdEncoding.Strict()

// base64Bytes reads member name as a string of canonical base64.
func (m object) base64Bytes(name string) ([]byte, error) {
	s, err := m.str(name)
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(s, "\r\n") {
		return nil, fmt.Errorf("%s: line break in base64", name)
	}
	b, err := strictBase64.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s: base64: %v", name, err)
	}
	return b, nil
}

// hashes reads member name as an array of hashes, each 64 lower-case hex
// digits.
func (m object) hashes(name string) ([]record.Hash, error) {
	v := m.values[name]
	if len(v) == 0 || v[0] != '[' {
		return nil, fmt.Errorf("%s: want an array, got %.20s", name, v)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	out := make([]record.Hash, len(items))
	for i, item := range items {
		what := fmt.Sprintf("%s[%d]", name, i)
		s, err := jsonString(what, item)
		if err != nil {
			return nil, err
		}
		if err := lowerHex(s); err != nil {
			return nil, fmt.Errorf("%s: %v", what, err)
		}
		if err := out[i].UnmarshalText([]byte(s)); err != nil {
			return nil, fmt.Errorf("%s: %v", what, err)
		}
	}
	return out, nil
}

// lowerHex checks that s is 64 lower-case hex digits, the one spelling
// of a hash.
func lowerHex(s string) error {
	if len(s) != 64 {
		return fmt.Errorf("want 64 lower-case hex digits, got %d characters", len(s))
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return fmt.Errorf("want 64 lower-case hex digits, got %q at %d", c, i)
		}
	}
	return nil
}
