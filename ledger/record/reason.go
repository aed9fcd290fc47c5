package record

import "github.com/affine-ledger/ledger/internal/textcut"

// reasonCutMark ends a reason that was cut.
const reasonCutMark = "..."

// RecordedReason is an env's reason as a transcript records it: whole when
// it fits MaxTextField, otherwise its longest prefix that leaves room for
// "..." and ends on a rune boundary, then "...". An env may quote a reply
// of any length in its reason (sat quotes an out-of-range variable's
// digits); cutting it here, the same way on the recording and the
// re-executing side, keeps such a transcript recordable and checkable.
func RecordedReason(reason string) string {
	if len(reason) <= MaxTextField {
		return reason
	}
	return textcut.Prefix(reason, MaxTextField-len(reasonCutMark)) + reasonCutMark
}
