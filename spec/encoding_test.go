package spec

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/internal/golden"
	"github.com/ipfs/go-cid"
)

// sample exercises every CBOR shape records use: keys of several lengths (to show the
// length-first order), negative and 64-bit integers, bytes, text outside ASCII, a nested
// map, a list, a bool, a link and a null link.
type sample struct {
	A        int64            `cbor:"a" json:"a"`
	Zeta     uint64           `cbor:"zeta" json:"zeta,string"`
	Bytes    []byte           `cbor:"bytes" json:"bytes"`
	Text     string           `cbor:"text" json:"text"`
	Nested   map[string]int64 `cbor:"nested" json:"nested"`
	List     []string         `cbor:"list" json:"list"`
	Flag     bool             `cbor:"flag" json:"flag"`
	Link     codec.Link       `cbor:"link" json:"link"`
	NoLink   codec.Link       `cbor:"no_link" json:"no_link"`
	Empty    []int64          `cbor:"empty" json:"empty"`
	Negative int64            `cbor:"bb" json:"bb"`
}

type encodingCase struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
	Hex   string `json:"hex"`
	CID   string `json:"cid"`
}

type rejectCase struct {
	Name string `json:"name"`
	Hex  string `json:"hex"`
	// Rule is "dag-cbor" where any strict DAG-CBOR decoder refuses the input, "canonical"
	// where it decodes but is not the canonical form (a decoder that re-encodes and compares
	// refuses it), and "ledger" where only ledger's record rules (no floats) refuse it.
	Rule string `json:"rule"`
}

func buildEncoding(t *testing.T) []encodingCase {
	leaf := map[string]string{"hello": "world"}
	leafBytes, leafCID, err := codec.Encode(leaf)
	if err != nil {
		t.Fatal(err)
	}
	s := sample{
		A: 1, Zeta: 1<<64 - 1, Bytes: []byte{0, 1, 2, 255}, Text: "héllo ✓",
		Nested: map[string]int64{"bb": 2, "a": -1, "ab": 300}, List: []string{"x", ""},
		Flag: true, Link: codec.LinkTo(leafCID), Empty: []int64{}, Negative: -1 << 40,
	}
	sBytes, sCID, err := codec.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return []encodingCase{
		{Name: "leaf", Value: leaf, Hex: hex.EncodeToString(leafBytes), CID: leafCID.String()},
		{Name: "sample", Value: s, Hex: hex.EncodeToString(sBytes), CID: sCID.String()},
	}
}

// Inputs every DAG-CBOR decoder must refuse for a map of text to integers.
var rejects = []rejectCase{
	{"non-shortest integer", "a1616118" + "01", "dag-cbor"},
	{"keys not length-first", "a2626161016162" + "02", "canonical"},
	{"duplicate key", "a2616101616102", "dag-cbor"},
	{"indefinite-length map", "bf616101ff", "dag-cbor"},
	{"trailing byte", "a1616101" + "00", "dag-cbor"},
	{"float value", "a16161fb3ff0000000000000", "ledger"},
}

func TestEncodingVectors(t *testing.T) {
	cases := buildEncoding(t)
	leaf, err := cid.Decode(cases[0].CID)
	if err != nil {
		t.Fatal(err)
	}
	data := golden.CheckJSON(t, "encoding.json", map[string]any{
		"note":           "spec/encoding.md. hex is the canonical DAG-CBOR; cid its CIDv1. value describes it in plain JSON (bytes as base64, the 64-bit integer as a string, links as CID strings).",
		"records":        cases,
		"reject":         rejects,
		"reject_by_rule": buildRuleRejects(leaf.Bytes()),
	})
	var back struct {
		Records      []encodingCase `json:"records"`
		Reject       []rejectCase   `json:"reject"`
		RejectByRule []ruleReject   `json:"reject_by_rule"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, c := range back.Records {
		raw, _ := hex.DecodeString(c.Hex)
		if got := codec.Sum(raw).String(); got != c.CID {
			t.Fatalf("%s: bytes hash to %s, file says %s", c.Name, got, c.CID)
		}
	}
	var s sample
	raw, _ := hex.DecodeString(back.Records[1].Hex)
	if err := codec.Unmarshal(raw, &s); err != nil {
		t.Fatalf("sample does not decode strictly: %v", err)
	}
	for _, r := range back.Reject {
		raw, _ := hex.DecodeString(r.Hex)
		var m map[string]int64
		if err := codec.Unmarshal(raw, &m); err == nil {
			t.Errorf("%s: % x accepted", r.Name, raw)
		}
	}
	// The file holds what buildRuleRejects returns (CheckJSON), and the
	// generated cases carry the error each must be refused with.
	if len(back.RejectByRule) == 0 {
		t.Fatal("encoding.json has no reject_by_rule cases")
	}
	checkRuleRejects(t, buildRuleRejects(leaf.Bytes()), leaf.Bytes())
}
