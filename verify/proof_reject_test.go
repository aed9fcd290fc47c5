package verify_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multibase"
	"github.com/multiformats/go-multihash"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger/record"
	"github.com/affine-ledger/ledger/ledger/record/recordtest"
	"github.com/affine-ledger/ledger/verify/proofs"
	"github.com/affine-ledger/ledger/verify/verifytest"
)

// The reject vectors of spec/vectors/proof-*.json: files that `ledger
// verify-proof` refuses, each breaking one rule of spec/proofs.md, built
// from the file's valid proof by changing what breaks the rule and nothing
// else. A block the case re-signs is signed by the key the case names over
// its own signing message, so a signature fails only where the rule is the
// signature's; signatures are randomized (sr25519), so the builder keeps
// the file's signature of a case when it verifies and signs afresh only
// when the vectors are rewritten.

// proofReject is one member of a proof vector file's "reject".
type proofReject struct {
	Name string `json:"name"`
	// Section is the heading of spec/proofs.md stating the rule ("Offline
	// proofs" for the file form its introduction gives); Rule the step
	// ("step 3" of an inclusion proof, "rule 1" of a consistency proof)
	// or the file-form rule.
	Section string `json:"section"`
	Rule    string `json:"rule"`
	// Exit is the exit code of `ledger verify-proof FILE`: 1 a proof that
	// does not verify, 2 a file that is not a proof.
	Exit int `json:"exit"`
	// Error is text the Go implementation's error names.
	Error string `json:"error"`
	// File is the file's bytes (all ASCII), followed when PadTo is set by
	// spaces up to PadTo bytes.
	File  string `json:"file"`
	PadTo int    `json:"pad_to,omitempty"`
}

// Bytes returns the file's bytes.
func (r proofReject) Bytes() []byte {
	b := []byte(r.File)
	if r.PadTo > len(b) {
		b = append(b, bytes.Repeat([]byte{' '}, r.PadTo-len(b))...)
	}
	return b
}

// Exit codes of ledger verify-proof (spec/proofs.md, "Checking").
const (
	exitNoVerify = 1
	exitNoProof  = 2
)

// Sections of spec/proofs.md.
const (
	secForm        = "Offline proofs"
	secInclusion   = "Inclusion proof"
	secConsistency = "Consistency proof"
)

// File-form rules of spec/proofs.md's introduction, as the vectors name
// them.
const (
	ruleObject  = "one JSON object and nothing after it but white space"
	ruleMembers = "exactly the members its type lists"
	ruleOnce    = "each member once"
	ruleCase    = "member names match exactly (case matters)"
	ruleNull    = "no member is null"
	ruleType    = "type is one of the types listed"
	ruleBase64  = "byte strings are canonical standard base64 with padding"
	ruleHex     = "hashes are 64 lower-case hex digits"
	ruleArray   = "hashes is an array of hex"
	ruleCID     = "cid is a ledger address in its canonical text"
	ruleInteger = "integers are JSON numbers written as non-negative integers"
	ruleSize    = "files are at most 4 MiB"
)

// member is one member of a proof object, its value as JSON text.
type member struct{ name, value string }

// members is a proof object's members in order; text writes them as a
// compact JSON object.
type members []member

func (ms members) text() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(m.name) + ":" + m.value)
	}
	b.WriteByte('}')
	return b.String()
}

func (ms members) index(name string) int {
	for i, m := range ms {
		if m.name == name {
			return i
		}
	}
	panic("no member " + name)
}

func (ms members) value(name string) string { return ms[ms.index(name)].value }

// set returns ms with name's value replaced.
func (ms members) set(name, value string) members {
	out := append(members(nil), ms...)
	out[out.index(name)].value = value
	return out
}

// rename returns ms with member name called to.
func (ms members) rename(name, to string) members {
	out := append(members(nil), ms...)
	out[out.index(name)].name = to
	return out
}

// without returns ms without member name.
func (ms members) without(name string) members {
	i := ms.index(name)
	return append(append(members(nil), ms[:i]...), ms[i+1:]...)
}

// with returns ms with a member added after the others.
func (ms members) with(name, value string) members {
	return append(append(members(nil), ms...), member{name, value})
}

func quote(s string) string { return strconv.Quote(s) }

func b64(b []byte) string { return quote(base64.StdEncoding.EncodeToString(b)) }

