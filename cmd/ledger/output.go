package main

import (
	"encoding/json"
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
