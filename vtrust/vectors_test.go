package vtrust

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/affine-ledger/ledger/internal/golden"
)

// spec/vectors/vtrust.json: outcome records with their bytes and CIDs, and
// whole epochs with their input and output. The test writes what the code
// computes (compared byte for byte, or rewritten by `make vectors`), then
// checks every entry of the file against the code again.

type vtrustVectors struct {
	Note     string          `json:"note"`
	Outcomes []outcomeVector `json:"outcomes"`
	Epochs   []epochVector   `json:"epochs"`
}

type outcomeVector struct {
	Outcome Outcome `json:"outcome"`
	Bytes   string  `json:"bytes"`
	CID     string  `json:"cid"`
}

type epochVector struct {
	Name   string `json:"name"`
	Input  Input  `json:"input"`
	Output Output `json:"output"`
}

func vectorEpochs() []struct {
	name  string
	world *world
} {
	return []struct {
		name  string
		world *world
	}{
		{"honest validators dethrone the champion", newWorld("A").miners("A", "B").
			validator("v1", 100_000_000_000).validator("v2", 200_000_000_000).validator("v3", 300_000_000_000).
			vote("v1", "A", "B", "cch").vote("v2", "A", "B", "cco").vote("v3", "A", "B", "hcc").
			outcome("v2", "v1", "v1 transcript", Agree).outcome("v3", "v2", "v2 transcript", Agree)},
		{"a score liar with most of the stake gets vTrust 0", newWorld("A").miners("A", "B").
			validator("honest1", 300).validator("honest2", 300).validator("liar", 1000).
			vote("honest1", "A", "B", "hhc").vote("honest2", "A", "B", "hho").vote("liar", "A", "B", "ccc").
			outcome("honest1", "liar", "liar transcript 7", Fault).
			outcome("honest2", "liar", "liar transcript 7", Agree).
			outcome("honest2", "liar", "liar transcript 8", Agree)},
		{"floors of re-execution and decision agreement", newWorld("A").miners("A", "B", "C", "D").
			validator("x", 10).validator("big", 1000).
			outcome("big", "x", "t1", Agree).outcome("big", "x", "t2", Disagree).outcome("big", "x", "t3", Disagree).
			vote("big", "A", "B", "hhh").vote("x", "A", "B", "hhh").
			vote("big", "A", "C", "hhh").vote("x", "A", "C", "hhh").
			vote("big", "A", "D", "hhh").vote("x", "A", "D", "ccc")},
		{"a chain of dethrones with a commitment tie-break", newWorld("A").
			miner("A", 0, 10).miner("B", 1, 300).miner("C", 2, 200).miner("D", 3, 50).
			validator("v1", 100).validator("v2", 100).validator("v3", 90).
			vote("v1", "A", "B", "ccc").vote("v2", "A", "B", "cch").vote("v3", "A", "B", "cch").
			vote("v1", "A", "C", "ccc").vote("v2", "A", "C", "ccc").vote("v3", "A", "C", "hhh").
			vote("v1", "C", "D", "chc").vote("v2", "C", "D", "ccc").vote("v3", "C", "D", "hhh")},
		{"idle stake counts against a dethrone", newWorld("A").miners("A", "B").
			validator("v1", 100).validator("idle", 100).
			vote("v1", "A", "B", "ccc")},
		{"a contradicted minority loses its vTrust", newWorld("A").miners("A", "B").
			validator("v1", 100).validator("v2", 60).validator("idle", 40).
			vote("v1", "A", "B", "ccc").vote("v2", "A", "B", "hhh")},
		{"a standing vote and a vote of the epoch dethrone together", newWorld("A").miners("A", "B").
			validator("v1", 100).validator("v2", 100).
			standing("v1", "A", "B", "ccc").vote("v2", "A", "B", "cch")},
		{"standing votes weigh in majorities but are not scored", newWorld("A").miners("A", "B", "C").
			validator("v1", 100).validator("v2", 300).validator("v3", 50).
			standing("v1", "A", "B", "ccc").vote("v2", "A", "B", "hhh").vote("v3", "A", "B", "hho").
			standing("v3", "A", "C", "cco").vote("v1", "A", "C", "ccc").vote("v2", "A", "C", "chc")},
		{"the walk takes dethrones in the order they were started", newWorld("B").miners("A", "B").
			validator("v1", 100).validator("v2", 100).
			standingAt("v1", "A", "B", "ccc", 500).standingAt("v2", "A", "B", "cch", 510).
			voteAt("v1", "B", "A", "ccc", 800).voteAt("v2", "B", "A", "chc", 790)},
		{"a later standing result supersedes one of the epoch", newWorld("A").miners("A", "B").
			validator("v1", 100).validator("v2", 100).
			voteAt("v1", "A", "B", "hhh", 800).standingAt("v1", "A", "B", "ccc", 900).
			standingAt("v2", "A", "B", "hhh", 700).voteAt("v2", "A", "B", "ccc", 950)},
	}
}

func TestVectors(t *testing.T) {
	t.Parallel()
	file := vtrustVectors{Note: "Re-execution outcome records (DAG-CBOR bytes and CIDs) and epochs: input, and the vTrust, duels, champion changes and weights computed from it (spec/vtrust.md)."}
	for _, o := range []Outcome{
		sampleOutcome(Agree, ""),
		sampleOutcome(Disagree, "seed: no recorded anchor and counter derive it"),
		sampleOutcome(Fault, "turn 0 reward: recorded 1, replay gives 0"),
	} {
		b, c, err := o.Encode()
		if err != nil {
			t.Fatal(err)
		}
		file.Outcomes = append(file.Outcomes, outcomeVector{o, hex.EncodeToString(b), c.String()})
	}
	for _, e := range vectorEpochs() {
		file.Epochs = append(file.Epochs, epochVector{e.name, e.world.in, e.world.run(t)})
	}
	var back vtrustVectors
	if err := json.Unmarshal(golden.CheckJSON(t, "vtrust.json", file), &back); err != nil {
		t.Fatal(err)
	}
	for i, v := range back.Outcomes {
		b, err := hex.DecodeString(v.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		o, err := DecodeOutcome(b)
		if err != nil {
			t.Fatalf("outcome %d: %v", i, err)
		}
		if o != v.Outcome {
			t.Errorf("outcome %d decodes to %+v, file says %+v", i, o, v.Outcome)
		}
		if _, c, _ := o.Encode(); c.String() != v.CID {
			t.Errorf("outcome %d: CID %s, file says %s", i, c, v.CID)
		}
	}
	for _, e := range back.Epochs {
		out, err := Epoch(e.Input)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		got, _ := json.Marshal(out)
		want, _ := json.Marshal(e.Output)
		if string(got) != string(want) {
			t.Errorf("%s: output differs from the file:\n got %s\nwant %s", e.Name, got, want)
		}
	}
}

// TestSpecReimplementation runs testdata/speccheck.py, a reimplementation
// of spec/vtrust.md in Python written from the document alone, against
// spec/vectors/vtrust.json: the spec, not just this code, produces the
// vectors.
func TestSpecReimplementation(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	out, err := exec.Command(python, "testdata/speccheck.py").CombinedOutput()
	if err != nil {
		t.Fatalf("speccheck.py: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("epochs ok")) {
		t.Fatalf("speccheck.py did not finish:\n%s", out)
	}
}
