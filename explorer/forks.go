package explorer

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
	"github.com/affine-ledger/ledger/ledger"
)

// ForkRow is one stored fork proof: two blocks one validator signed at one
// height.
type ForkRow struct {
	CID       string         `json:"cid"`
	Validator keys.PublicKey `json:"validator"`
	Height    uint64         `json:"height"`
	// A and B are the two blocks' CIDs.
	A string `json:"a"`
	B string `json:"b"`
	// Valid is the proof's check (both signatures, different blocks).
	Valid bool `json:"valid"`
	// Format is the proof's format, 0 for one the store cannot read.
	Format uint64 `json:"format"`
	// ProvesEquivocation is set for a valid proof of format 2. One of
	// format 1 is valid but its blocks name no network: they may be the
	// validator's honest blocks on two networks.
	ProvesEquivocation bool `json:"proves_equivocation"`
}

// forks lists fork proofs by validator then height; the cursor is the
// number of proofs already shown (they are few: one per equivocation).
func (srv *server) forks(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r, "limit", "cursor")
	if err != nil {
		return err
	}
	limit, c, err := q.page(DefaultLimit, MaxLimit, cursorForks, 8)
	if err != nil {
		return err
	}
	var skip uint64
	if c != nil {
		skip = be64(c)
	}
	page := Page[ForkRow]{Items: []ForkRow{}}
	var i uint64
	for p, err := range srv.s.ForkProofs() {
		var unreadable *ledger.UnreadableForkProofError
		if err != nil && !errors.As(err, &unreadable) {
			return err
		}
		if i < skip {
			i++
			continue
		}
		if len(page.Items) == limit {
			page.Next = encodeCursor(cursorForks, appendBE64(nil, i))
			break
		}
		i++
		if unreadable != nil {
			// A damaged proof: listed, as proving nothing.
			page.Items = append(page.Items, ForkRow{CID: cidString(unreadable.CID), Validator: unreadable.Validator, Height: unreadable.Height})
			continue
		}
		_, _, verr := p.Verify()
		row := ForkRow{CID: p.CID.String(), Validator: p.Validator, Height: p.Height, Valid: verr == nil,
			A: codec.Sum(p.A).String(), B: codec.Sum(p.B).String(),
			Format: p.Format, ProvesEquivocation: verr == nil && p.ProvesEquivocation()}
		page.Items = append(page.Items, row)
	}
	return writeJSON(w, page)
}

// forkProof serves one stored fork proof as a download: the record's own
// DAG-CBOR bytes, which its CID authenticates and ledger verify-proof
// checks offline (spec/proofs.md, "Fork proof"). Only a CID the store
// lists as a fork proof is served: another record's is a 404.
func (srv *server) forkProof(w http.ResponseWriter, r *http.Request) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	c, err := pathCID(r)
	if err != nil {
		return err
	}
	p, err := srv.s.ForkProof(c)
	var unreadable *ledger.UnreadableForkProofError
	switch {
	case errors.As(err, &unreadable):
		return fmt.Errorf("fork proof %s: stored, but it cannot be read: %w", c, unreadable.Err)
	case errors.Is(err, ledger.ErrNotFound):
		return errNotFound(fmt.Sprintf("fork proof %s is not in this store", c))
	case err != nil:
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/vnd.ipld.dag-cbor")
	h.Set("Content-Length", strconv.Itoa(len(p.Raw)))
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="fork-proof-%s.cbor"`, c))
	_, err = w.Write(p.Raw)
	return err
}
