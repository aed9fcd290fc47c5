package verify

import (
	"fmt"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/ledger/record"
)

// ForkProof checks a recorded fork proof and reports it: a valid proof is
// evidence that its validator signed two blocks at one height
// (equivocation), which is a failure of that validator whatever its chain
// looks like; an invalid one, or one of another network than the
// ledger's, is a failure of the source that kept it. A valid one of
// format 1 is counted and fails no one: its blocks name no network, so
// they may be the validator's honest blocks on two networks.
func (vf *Verifier) ForkProof(raw []byte, c cid.Cid) {
	vf.rep.ForkProofs++
	vf.rep.Bytes += int64(len(raw))
	if err := codec.CheckCID(raw, c); err != nil {
		vf.rep.fail(Failure{CID: c.String(), Transcript: -1, Reason: "fork proof bytes do not match their CID: " + err.Error()})
		return
	}
	p, err := record.DecodeForkProof(raw)
	if err != nil {
		vf.rep.fail(Failure{CID: c.String(), Transcript: -1, Reason: "recorded fork proof does not verify: " + err.Error()})
		return
	}
	if !p.ProvesEquivocation() {
		vf.rep.ForkProofsNotEvidence++
		return
	}
	// Both blocks are of one network (DecodeForkProof checked it): a
	// validator that signs on two networks forks neither by doing so, and
	// a valid proof of another network proves nothing of this ledger.
	net, err := p.Network()
	if err != nil {
		vf.rep.fail(Failure{CID: c.String(), Transcript: -1, Reason: "recorded fork proof: " + err.Error()})
		return
	}
	if err := vf.checkNetwork(net); err != nil {
		vf.rep.fail(Failure{CID: c.String(), Transcript: -1, Reason: fmt.Sprintf("recorded fork proof of validator %s at height %d is not this ledger's: %v", p.Validator, p.Height, err)})
		return
	}
	vf.pinNetwork(net)
	vf.rep.fail(blockFailure(p.Validator, p.Height, c, -1,
		"equivocation: the validator signed two blocks at height %d, %s and %s (fork proof)", p.Height, codec.Sum(p.A), codec.Sum(p.B)))
}
