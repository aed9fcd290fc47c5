package subtensor

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/centrifuge/go-substrate-rpc-client/v4/types"
	"github.com/centrifuge/go-substrate-rpc-client/v4/types/codec"

	"github.com/affine-ledger/ledger/chain"
	"github.com/affine-ledger/ledger/chain/scale"
)

// Phases of an event record, as record takes them.
const (
	finalization   = -1
	initialization = -2
)

// record encodes one EventRecord: the phase (ApplyExtrinsic(phase), or
// finalization or initialization), the pallet and event indices, the
// event's fields as is and n topics.
func record(phase int, pallet, event uint8, fields []byte, topics int) []byte {
	var e scale.Encoder
	switch phase {
	case finalization:
		e.U8(1)
	case initialization:
		e.U8(2)
	default:
		e.U8(0)
		e.U32(uint32(phase))
	}
	e.U8(pallet)
	e.U8(event)
	e.Fixed(fields)
	e.Compact(uint64(topics))
	for i := range topics {
		e.Fixed(bytes.Repeat([]byte{byte(i + 1)}, 32))
	}
	return e.Bytes()
}

// events encodes a Vec<EventRecord> of the records.
func events(records ...[]byte) []byte {
	var e scale.Encoder
	e.Compact(uint64(len(records)))
	for _, r := range records {
		e.Fixed(r)
	}
	return e.Bytes()
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func fill(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }

// sampleMetadata is go-substrate-rpc-client's real v14 metadata of a
// Substrate node: System 0, Balances 6; DispatchInfo {weight u64, class,
// pays_fee}; ModuleError {index u8, error u8} (before error became
// [u8; 4]); AccountId32 [u8; 32]; Balance u128.
func sampleMetadata(t testing.TB) (*metadataV14, *types.Metadata) {
	t.Helper()
	raw, err := codec.HexDecodeString(types.MetadataV14Data)
	if err != nil {
		t.Fatal(err)
	}
	return bothDecoders(t, raw)
}

// bothDecoders decodes raw metadata with ours and with the library's.
func bothDecoders(t testing.TB, raw []byte) (*metadataV14, *types.Metadata) {
	t.Helper()
	m, err := decodeMetadataV14(raw)
	if err != nil {
		t.Fatal(err)
	}
	var lib types.Metadata
	if err := codec.Decode(raw, &lib); err != nil {
		t.Fatal(err)
	}
	return m, &lib
}

// sampleEvents are events of a block under sampleMetadata: extrinsic 1
// fails with Balances' error 2 (InsufficientBalance), 3 with Token's
// variant 0, 4 with BadOrigin; 0 and 2 succeed.
func sampleEvents() []byte {
	info := cat(fill(0x11, 8), []byte{1, 0}) // weight, Operational, Pays::Yes
	who, amount := fill(0xaa, 32), fill(0x01, 16)
	return events(
		record(initialization, 0, 3, who, 0),                 // System.NewAccount
		record(0, 0, 0, info, 0),                             // System.ExtrinsicSuccess
		record(1, 6, 8, cat(who, amount), 0),                 // Balances.Withdraw
		record(1, 0, 1, cat([]byte{3, 6, 2}, info), 0),       // ExtrinsicFailed(Module{6, 2})
		record(2, 6, 2, cat(who, fill(0xbb, 32), amount), 2), // Balances.Transfer
		record(2, 0, 0, info, 0),
		record(3, 0, 1, cat([]byte{7, 0}, info), 0),     // ExtrinsicFailed(Token(0))
		record(4, 0, 1, cat([]byte{2}, info), 1),        // ExtrinsicFailed(BadOrigin)
		record(finalization, 6, 7, cat(who, amount), 0), // Balances.Deposit
	)
}

// TestDecodeEventsSample decodes events under a real runtime's metadata:
// the events' and errors' names are the library's for the same indices.
func TestDecodeEventsSample(t *testing.T) {
	t.Parallel()
	m, lib := sampleMetadata(t)
	got, err := decodeEvents(m, sampleEvents())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		extrinsic int
		pallet    uint8
		event     uint8
	}{{-1, 0, 3}, {0, 0, 0}, {1, 6, 8}, {1, 0, 1}, {2, 6, 2}, {2, 0, 0}, {3, 0, 1}, {4, 0, 1}, {-1, 6, 7}}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i, w := range want {
		module, event, err := lib.FindEventNamesForEventID(types.EventID{w.pallet, w.event})
		if err != nil {
			t.Fatal(err)
		}
		if g := got[i]; g.extrinsic != w.extrinsic || g.pallet != string(module) || g.name != string(event) {
			t.Errorf("event %d: %d %s.%s, want %d %s.%s", i, g.extrinsic, g.pallet, g.name, w.extrinsic, module, event)
		}
	}
	tokenError := lib.AsMetadataV14.EfficientLookup[24].Def.Variant.Variants[0].Name
	balancesError := lib.AsMetadataV14.EfficientLookup[364].Def.Variant.Variants[2].Name
	for _, c := range []struct {
		extrinsic int
		want      string // the dispatch error, "" for success
	}{
		{0, ""}, {1, "Balances." + string(balancesError)}, {2, ""}, {3, "Token." + string(tokenError)}, {4, "BadOrigin"},
	} {
		fail, err := outcome(got, c.extrinsic)
		if err != nil {
			t.Fatalf("extrinsic %d: %v", c.extrinsic, err)
		}
		if s := fmt.Sprint(fail); (fail == nil) != (c.want == "") || (fail != nil && s != c.want) {
			t.Errorf("extrinsic %d: %v, want %q", c.extrinsic, fail, c.want)
		}
		if fail != nil && !errors.Is(refusal(fail), chain.ErrDispatch) {
			t.Errorf("extrinsic %d: %v is not a dispatch error", c.extrinsic, refusal(fail))
		}
	}
	if _, err := outcome(got, 5); err == nil || !strings.Contains(err.Error(), "0 outcome events") {
		t.Fatalf("extrinsic 5, which the block does not have: %v", err)
	}
}