func hashList(hs []record.Hash) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = quote(h.String())
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func inclusionMembers(p *proofs.InclusionProof) members {
	return members{
		{"type", quote(p.Type)},
		{"transcript", b64(p.Transcript)},
		{"cid", quote(p.CID)},
		{"leaf_index", strconv.FormatUint(p.LeafIndex, 10)},
		{"tree_size", strconv.FormatUint(p.TreeSize, 10)},
		{"hashes", hashList(p.Hashes)},
		{"block", b64(p.Block)},
	}
}

func consistencyMembers(p *proofs.ConsistencyProof) members {
	return members{
		{"type", quote(p.Type)},
		{"older", b64(p.Older)},
		{"newer", b64(p.Newer)},
		{"hashes", hashList(p.Hashes)},
	}
}

// rejectSigner signs the blocks of reject cases, with a stored signature
// of the case when one verifies.
type rejectSigner struct {
	t      *testing.T
	update bool
	stored map[string][]keys.Signature
}

// storedBlockSignatures collects, per case, the signature of every block
// a stored reject file holds: every JSON string in it that is base64 of a
// block, duplicate members included.
func storedBlockSignatures(cases []proofReject) map[string][]keys.Signature {
	out := map[string][]keys.Signature{}
	for _, c := range cases {
		dec := json.NewDecoder(strings.NewReader(c.File))
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			s, ok := tok.(string)
			if !ok {
				continue
			}
			raw, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				continue
			}
			if b, err := record.UnmarshalBlock(raw); err == nil {
				out[c.Name] = append(out[c.Name], b.Signature)
			}
		}
	}
	return out
}

