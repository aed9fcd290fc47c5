//go:build !(windows && arm64)

package subtensor

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/chain"
)

// The keys of the epoch counter's items for netuid 1. twox128 of the
// names is computed by an XXH64 written from the xxHash specification in
// Python, checked on SubtensorModule's prefix as subtensor's own tests
// spell it (658faa38…, pallets/subtensor/src/tests/migration.rs).
func TestEpochStorageKeys(t *testing.T) {
	t.Parallel()
	const prefix = "658faa385070e074c85bf6b568cf0555"
	for _, c := range []struct {
		got  []byte
		want string
	}{
		{keyLastEpochBlock(1), prefix + "90010c37124c14146041452f9ffba0df" + "0100"},
		{keySubnetEpochIndex(1), prefix + "4f101d7a30ae31c7ab3099206c5ae12b" + "0100"},
		{keyNetVec("Tempo", 1), prefix + "7641384bb339f3758acddfd7053d3317" + "0100"},
	} {
		if got := hex.EncodeToString(c.got); got != c.want {
			t.Errorf("key %s\n  want %s", got, c.want)
		}
	}
}

// TestParseMetadataStorage: the runtime counts epochs in storage when
// SubtensorModule declares both items, under that prefix.
func TestParseMetadataStorage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		pallet  string
		items   []string
		dynamic bool
	}{
		{"no storage", "", nil, false},
		{"before runtime 423", "SubtensorModule", []string{"Tempo", "LastMechansimStepBlock"}, false},
		{"one of the two", "SubtensorModule", []string{"Tempo", "LastEpochBlock"}, false},
		{"runtime 423", "SubtensorModule", []string{"Tempo", "LastEpochBlock", "PendingEpochAt", "SubnetEpochIndex"}, true},
		{"another pallet's", "Commitments", []string{"LastEpochBlock", "SubnetEpochIndex"}, false},
	} {
		meta := syntheticMeta([][3]any{{"CheckNonce", 2, 1}})
		if c.pallet != "" {
			meta = withStorage(meta, c.pallet, c.items...)
		}
		rt, err := ParseMetadata(hexMetadata(encodeMetadata(t, meta)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if rt.dynamicEpochs() != c.dynamic {
			t.Errorf("%s: counts epochs in storage: %v, want %v (%v)", c.name, rt.dynamicEpochs(), c.dynamic, rt.Storage)
		}
	}
}

// TestScheduleFallback: a runtime without the counter numbers epochs by
// get_epoch_index's formula, whatever its storage holds under the
// counter's keys: the metadata decides, not the storage.
func TestScheduleFallback(t *testing.T) {
	t.Parallel()
	node, c := newFakeNode(t, 3, 422, runtimeMeta(t, "Tempo"))
	node.set(1000, map[string][]byte{
		string(keyNetVec("Tempo", 3)):  le16(99),
		string(keyLastEpochBlock(3)):   le64(990),
		string(keySubnetEpochIndex(3)): le64(7),
	}, 0, "")
	p, err := c.Params(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Tempo != 99 || p.Schedule() != chain.SubtensorSchedule(3, 99) {
		t.Fatalf("tempo %d, schedule %+v; want get_epoch_index's %+v", p.Tempo, p.Schedule(), chain.SubtensorSchedule(3, 99))
	}
}

// TestScheduleStorageErrors: values that do not decode, or no schedule
// can hold, are errors naming the item.
func TestScheduleStorageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		last, index  []byte
		want         string
		wantSentinel error
	}{
		{"short LastEpochBlock", []byte{1, 2, 3, 4}, le64(1), "LastEpochBlock", nil},
		{"long SubnetEpochIndex", le64(1), make([]byte, 9), "SubnetEpochIndex", nil},
		{"index too large", le64(1), le64(1 << 60), "subnet 3", chain.ErrNoSchedule},
	} {
		node, cl := newFakeNode(t, 3, 425, runtimeMeta(t, "Tempo", "LastEpochBlock", "SubnetEpochIndex"))
		node.set(50, map[string][]byte{
			string(keyNetVec("Tempo", 3)):  le16(360),
			string(keyLastEpochBlock(3)):   c.last,
			string(keySubnetEpochIndex(3)): c.index,
		}, 0, "")
		_, err := cl.Params(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.wantSentinel != nil && !errors.Is(err, c.wantSentinel)) {
			t.Errorf("%s: %v; want an error naming %s", c.name, err, c.want)
		}
	}
}

// TestScheduleTempoZero: a subnet of tempo 0 runs no epochs (the runtime
// short-circuits should_run_epoch): its schedule is invalid.
func TestScheduleTempoZero(t *testing.T) {
	t.Parallel()
	node, c := newFakeNode(t, 3, 425, runtimeMeta(t, "Tempo", "LastEpochBlock", "SubnetEpochIndex"))
	node.set(50, map[string][]byte{string(keyNetVec("Tempo", 3)): le16(0), string(keySubnetEpochIndex(3)): le64(4)}, 0, "")
	p, err := c.Params(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Schedule().Valid() {
		t.Fatalf("tempo 0 numbers epochs: %+v", p.Schedule())
	}
}

// TestParamsMinAllowedWeights: Params reads the subnet's
// MinAllowedWeights (a u16 map keyed by netuid, Identity), and the
// runtime's default, 1024, where the subnet has none stored.
func TestParamsMinAllowedWeights(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		stored []byte
		want   uint16
	}{
		{"stored", le16(8), 8},
		{"absent", nil, 1024},
	} {
		node, cl := newFakeNode(t, 3, 422, runtimeMeta(t, "Tempo"))
		storage := map[string][]byte{string(keyNetVec("Tempo", 3)): le16(99)}
		if c.stored != nil {
			storage[string(keyNetVec("MinAllowedWeights", 3))] = c.stored
		}
		node.set(1000, storage, 0, "")
		p, err := cl.Params(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.MinAllowedWeights != c.want {
			t.Errorf("%s: min_allowed_weights %d, want %d", c.name, p.MinAllowedWeights, c.want)
		}
	}
}