// subtensorMeta is syntheticMeta with the types of subtensor spec 425's
// events and errors that the client reads: System (0) with
// ExtrinsicSuccess {DispatchEventInfo} and ExtrinsicFailed
// {DispatchError, DispatchEventInfo}, where ModuleError is {index u8,
// error [u8; 4]} and Weight is {ref_time, proof_size} compacts; and
// SubtensorModule's (7) error enum, the variants at their index in
// pallets/subtensor/src/macros/errors.rs, and three weight events (at
// indices of this test's choosing) with a str, a Vec<u16>, an Option, a
// bit sequence and a u128 compact among their fields.
func subtensorMeta() types.Metadata {
	meta := syntheticMeta(nil)
	m := &meta.AsMetadataV14
	prim := func(id uint64, p types.Si0TypeDefPrimitive) types.PortableTypeV14 {
		return types.PortableTypeV14{ID: typeID(id), Type: types.Si1Type{Def: types.Si1TypeDef{IsPrimitive: true, Primitive: types.Si1TypeDefPrimitive{Si0TypeDefPrimitive: p}}}}
	}
	def := func(id uint64, d types.Si1TypeDef) types.PortableTypeV14 {
		return types.PortableTypeV14{ID: typeID(id), Type: types.Si1Type{Def: d}}
	}
	array := func(id, n, elem uint64) types.PortableTypeV14 {
		return def(id, types.Si1TypeDef{IsArray: true, Array: types.Si1TypeDefArray{Len: types.U32(n), Type: typeID(elem)}})
	}
	variants := func(id uint64, vs ...types.Si1Variant) types.PortableTypeV14 {
		return def(id, types.Si1TypeDef{IsVariant: true, Variant: types.Si1TypeDefVariant{Variants: vs}})
	}
	v := func(name string, index uint8, fields ...uint64) types.Si1Variant {
		var fs []types.Si1Field
		for _, f := range fields {
			fs = append(fs, types.Si1Field{Type: typeID(f)})
		}
		return types.Si1Variant{Name: types.Text(name), Fields: fs, Index: types.U8(index)}
	}
	var subtensorErrors []types.Si1Variant
	for _, e := range subtensorErrorIndex {
		subtensorErrors = append(subtensorErrors, v(e.name, e.index))
	}
	m.Lookup.Types = append(m.Lookup.Types,
		prim(20, types.IsU8),
		array(21, 4, 20),
		composite(22, 20, 21), // ModuleError
		variants(23, v("FundsUnavailable", 0), v("OnlyProvider", 1)),                                                // TokenError
		variants(24, v("Other", 0), v("CannotLookup", 1), v("BadOrigin", 2), v("Module", 3, 22), v("Token", 7, 23)), // DispatchError
		prim(25, types.IsU64),
		def(26, types.Si1TypeDef{IsCompact: true, Compact: types.Si1TypeDefCompact{Type: typeID(25)}}),
		composite(27, 26, 26), // Weight
		variants(28, v("Normal", 0), v("Operational", 1), v("Mandatory", 2)),
		variants(29, v("Yes", 0), v("No", 1)),
		composite(30, 27, 28, 29), // DispatchEventInfo
		variants(31, v("ExtrinsicSuccess", 0, 30), v("ExtrinsicFailed", 1, 24, 30)),
		array(32, 32, 20),
		composite(33, 32), // AccountId32, H256
		prim(34, types.IsU16),
		variants(35, subtensorErrors...),
		prim(36, types.IsStr),
		def(37, types.Si1TypeDef{IsSequence: true, Sequence: types.Si1TypeDefSequence{Type: typeID(34)}}),
		variants(38, v("None", 0), v("Some", 1, 34)),
		def(39, types.Si1TypeDef{IsBitSequence: true, BitSequence: types.Si1TypeDefBitSequence{BitStoreType: typeID(20), BitOrderType: typeID(0)}}),
		prim(40, types.IsU128),
		def(41, types.Si1TypeDef{IsCompact: true, Compact: types.Si1TypeDefCompact{Type: typeID(40)}}),
		variants(42,
			v("WeightsSet", 14, 34, 34),
			v("WeightsCommitted", 94, 33, 34, 33),
			v("WeightsRevealed", 95, 33, 34, 33),
			v("Noted", 200, 36, 37, 38, 39, 41),
		),
	)
	m.Pallets = append([]types.PalletMetadataV14{{Name: "System", HasEvents: true, Events: types.EventMetadataV14{Type: typeID(31)}, Index: 0}}, m.Pallets...)
	for i := range m.Pallets {
		if m.Pallets[i].Name == "SubtensorModule" {
			m.Pallets[i].HasEvents, m.Pallets[i].Events.Type = true, typeID(42)
			m.Pallets[i].HasErrors, m.Pallets[i].Errors.Type = true, typeID(35)
		}
	}
	return meta
}

