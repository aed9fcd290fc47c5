package subtensor

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/affine-ledger/ledger/chain"
)

// poolRefusals maps the codes of subtensor's CustomTransactionError
// (common/src/transaction_error.rs), by which its transaction extension
// refuses a write in the pool before any block holds it, to this package's
// errors: the pool runs the checks the pallet would (a reveal of no
// pending commit, a rate limit, an unregistered hotkey), and tells them
// apart only by this number. A code missing here stays a plain
// chain.ErrInvalidTransaction.
var poolRefusals = map[int]error{
	6:  chain.ErrTooFast,        // RateLimitExceeded
	10: chain.ErrNotRegistered,  // HotKeyNotRegisteredInNetwork
	16: chain.ErrNoCommit,       // CommitNotFound
	17: chain.ErrRevealTooEarly, // CommitBlockNotInRevealRange (RevealTooEarly)
	18: chain.ErrBadWeights,     // InputLengthsUnequal
	19: chain.ErrNotRegistered,  // UidNotFound (HotKeyNotRegisteredInSubNet)
}

// poolRefusal is the error of a write the pool refused with RPC error
// 1010, whose data names the check ("Custom error: 16"): always
// chain.ErrInvalidTransaction, and the refusal it names if known.
func poolRefusal(name string, err error) error {
	if code, ok := customCode(rpcErrorData(err)); ok {
		if r, known := poolRefusals[code]; known {
			return fmt.Errorf("subtensor %s: %w: %w (custom error %d): %w", name, chain.ErrInvalidTransaction, r, code, err)
		}
	}
	return fmt.Errorf("subtensor %s: %w: %w", name, chain.ErrInvalidTransaction, err)
}

// rpcErrorData is the data member of a JSON-RPC error. The RPC client
// keeps it in an unexported type with no method to read it; an exported
// field is readable all the same.
func rpcErrorData(err error) any {
	if d, ok := err.(interface{ ErrorData() any }); ok {
		return d.ErrorData()
	}
	v := reflect.ValueOf(err)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	f := v.FieldByName("Data")
	if !f.IsValid() || !f.CanInterface() {
		return nil
	}
	return f.Interface()
}

// customCode reads Substrate's "Custom error: N" (InvalidTransaction::Custom).
func customCode(data any) (int, bool) {
	s, ok := data.(string)
	if !ok {
		return 0, false
	}
	rest, ok := strings.CutPrefix(s, "Custom error: ")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || n > 255 {
		return 0, false
	}
	return n, true
}
