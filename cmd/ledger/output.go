package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/affine-ledger/ledger/archive"
)

// writeJSON prints v as one indented JSON object followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// usageError marks bad flags or input (exit 2) with a message naming what is wrong.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// archiveCounts says what an archive holds, as export and import print it.
func archiveCounts(st archive.Stats) string {
	return fmt.Sprintf("%s, %s, %s, %s, %s", plural(st.Chains, "chain"), plural(st.Blocks, "block"),
		plural(st.Transcripts, "transcript"), plural(st.Decisions, "decision"), plural(st.ForkProofs, "fork proof"))
}

// plural is "1 chain", "2 chains": n and word, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