// subtensorErrorIndex are SubtensorModule's errors that the weight calls
// raise, at their index in the Error enum of subtensor spec 425
// (pallets/subtensor/src/macros/errors.rs, whose comment marks
// UidsLengthExceedUidsInSubNet as 32).
var subtensorErrorIndex = []struct {
	name  string
	index uint8
}{
	{"HotKeyNotRegisteredInSubNet", 4}, {"NotEnoughStakeToSetWeights", 10}, {"NeuronNoValidatorPermit", 15},
	{"WeightVecNotEqualSize", 16}, {"DuplicateUids", 17}, {"UidVecContainInvalidOne", 18},
	{"WeightVecLengthIsLow", 19}, {"MaxWeightExceeded", 27}, {"SettingWeightsTooFast", 29},
	{"IncorrectWeightVersionKey", 30}, {"UidsLengthExceedUidsInSubNet", 32}, {"NoWeightsCommitFound", 51},
	{"InvalidRevealCommitHashNotMatch", 52}, {"CommitRevealEnabled", 53}, {"CommitRevealDisabled", 54},
	{"MechanismDoesNotExist", 74}, {"TooManyUnrevealedCommits", 77}, {"ExpiredWeightCommit", 78},
	{"RevealTooEarly", 79}, {"CommittingWeightsTooFast", 81},
}

// errorIndex is the index of SubtensorModule's error name.
func errorIndex(t testing.TB, name string) uint8 {
	t.Helper()
	for _, e := range subtensorErrorIndex {
		if e.name == name {
			return e.index
		}
	}
	t.Fatalf("no error %s", name)
	return 0
}

// subtensorMetadata is subtensorMeta, encoded by the library and decoded
// by both decoders.
func subtensorMetadata(t testing.TB) (*metadataV14, *types.Metadata) {
	t.Helper()
	return bothDecoders(t, encodeMetadata(t, subtensorMeta()))
}

