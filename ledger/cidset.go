package ledger

import "github.com/ipfs/go-cid"

// cidSet holds the CIDs a block being gathered links. Only decisions can
// collide between requests: a transcript's challenge is reserved once, so
// its bytes (and CID) are in one request at most.
type cidSet map[cid.Cid]struct{}

func linkSet(group []*appendReq) cidSet {
	s := cidSet{}
	for _, r := range group {
		s.add(r)
	}
	return s
}

func (s cidSet) add(r *appendReq) {
	for _, l := range r.leaves {
		s[l.cid] = struct{}{}
	}
	for _, d := range r.decisions {
		s[d.cid] = struct{}{}
	}
}

// holdsAny reports whether s holds any CID r links.
func (s cidSet) holdsAny(r *appendReq) bool {
	for _, l := range r.leaves {
		if _, ok := s[l.cid]; ok {
			return true
		}
	}
	for _, d := range r.decisions {
		if _, ok := s[d.cid]; ok {
			return true
		}
	}
	return false
}
