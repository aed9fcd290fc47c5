package main

import (
	"encoding/json"
	"fmt"
	"io"
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

// plural is "1 chain", "2 chains": n and word, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