func (r *rejectSigner) sign(name string, k *keys.Hotkey, msg []byte) keys.Signature {
	r.t.Helper()
	for _, s := range r.stored[name] {
		if keys.Verify(k.Public(), msg, s) {
			return s
		}
	}
	if !r.update {
		r.t.Fatalf("reject %q: no stored signature verifies over the signing message this code derives (rewrite with %s=reject)", name, "LEDGER_UPDATE_VECTORS")
	}
	s, err := k.Sign(msg)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

// block signs h with k (whether or not k is h's validator, and whatever
// h's rules) over h's signing message, under the domain of h's format.
func (r *rejectSigner) block(name string, k *keys.Hotkey, h record.Header) []byte {
	r.t.Helper()
	msg, err := h.SigningBytes()
	if err != nil {
		r.t.Fatal(err)
	}
	return r.encode(&record.Block{Header: h, Signature: r.sign(name, k, msg)})
}

func (r *rejectSigner) encode(b *record.Block) []byte {
	r.t.Helper()
	raw, _, err := b.Encode()
	if err != nil {
		r.t.Fatal(err)
	}
	return raw
}

// rejectList accumulates the cases of one file.
type rejectList []proofReject

func (l *rejectList) add(section, rule string, exit int, name, want string, file string) {
	*l = append(*l, proofReject{Name: name, Section: section, Rule: rule, Exit: exit, Error: want, File: file})
}

// formRejects are the file-form cases every proof type shares, built from
// a valid proof's members: the file is not a proof (exit 2). The cases
// about byte strings change the first of bytesMembers whose base64 has
// padding and a "+" or "/", which the cases about padding and the URL-safe
// alphabet need.
func formRejects(t *testing.T, l *rejectList, ms members, bytesMembers ...string) {
	var bytesMember, b64s string
	for _, m := range bytesMembers {
		s, err := strconv.Unquote(ms.value(m))
		if err == nil && strings.HasSuffix(s, "=") && strings.ContainsAny(s, "+/") {
			bytesMember, b64s = m, s
			break
		}
	}
	if bytesMember == "" {
		t.Fatalf("none of %v is base64 with padding and a + or /", bytesMembers)
	}
	valid := ms.text()
	add := func(rule, name, want, file string) { l.add(secForm, rule, exitNoProof, name, want, file) }
	add(ruleObject, "empty file", "no JSON object: the file is empty", "")
	add(ruleObject, "white space only", "no JSON object: the file is empty or white space", " \n")
	add(ruleObject, "the proof inside an array", "not a JSON object", "["+valid+"]")
	add(ruleObject, "an empty object after the proof", "data after the proof object", valid+"\n{}\n")
	add(ruleObject, "a character after the proof", "data after the proof object", valid+"x")
	add(ruleObject, "a comma after the last member", `after member "`+ms[len(ms)-1].name+`": invalid character '}'`, strings.TrimSuffix(valid, "}")+",}")
	add(ruleOnce, "member "+bytesMember+" twice, with one value", `member "`+bytesMember+`" appears twice`, ms.with(bytesMember, ms.value(bytesMember)).text())
	add(ruleOnce, "member type twice, with one value", `member "type" appears twice`, ms.with("type", ms.value("type")).text())
	add(ruleMembers, "an unknown member", `unknown member "comment"`, ms.with("comment", quote("made by hand")).text())
	add(ruleMembers, "no hashes", `no member "hashes"`, ms.without("hashes").text())
	add(ruleMembers, "no type", `no member "type"`, ms.without("type").text())
	add(ruleCase, "type spelled Type", `no member "type"`, ms.rename("type", "Type").text())
	add(ruleCase, bytesMember+" in upper case", "case-sensitive", ms.rename(bytesMember, strings.ToUpper(bytesMember)).text())
	add(ruleNull, "hashes null", "hashes: want an array, got null", ms.set("hashes", "null").text())
	add(ruleNull, bytesMember+" null", bytesMember+": want a string, got null", ms.set(bytesMember, "null").text())
	add(ruleNull, "type null", "type: want a string, got null", ms.set("type", "null").text())
	typ, _ := strconv.Unquote(ms.value("type"))
	v2 := strings.TrimSuffix(typ, "v1") + "v2"
	add(ruleType, "type of version 2", "type "+quote(v2), ms.set("type", quote(v2)).text())
	add(ruleType, "type without its prefix", "type "+quote(strings.TrimPrefix(typ, "affine-ledger/")), ms.set("type", quote(strings.TrimPrefix(typ, "affine-ledger/"))).text())

	var hs []string
	if err := json.Unmarshal([]byte(ms.value("hashes")), &hs); err != nil || len(hs) < 2 {
		t.Fatalf("hashes %s: want two or more", ms.value("hashes"))
	}
	withHash := func(h any) string {
		out := append([]any{h}, anys(hs[1:])...)
		b, _ := json.Marshal(out)
		return string(b)
	}
	add(ruleHex, "a hash in upper case", "hashes[0]: want 64 lower-case hex digits", ms.set("hashes", withHash(strings.ToUpper(hs[0]))).text())
	mixed := hs[0]
	for i := 0; i < len(mixed); i++ {
		if mixed[i] >= 'a' && mixed[i] <= 'f' {
			mixed = mixed[:i] + strings.ToUpper(mixed[i:i+1]) + mixed[i+1:]
			break
		}
	}
	add(ruleHex, "a hash with one upper-case digit", "hashes[0]: want 64 lower-case hex digits", ms.set("hashes", withHash(mixed)).text())
	add(ruleHex, "a hash of 62 digits", "hashes[0]: want 64 lower-case hex digits, got 62", ms.set("hashes", withHash(hs[0][:62])).text())
	add(ruleHex, "a hash with 0x", "hashes[0]: want 64 lower-case hex digits, got 66", ms.set("hashes", withHash("0x"+hs[0])).text())
	add(ruleHex, "a hash as a number", "hashes[0]: want a string", ms.set("hashes", withHash(7)).text())
	add(ruleHex, "a hash null", "hashes[0]: want a string, got null", ms.set("hashes", withHash(nil)).text())
	add(ruleArray, "hashes as one string", "hashes: want an array", ms.set("hashes", quote(hs[0])).text())
	add(ruleArray, "hashes as an object", "hashes: want an array", ms.set("hashes", `{"0":`+quote(hs[0])+`}`).text())

	add(ruleBase64, bytesMember+" without its padding", bytesMember+": base64", ms.set(bytesMember, quote(strings.TrimRight(b64s, "="))).text())
	// With padding, the last digit carries bits that are padding (2 or 4),
	// the lowest among them.
	last := len(strings.TrimRight(b64s, "=")) - 1
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	d := strings.IndexByte(alphabet, b64s[last])
	nonzero := b64s[:last] + string(alphabet[d^1]) + b64s[last+1:]
	add(ruleBase64, bytesMember+" with non-zero padding bits", bytesMember+": base64", ms.set(bytesMember, quote(nonzero)).text())
	add(ruleBase64, bytesMember+" with a line break after 76 characters", bytesMember+": line break in base64", ms.set(bytesMember, quote(b64s[:76]+"\n"+b64s[76:])).text())
	add(ruleBase64, bytesMember+" with a space", bytesMember+": base64", ms.set(bytesMember, quote(b64s[:76]+" "+b64s[76:])).text())
	url := strings.NewReplacer("+", "-", "/", "_").Replace(b64s)
	add(ruleBase64, bytesMember+" in the URL-safe alphabet", bytesMember+": base64", ms.set(bytesMember, quote(url)).text())
	add(ruleBase64, bytesMember+" as an array of bytes", bytesMember+": want a string", ms.set(bytesMember, "[1,2,3]").text())

	*l = append(*l, proofReject{Name: "the valid proof padded with spaces to one byte over 4 MiB", Section: secForm, Rule: ruleSize,
		Exit: exitNoProof, Error: fmt.Sprintf("more than %d bytes", proofs.MaxProofFile), File: valid, PadTo: proofs.MaxProofFile + 1})
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// inclusionRejects builds the reject cases of proof-inclusion.json from
// its valid proof p, whose block is validator 0's (verifytest.Key).
func inclusionRejects(t *testing.T, p *proofs.InclusionProof, stored []proofReject, update bool) []proofReject {
	r := &rejectSigner{t: t, update: update, stored: storedBlockSignatures(stored)}
	k, other := verifytest.Key(0), verifytest.Key(1)
	blk, err := record.DecodeBlock(p.Block)
	if err != nil {
		t.Fatal(err)
	}
	if blk.Validator != k.Public() {
		t.Fatalf("the valid proof's block is %s's, not verifytest.Key(0)'s", blk.Validator)
	}
	forge := func(edit func(q *proofs.InclusionProof)) string {
		q := *p
		q.Hashes = append([]record.Hash(nil), p.Hashes...)
		q.Transcript = append([]byte(nil), p.Transcript...)
		edit(&q)
		return inclusionMembers(&q).text()
	}
	var l rejectList
	step := func(n int, name, want, file string) {
		l.add(secInclusion, fmt.Sprintf("step %d", n), exitNoVerify, name, want, file)
	}

	// Step 1: the block.
	name := "block signed by another key"
	msg, err := blk.SigningBytes()
	if err != nil {
		t.Fatal(err)
	}
	forged := &record.Block{Header: blk.Header, Signature: r.sign(name, other, msg)}
	step(1, name, "block: block of "+blk.Validator.String()+" at height 2: bad signature", forge(func(q *proofs.InclusionProof) { q.Block = r.encode(forged) }))
	domain, otherDomain, otherFormat := record.BlockDomain, record.BlockDomainV1, record.BlockFormatV1
	if blk.Format == record.BlockFormatV1 {
		domain, otherDomain, otherFormat = otherDomain, domain, record.BlockFormat
	}
	name = fmt.Sprintf("block signed under the domain of format %d", otherFormat)
	otherMsg := append([]byte(otherDomain), msg[len(domain):]...)
	forged = &record.Block{Header: blk.Header, Signature: r.sign(name, k, otherMsg)}
	step(1, name, "bad signature", forge(func(q *proofs.InclusionProof) { q.Block = r.encode(forged) }))
	step(1, "block with a byte after its record", "block: block:", forge(func(q *proofs.InclusionProof) { q.Block = append(q.Block, 0) }))
	step(1, "block that is the transcript", "block: block:", forge(func(q *proofs.InclusionProof) { q.Block = q.Transcript }))

	// Step 2: the tree size.
	step(2, "tree_size 0", "tree size 0, the block's checkpoint has 15", forge(func(q *proofs.InclusionProof) { q.TreeSize = 0 }))

	// Step 3: the transcript's bytes and cid.
	step(3, "cid of another record (the block)", "the transcript bytes hash to "+p.CID+", the proof names "+codec.Sum(p.Block).String(),
		forge(func(q *proofs.InclusionProof) { q.CID = codec.Sum(q.Block).String() }))

	// Step 4: the transcript.
	step(4, "transcript with a byte after its record, cid its bytes'", "transcript:", forge(func(q *proofs.InclusionProof) {
		q.Transcript = append(q.Transcript, 0)
		q.CID = codec.Sum(q.Transcript).String()
	}))
	step(4, "transcript that is the block, cid its bytes'", "transcript:", forge(func(q *proofs.InclusionProof) {
		q.Transcript = q.Block
		q.CID = codec.Sum(q.Transcript).String()
	}))
	tr, err := record.DecodeTranscript(p.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	step(4, "transcript of another validator, cid its bytes'", "the transcript names validator "+other.Public().String(),
		forge(func(q *proofs.InclusionProof) {
			c := *tr
			c.Validator = other.Public()
			if c.Seed != nil { // format 2 derives the challenge for its validator
				if c.Challenge, err = c.Seed.Derive(c.Validator, c.Env, c.EnvVersion); err != nil {
					t.Fatal(err)
				}
			}
			if q.Transcript, _, err = c.Encode(); err != nil {
				t.Fatal(err)
			}
			q.CID = codec.Sum(q.Transcript).String()
		}))

	// Step 5: the audit path.
	step(5, "leaf_index equal to tree_size", "leaf 15 of 15", forge(func(q *proofs.InclusionProof) { q.LeafIndex = 15 }))
	step(5, "leaf_index 5, the leaf before", "leaf 5 of 15", forge(func(q *proofs.InclusionProof) { q.LeafIndex = 5 }))
	step(5, "path with one hash too many", "leaf 6 of 15", forge(func(q *proofs.InclusionProof) { q.Hashes = append(q.Hashes, q.Hashes[0]) }))
	step(5, "path without its last hash", "leaf 6 of 15", forge(func(q *proofs.InclusionProof) { q.Hashes = q.Hashes[:len(q.Hashes)-1] }))
	step(5, "path with its first two hashes swapped", "leaf 6 of 15", forge(func(q *proofs.InclusionProof) { q.Hashes[0], q.Hashes[1] = q.Hashes[1], q.Hashes[0] }))
	step(5, "path reversed", "leaf 6 of 15", forge(func(q *proofs.InclusionProof) {
		for i, j := 0, len(q.Hashes)-1; i < j; i, j = i+1, j-1 {
			q.Hashes[i], q.Hashes[j] = q.Hashes[j], q.Hashes[i]
		}
	}))
	step(5, "empty path", "leaf 6 of 15", forge(func(q *proofs.InclusionProof) { q.Hashes = []record.Hash{} }))

	// The file form.
	ms := inclusionMembers(p)
	formRejects(t, &l, ms, "transcript", "block")
	add := func(rule, name, want, file string) { l.add(secForm, rule, exitNoProof, name, want, file) }
	add(ruleOnce, "leaf_index twice, with one value", `member "leaf_index" appears twice`, ms.with("leaf_index", ms.value("leaf_index")).text())
	add(ruleOnce, "cid twice, with one value", `member "cid" appears twice`, ms.with("cid", ms.value("cid")).text())
	add(ruleCase, "leaf_index spelled Leaf_Index", "case-sensitive", ms.rename("leaf_index", "Leaf_Index").text())
	add(ruleCase, "leaf_index spelled leafIndex", `unknown member "leafIndex"`, ms.rename("leaf_index", "leafIndex").text())
	add(ruleNull, "leaf_index null", "leaf_index: want a non-negative integer, got null", ms.set("leaf_index", "null").text())
	add(ruleNull, "cid null", "cid: want a string, got null", ms.set("cid", "null").text())
	add(ruleMembers, "the members of a consistency proof under the inclusion type", `unknown member "older"`,
		members{ms[0], {"older", ms.value("block")}, {"newer", ms.value("block")}, {"hashes", ms.value("hashes")}}.text())
	for _, n := range []struct{ name, text, want string }{
		{"leaf_index with an exponent", "6e0", "leaf_index: want a non-negative integer, got 6e0"},
		{"leaf_index with an upper-case exponent", "0.6E1", "leaf_index: want a non-negative integer, got 0.6E1"},
		{"leaf_index with a leading zero", "06", `after member "leaf_index": invalid character '6'`},
		{"leaf_index with a fraction", "6.0", "leaf_index: want a non-negative integer, got 6.0"},
		{"leaf_index with a sign", "-6", "leaf_index: want a non-negative integer, got -6"},
		{"leaf_index as a string", `"6"`, `leaf_index: want a non-negative integer, got "6"`},
		{"tree_size with an exponent", "1.5e1", "tree_size: want a non-negative integer, got 1.5e1"},
		{"tree_size with a leading zero", "015", `after member "tree_size": invalid character '1'`},
	} {
		member := strings.SplitN(n.name, " ", 2)[0]
		add(ruleInteger, n.name, n.want, ms.set(member, n.text).text())
	}
	c, err := cid.Decode(p.CID)
	if err != nil {
		t.Fatal(err)
	}
	base58, err := c.StringOfBase(multibase.Base58BTC)
	if err != nil {
		t.Fatal(err)
	}
	upper, err := c.StringOfBase(multibase.Base32Upper)
	if err != nil {
		t.Fatal(err)
	}
	// The last digit of 36 bytes in base32 carries 4 bits of the CID and
	// one unused bit: another digit with that bit set decodes to the same
	// CID.
	const b32 = "abcdefghijklmnopqrstuvwxyz234567"
	lastDigit := strings.IndexByte(b32, p.CID[len(p.CID)-1])
	unused := p.CID[:len(p.CID)-1] + string(b32[lastDigit|1])
	if lastDigit&1 != 0 {
		t.Fatalf("cid %s ends in a digit with its unused bit set", p.CID)
	}
	raw, err := cid.V1Builder{Codec: cid.Raw, MhType: multihash.SHA2_256}.Sum(p.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct{ name, text, want string }{
		{"cid in base58btc", base58, quote(base58) + " is not the canonical text of its CID"},
		{"cid in upper-case base32", upper, quote(upper) + " is not the canonical text of its CID"},
		{"cid with the unused bit of its last digit set", unused, quote(unused) + " is not the canonical text of its CID"},
		{"cid with base32 padding", p.CID + "====", quote(p.CID+"====") + " is not a CID"},
		{"cid of codec raw over the transcript's bytes", raw.String(), raw.String() + " is not a ledger address"},
		{"cid that is no CID", "transcript-6", `"transcript-6" is not a CID`},
		{"cid empty", "", "empty"},
	} {
		add(ruleCID, n.name, "cid: "+n.want, ms.set("cid", quote(n.text)).text())
	}
	return l
}

// consistencyRejects builds the reject cases of proof-consistency.json
// from its valid proof p, from height 0 (size 5) to height 2 (size 15) of
// validator 0's log.
func consistencyRejects(t *testing.T, p *proofs.ConsistencyProof, stored []proofReject, update bool) []proofReject {
	r := &rejectSigner{t: t, update: update, stored: storedBlockSignatures(stored)}
	k, other := verifytest.Key(0), verifytest.Key(1)
	b0, err := record.DecodeBlock(p.Older)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := record.DecodeBlock(p.Newer)
	if err != nil {
		t.Fatal(err)
	}
	if b0.Validator != k.Public() || b0.Height != 0 || b2.Height != 2 || b0.Checkpoint.Size != 5 || b2.Checkpoint.Size != 15 || len(p.Hashes) < 2 {
		t.Fatalf("the valid proof is not of validator 0 from height 0 (size 5) to 2 (size 15)")
	}
	if b0.Format != b2.Format {
		t.Fatalf("the valid proof's blocks are of formats %d and %d", b0.Format, b2.Format)
	}
	// hdr copies a header with its own link slices, then changes it.
	hdr := func(h record.Header, change func(*record.Header)) record.Header {
		h.Transcripts = append([]codec.Link(nil), h.Transcripts...)
		h.Decisions = append([]codec.Link(nil), h.Decisions...)
		change(&h)
		return h
	}
	proof := func(older, newer []byte, hashes []record.Hash) string {
		return consistencyMembers(&proofs.ConsistencyProof{Type: p.Type, Older: older, Newer: newer, Hashes: hashes}).text()
	}
	hashes := func(edit func(hs []record.Hash) []record.Hash) []record.Hash {
		return edit(append([]record.Hash(nil), p.Hashes...))
	}
	none := []record.Hash{}
	var l rejectList
	rule := func(n int, name, want, file string) {
		l.add(secConsistency, fmt.Sprintf("rule %d", n), exitNoVerify, name, want, file)
	}

	// Rule 1: both blocks verify, of one validator and one ledger.
	name := "older block signed by another key"
	msg, err := b0.SigningBytes()
	if err != nil {
		t.Fatal(err)
	}
	forged := r.encode(&record.Block{Header: b0.Header, Signature: r.sign(name, other, msg)})
	rule(1, name, "older block: block of "+b0.Validator.String()+" at height 0: bad signature", proof(forged, p.Newer, p.Hashes))
	name = "newer block signed by another key"
	msg, err = b2.SigningBytes()
	if err != nil {
		t.Fatal(err)
	}
	forged = r.encode(&record.Block{Header: b2.Header, Signature: r.sign(name, other, msg)})
	rule(1, name, "newer block: block of "+b2.Validator.String()+" at height 2: bad signature", proof(p.Older, forged, p.Hashes))
	rule(1, "newer block with a byte after its record", "newer block: block:", proof(p.Older, append(append([]byte(nil), p.Newer...), 0), p.Hashes))
	name = "blocks of two validators (the older validator 1's, signed by it)"
	rule(1, name, "blocks of two validators, "+other.Public().String()+" and "+k.Public().String(),
		proof(r.block(name, other, hdr(b0.Header, func(h *record.Header) { h.Validator = other.Public() })), p.Newer, p.Hashes))
	// The cases of formats and networks need blocks of either format:
	// v1 and v2 make a header one of format 1 (no network) or 2 (the test
	// network, if it named none), and newer1 and newer2 the newer block.
	v1 := func(h *record.Header) { h.Format, h.Net = record.BlockFormatV1, record.Network{} }
	v2 := func(h *record.Header) {
		if h.Format == record.BlockFormatV1 {
			h.Format, h.Net = record.BlockFormat, recordtest.Network
		}
	}
	newerAs := func(name string, format uint64, as func(*record.Header)) []byte {
		if b2.Format == format {
			return p.Newer
		}
		return r.block(name, k, hdr(b2.Header, as))
	}
	newer1 := func(name string) []byte { return newerAs(name, record.BlockFormatV1, v1) }
	newer2 := func(name string) []byte { return newerAs(name, record.BlockFormat, v2) }
	describe := func(h record.Header) string {
		if h.Format == record.BlockFormatV1 {
			return "format 1 (no network)"
		}
		return fmt.Sprintf("format %d %s", h.Format, h.Net)
	}
	otherFormat := hdr(b0.Header, v2)
	if b0.Format != record.BlockFormatV1 {
		otherFormat = hdr(b0.Header, v1)
	}
	name = fmt.Sprintf("blocks of two formats (the older of format %d)", otherFormat.Format)
	rule(1, name, "blocks of two ledgers: "+describe(otherFormat)+" and "+describe(b2.Header), proof(r.block(name, k, otherFormat), p.Newer, p.Hashes))
	name = "blocks of two subnets (both of format 2, the older of netuid + 1)"
	rule(1, name, "blocks of two ledgers", proof(r.block(name, k, hdr(b0.Header, func(h *record.Header) {
		v2(h)
		h.Net.Netuid++
	})), newer2(name), p.Hashes))
	name = "blocks of two chains (both of format 2, the older of another genesis hash)"
	rule(1, name, "blocks of two ledgers", proof(r.block(name, k, hdr(b0.Header, func(h *record.Header) {
		v2(h)
		h.Net.Genesis[0] ^= 1
	})), newer2(name), p.Hashes))

	// Rule 2: heights in order, one block at one height.
	name = "two blocks at height 2, of format 2 (the older of time_ms + 1)"
	rule(2, name, "two different signed blocks at height 2: the validator equivocated", proof(r.block(name, k, hdr(b2.Header, func(h *record.Header) {
		v2(h)
		h.TimeMS++
	})), newer2(name), none))
	name = "two blocks at height 2, of format 1 (the older of time_ms + 1)"
	rule(2, name, "two different signed blocks at height 2, of format 1: they name no network", proof(r.block(name, k, hdr(b2.Header, func(h *record.Header) {
		v1(h)
		h.TimeMS++
	})), newer1(name), none))
	rule(2, "older at height 2, newer at height 0, sizes in order", "the older block is at height 2, above the newer's 0",
		proof(r.block("older at height 2, newer at height 0, sizes in order", k, hdr(b0.Header, func(h *record.Header) {
			h.Height, h.Prev = 2, b2.Prev
		})), p.Older, none))

	// Rule 3: sizes in order.
	name = "older log larger (the newer at height 3, size 5)"
	rule(3, name, "the older log has 15 transcripts, the newer 5",
		proof(p.Newer, r.block(name, k, hdr(b0.Header, func(h *record.Header) { h.Height, h.Prev = 3, codec.LinkTo(codec.Sum(p.Newer)) })), none))

	// Rule 4: the proof, from the empty log and otherwise.
	empty := func(h *record.Header) {
		h.Transcripts = []codec.Link{}
		h.Checkpoint = record.Checkpoint{Size: 0, Root: record.EmptyRoot()}
	}
	name = "from the empty log, with a hash"
	rule(4, name, "from the empty log the proof must be empty", proof(r.block(name, k, hdr(b0.Header, empty)), p.Newer, p.Hashes[:1]))
	name = "from the empty log, its root not SHA-256 of nothing"
	rule(4, name, "from the empty log the proof must be empty and the root SHA-256 of nothing",
		proof(r.block(name, k, hdr(b0.Header, func(h *record.Header) { empty(h); h.Checkpoint.Root = b0.Checkpoint.Root })), p.Newer, none))
	name = "from the empty log, its root all zeros"
	rule(4, name, "from the empty log the proof must be empty and the root SHA-256 of nothing",
		proof(r.block(name, k, hdr(b0.Header, func(h *record.Header) { empty(h); h.Checkpoint.Root = record.Hash{} })), p.Newer, none))
	name = "from the empty log to the empty log, the newer root not SHA-256 of nothing"
	older := r.block(name, k, hdr(b0.Header, empty))
	rule(4, name, "the newer log is empty too, but its root is "+b0.Checkpoint.Root.String(),
		proof(older, r.block(name, k, hdr(b0.Header, func(h *record.Header) {
			empty(h)
			h.Height, h.Prev, h.Checkpoint.Root = 1, codec.LinkTo(codec.Sum(older)), b0.Checkpoint.Root
		})), none))
	rule(4, "proof with one hash too many", "size 5 to 15", proof(p.Older, p.Newer, hashes(func(hs []record.Hash) []record.Hash { return append(hs, hs[0]) })))
	rule(4, "proof without its last hash", "size 5 to 15", proof(p.Older, p.Newer, hashes(func(hs []record.Hash) []record.Hash { return hs[:len(hs)-1] })))
	rule(4, "proof without its first hash", "size 5 to 15", proof(p.Older, p.Newer, hashes(func(hs []record.Hash) []record.Hash { return hs[1:] })))
	rule(4, "proof with its first two hashes swapped", "size 5 to 15", proof(p.Older, p.Newer, hashes(func(hs []record.Hash) []record.Hash {
		hs[0], hs[1] = hs[1], hs[0]
		return hs
	})))
	rule(4, "empty proof between sizes 5 and 15", "size 5 to 15", proof(p.Older, p.Newer, none))
	rule(4, "one block twice, with a hash", "size 15 to 15", proof(p.Newer, p.Newer, p.Hashes[:1]))
	name = "equal sizes, two roots (the older at height 1, its root changed)"
	rule(4, name, "size 15 to 15", proof(r.block(name, k, hdr(b2.Header, func(h *record.Header) {
		h.Height = 1
		h.Checkpoint.Root[0] ^= 1
	})), p.Newer, none))

	// The file form.
	ms := consistencyMembers(p)
	formRejects(t, &l, ms, "older", "newer")
	add := func(rule, name, want, file string) { l.add(secForm, rule, exitNoProof, name, want, file) }
	add(ruleOnce, "newer twice, the second another block", `member "newer" appears twice`, ms.with("newer", ms.value("older")).text())
	add(ruleNull, "newer null", "newer: want a string, got null", ms.set("newer", "null").text())
	add(ruleMembers, "the members of an inclusion proof under the consistency type", `unknown member "transcript"`,
		members{ms[0], {"transcript", ms.value("older")}, {"cid", quote(codec.Sum(p.Older).String())}, {"leaf_index", "0"},
			{"tree_size", "5"}, {"hashes", ms.value("hashes")}, {"block", ms.value("newer")}}.text())
	add(ruleMembers, "an inclusion proof's leaf_index added", `unknown member "leaf_index"`, ms.with("leaf_index", "0").text())
	return l
}

// checkProofRejects asserts that every reject case is refused as its exit
// code says, for the reason its error names: exit 2 by ReadProof
// (ErrProofFormat), exit 1 by VerifyProof (ErrProof) after ReadProof took
// the file. And that the cases are named once each and every rule is
// broken by a file that differs from the valid one.
func checkProofRejects(t *testing.T, file string, valid []byte, cases []proofReject) {
	t.Helper()
	names := map[string]bool{}
	for _, c := range cases {
		if names[c.Name] {
			t.Errorf("%s: two reject cases named %q", file, c.Name)
		}
		names[c.Name] = true
		for i := 0; i < len(c.File); i++ {
			if c.File[i] >= 0x80 {
				t.Errorf("%s %q: a byte of the file is not ASCII", file, c.Name)
				break
			}
		}
		data := c.Bytes()
		if bytes.Equal(data, valid) {
			t.Errorf("%s %q: the valid proof's bytes", file, c.Name)
		}
		p, err := proofs.ReadProof(bytes.NewReader(data))
		var got error
		var gotExit int
		switch {
		case err != nil:
			got, gotExit = err, exitNoProof
			if !errors.Is(err, proofs.ErrProofFormat) {
				t.Errorf("%s %q: read error does not wrap ErrProofFormat: %v", file, c.Name, err)
			}
		default:
			_, got = proofs.VerifyProof(p)
			gotExit = exitNoVerify
			if got != nil && !errors.Is(got, proofs.ErrProof) {
				t.Errorf("%s %q: error does not wrap ErrProof: %v", file, c.Name, got)
			}
		}
		switch {
		case got == nil:
			t.Errorf("%s %q (%s, %s): verifies", file, c.Name, c.Section, c.Rule)
		case gotExit != c.Exit:
			t.Errorf("%s %q (%s, %s): exit %d, want %d: %v", file, c.Name, c.Section, c.Rule, gotExit, c.Exit, got)
		case !strings.Contains(got.Error(), c.Error):
			t.Errorf("%s %q (%s, %s): refused for another reason than %q: %v", file, c.Name, c.Section, c.Rule, c.Error, got)
		}
	}
}
