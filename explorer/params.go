package explorer

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ipfs/go-cid"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/keys"
)

// Pagination bounds (spec/api.md, "Pagination").
const (
	DefaultLimit = 50
	MaxLimit     = 500
	// MaxPointsLimit bounds lists that feed plots (a miner's transcripts).
	MaxPointsLimit = 1000
	// MaxScan bounds the transcripts one page of a miner's transcripts
	// filtered by env reads, matching or not.
	MaxScan = 2 * MaxPointsLimit
	// maxCursor bounds a cursor's text before decoding it.
	maxCursor = 256
)

// query is a request's query string, decoded once and checked against the
// parameters its endpoint takes: an undecodable query string, an unknown
// parameter or one given twice is a 400.
type query struct {
	v url.Values
}

// parseQuery decodes r's query string itself: URL.Query drops a query
// string it cannot decode whole, which would serve "?limit=%zz" as if no
// limit were given.
func parseQuery(r *http.Request, allowed ...string) (query, error) {
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return query{}, errBadRequest(fmt.Sprintf("malformed query string: %s", clip(err.Error())))
	}
	for k, vs := range v {
		if !slices.Contains(allowed, k) {
			if len(allowed) == 0 {
				return query{}, errBadRequest(fmt.Sprintf("unknown query parameter %q: this endpoint takes none", clip(k)))
			}
			return query{}, errBadRequest(fmt.Sprintf("unknown query parameter %q: this endpoint takes %s", clip(k), strings.Join(allowed, ", ")))
		}
		if len(vs) > 1 {
			return query{}, errBadRequest(fmt.Sprintf("query parameter %q given %d times", k, len(vs)))
		}
	}
	return query{v}, nil
}

func (q query) get(name string) string { return q.v.Get(name) }

func (q query) has(name string) bool { return q.v.Has(name) }

// limit reads "limit": def when absent, else an integer in [1, max].
func (q query) limit(def, max int) (int, error) {
	if !q.has("limit") {
		return def, nil
	}
	n, err := strconv.Atoi(q.get("limit"))
	if err != nil || n < 1 || n > max {
		return 0, errBadRequest(fmt.Sprintf("limit %q: want an integer from 1 to %d", clip(q.get("limit")), max))
	}
	return n, nil
}

// uint reads an optional unsigned integer parameter at most max.
func (q query) uint(name string, max uint64) (uint64, bool, error) {
	if !q.has(name) {
		return 0, false, nil
	}
	s := q.get(name)
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > max || strconv.FormatUint(n, 10) != s {
		return 0, false, errBadRequest(fmt.Sprintf("%s %q: want an integer from 0 to %d", name, clip(s), max))
	}
	return n, true, nil
}

// hotkey reads an optional SS58 parameter.
func (q query) hotkey(name string) (keys.PublicKey, bool, error) {
	if !q.has(name) {
		return keys.PublicKey{}, false, nil
	}
	k, err := parseHotkey(name, q.get(name))
	return k, err == nil, err
}

// env reads an optional env name.
func (q query) env() (string, error) {
	e := q.get("env")
	if e == "" && !q.has("env") {
		return "", nil
	}
	if err := challenge.CheckEnvName(e); err != nil {
		return "", errBadRequest(fmt.Sprintf("env %q: %v", clip(e), err))
	}
	return e, nil
}

func parseHotkey(what, s string) (keys.PublicKey, error) {
	k, err := keys.ParseSS58(s)
	if err != nil {
		return keys.PublicKey{}, errBadRequest(fmt.Sprintf("%s %q is not an SS58 address: %v", what, clip(s), err))
	}
	return k, nil
}

func pathHotkey(r *http.Request) (keys.PublicKey, error) {
	return parseHotkey("hotkey", r.PathValue("hotkey"))
}

// pathCID reads {cid}: a ledger record's address in its canonical text
// (codec.ParseCID), so that one record has one URL.
func pathCID(r *http.Request) (cid.Cid, error) {
	c, err := codec.ParseCID(r.PathValue("cid"))
	if err != nil {
		return cid.Undef, errBadRequest(err.Error())
	}
	return c, nil
}

func pathUint(r *http.Request, name string) (uint64, error) {
	s := r.PathValue(name)
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || strconv.FormatUint(n, 10) != s {
		return 0, errBadRequest(fmt.Sprintf("%s %q: want a decimal integer", name, clip(s)))
	}
	return n, nil
}

// Cursors are opaque to clients: base64url of a kind byte and the sort key
// of the last item shown (or the next position), so a cursor of one list
// is refused by another.
const (
	cursorValidators byte = iota + 1
	cursorBlocks
	cursorLeaves
	cursorMinerTranscripts
	cursorBlockTranscripts
	cursorMiners
	cursorDuels
	cursorForks
	cursorDuelTranscripts
	cursorLeaderboard
)

func encodeCursor(kind byte, key []byte) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte{kind}, key...))
}

// page reads the limit and cursor every list endpoint takes.
func (q query) page(def, max int, kind byte, size int) (int, []byte, error) {
	limit, err := q.limit(def, max)
	if err != nil {
		return 0, nil, err
	}
	c, err := q.cursor(kind, size)
	return limit, c, err
}

// cursor decodes the "cursor" parameter of kind: nil when absent, else a
// key of exactly size bytes.
func (q query) cursor(kind byte, size int) ([]byte, error) {
	s := q.get("cursor")
	if !q.has("cursor") {
		return nil, nil
	}
	bad := func(why string) error {
		return errBadRequest(fmt.Sprintf("cursor %q: %s; use the \"next\" value of the previous page", clip(s), why))
	}
	if len(s) > maxCursor {
		return nil, bad("too long")
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return nil, bad("not a cursor")
	}
	if b[0] != kind || len(b) != 1+size {
		return nil, bad("not a cursor of this list")
	}
	return b[1:], nil
}

// clip shortens user input quoted in error messages.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