// libRecord encodes an EventRecord with go-substrate-rpc-client's types:
// phase, event id, fields, no topics.
func libRecord(t testing.TB, phase types.Phase, id types.EventID, fields ...any) []byte {
	t.Helper()
	var out []byte
	for _, v := range append(append([]any{phase, id}, fields...), []types.Hash{}) {
		b, err := codec.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

func applyPhase(i uint32) types.Phase {
	return types.Phase{IsApplyExtrinsic: true, AsApplyExtrinsic: i}
}

// libInfo is a DispatchEventInfo: weight {ref_time 2^32, proof_size 0},
// Normal, Pays::No.
var libInfo = types.DispatchInfo{
	Weight: types.Weight{RefTime: types.NewUCompactFromUInt(1 << 32), ProofSize: types.NewUCompactFromUInt(0)},
	Class:  types.DispatchClass{IsNormal: true}, PaysFee: types.Pays{IsNo: true},
}

// libSuccess and libFailed are System.ExtrinsicSuccess and
// ExtrinsicFailed of extrinsic i, encoded by the library; libFailed's
// error is SubtensorModule's (pallet 7) error index.
func libSuccess(t testing.TB, i uint32) []byte {
	return libRecord(t, applyPhase(i), types.EventID{0, 0}, libInfo)
}

func libFailed(t testing.TB, i uint32, err types.DispatchError) []byte {
	return libRecord(t, applyPhase(i), types.EventID{0, 1}, err, libInfo)
}

// stInfo is libInfo's encoding: ref_time's compact in 6 bytes,
// proof_size's in 1, class, pays_fee.
var stInfo = func() []byte {
	b, err := codec.Encode(libInfo)
	if err != nil || len(b) != 9 {
		panic(fmt.Sprintf("DispatchInfo %x: %v", b, err))
	}
	return b
}()

func moduleError(pallet, index uint8) types.DispatchError {
	return types.DispatchError{IsModule: true, ModuleError: types.ModuleError{Index: types.U8(pallet), Error: [4]types.U8{types.U8(index)}}}
}

// stNoted is SubtensorModule.Noted's fields: "hi", [1, 2], Some(9), 10
// bits, a u128 compact of 17 bytes.
var stNoted = cat([]byte{0x08, 'h', 'i'}, []byte{0x08, 1, 0, 2, 0}, []byte{1, 9, 0}, []byte{0x28, 0xff, 0x03}, cat([]byte{0x33}, fill(0xff, 16)))

// stEvents are a block's events under subtensorMeta where extrinsic 2 has
// outcome, the other extrinsics succeed.
func stEvents(t testing.TB, outcome []byte) []byte {
	return events(
		record(initialization, 7, 200, stNoted, 0),
		libSuccess(t, 0),
		record(1, 7, 14, []byte{1, 0, 3, 0}, 0), // WeightsSet of another extrinsic
		libSuccess(t, 1),
		outcome,
		record(finalization, 7, 200, stNoted, 3),
	)
}

// libEvents is what go-substrate-rpc-client's static decoder reads of
// stEvents.
type libEvents struct {
	types.EventRecords
	SubtensorModule_WeightsSet []struct {
		Phase       types.Phase
		Netuid, UID types.U16
		Topics      []types.Hash
	}
	SubtensorModule_Noted []struct {
		Phase  types.Phase
		Text   types.Text
		Values []types.U16
		Opt    types.OptionU16
		Bits   types.BitVec
		Big    types.UCompact
		Topics []types.Hash
	}
}

// TestDecodeEventsSubtensor: subtensor's weight errors are read by name
// from the metadata and each becomes package chain's error; the outcome
// events are encoded by the library, and the library's static decoder
// reads the same events from the bytes.
func TestDecodeEventsSubtensor(t *testing.T) {
	t.Parallel()
	m, lib := subtensorMetadata(t)
	for name, want := range subtensorRefusals {
		index := errorIndex(t, name)
		raw := stEvents(t, libFailed(t, 2, moduleError(7, index)))
		var le libEvents
		if err := types.EventRecordsRaw(raw).DecodeEventRecords(lib, &le); err != nil {
			t.Fatalf("library: %v", err)
		}
		if len(le.System_ExtrinsicSuccess) != 2 || len(le.System_ExtrinsicFailed) != 1 || len(le.SubtensorModule_Noted) != 2 ||
			le.System_ExtrinsicFailed[0].DispatchError.ModuleError.Error[0] != types.U8(index) || le.SubtensorModule_Noted[1].Text != "hi" {
			t.Fatalf("library decoded %+v", le)
		}
		got, err := decodeEvents(m, raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != 6 || got[0].name != "Noted" || got[0].extrinsic != -1 || got[2].name != "WeightsSet" || got[2].extrinsic != 1 {
			t.Fatalf("%s: %+v", name, got)
		}
		fail, err := outcome(got, 2)
		if err != nil || fail == nil {
			t.Fatalf("%s: %v %v", name, fail, err)
		}
		err = refusal(fail)
		if !errors.Is(err, want) || !chain.Refused(err) || !strings.Contains(err.Error(), "SubtensorModule."+name) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
		if fail, err := outcome(got, 1); fail != nil || err != nil {
			t.Errorf("%s: extrinsic 1: %v %v", name, fail, err)
		}
	}
	// Errors other than a pallet's, and a Module error of a pallet
	// without errors.
	for _, c := range []struct {
		err  types.DispatchError
		want string
	}{
		{types.DispatchError{IsBadOrigin: true}, "BadOrigin"},
		{types.DispatchError{IsToken: true, TokenError: types.TokenError{IsNoFunds: true}}, "Token.FundsUnavailable"},
		{moduleError(18, 3), "Commitments error 3"},
		{moduleError(7, 250), "SubtensorModule error 250"},
	} {
		got, err := decodeEvents(m, stEvents(t, libFailed(t, 2, c.err)))
		if err != nil {
			t.Fatalf("%s: %v", c.want, err)
		}
		fail, err := outcome(got, 2)
		if err != nil || fail.String() != c.want || !errors.Is(refusal(fail), chain.ErrDispatch) {
			t.Errorf("%v %v, want %s", fail, err, c.want)
		}
	}
}

// TestRefusal: a dispatch error package chain does not name is
// chain.ErrDispatch, still a refusal, and says which it is.
func TestRefusal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		e    dispatchError
		want string
	}{
		{dispatchError{variant: "Module", module: true, palletIndex: 7, index: 10, pallet: "SubtensorModule", error: "NotEnoughStakeToSetWeights"}, "SubtensorModule.NotEnoughStakeToSetWeights"},
		{dispatchError{variant: "Module", module: true, palletIndex: 7, index: 250, pallet: "SubtensorModule"}, "SubtensorModule error 250"},
		{dispatchError{variant: "Module", module: true, palletIndex: 99, index: 1}, "Module pallet 99 error 1"},
		// Another pallet's error of a name subtensor uses is not subtensor's.
		{dispatchError{variant: "Module", module: true, palletIndex: 18, index: 0, pallet: "Commitments", error: "RevealTooEarly"}, "Commitments.RevealTooEarly"},
		{dispatchError{variant: "BadOrigin"}, "BadOrigin"},
		{dispatchError{variant: "Token", inner: "FundsUnavailable"}, "Token.FundsUnavailable"},
	} {
		err := refusal(&c.e)
		if !errors.Is(err, chain.ErrDispatch) || errors.Is(err, chain.ErrRevealTooEarly) || !chain.Refused(err) || !strings.HasSuffix(err.Error(), ": "+c.want) {
			t.Errorf("%+v: %v, want ErrDispatch naming %s", c.e, err, c.want)
		}
	}
}

// TestOutcome: exactly one outcome event for the extrinsic.
func TestOutcome(t *testing.T) {
	t.Parallel()
	failed := &dispatchError{variant: "BadOrigin"}
	ok := eventRecord{extrinsic: 1, pallet: "System", name: "ExtrinsicSuccess"}
	bad := eventRecord{extrinsic: 1, pallet: "System", name: "ExtrinsicFailed", failure: failed}
	other := eventRecord{extrinsic: 1, pallet: "SubtensorModule", name: "ExtrinsicSuccess"}
	for _, c := range []struct {
		name    string
		records []eventRecord
		fail    *dispatchError
		err     string
	}{
		{"success", []eventRecord{other, ok}, nil, ""},
		{"failure", []eventRecord{bad}, failed, ""},
		{"none", []eventRecord{other, {extrinsic: 2, pallet: "System", name: "ExtrinsicSuccess"}, {extrinsic: -1, pallet: "System", name: "ExtrinsicSuccess"}}, nil, "0 outcome events"},
		{"two", []eventRecord{ok, bad}, nil, "2 outcome events"},
		{"failed without error", []eventRecord{{extrinsic: 1, pallet: "System", name: "ExtrinsicFailed"}}, nil, "no dispatch error"},
	} {
		fail, err := outcome(c.records, 1)
		if fail != c.fail || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v %v", c.name, fail, err)
		}
	}
}
