package keys

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// stringObject reads data as one JSON object and returns those of its
// members that are listed in known; their values must be strings. With
// strict, any other member and a null value are errors; without, other
// members are skipped whatever their values and null counts as absent. A
// repeated known member is always an error. Errors wrap kind and never quote
// the input.
func stringObject(data []byte, known []string, strict bool, kind error) (map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, jsonError(dec, err, "not a JSON object", kind)
	}
	fields := make(map[string]string)
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(dec, err, "", kind)
		}
		name, _ := tok.(string)
		isKnown := slices.Contains(known, name)
		if strict && !isKnown {
			return nil, fmt.Errorf("%w: unknown member at byte %d", kind, dec.InputOffset())
		}
		if isKnown && seen[name] {
			return nil, fmt.Errorf("%w: member %q appears twice", kind, name)
		}
		seen[name] = true
		if !isKnown {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, jsonError(dec, err, "", kind)
			}
			continue
		}
		tok, err = dec.Token()
		if err != nil {
			return nil, jsonError(dec, err, "", kind)
		}
		switch v := tok.(type) {
		case string:
			fields[name] = v
		case nil:
			if strict {
				return nil, fmt.Errorf("%w: member %q is null, want a string", kind, name)
			}
		default:
			return nil, fmt.Errorf("%w: member %q is not a string", kind, name)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonError(dec, err, "", kind)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the JSON object (byte %d)", kind, dec.InputOffset())
	}
	return fields, nil
}

// jsonError replaces encoding/json's messages, which quote input characters,
// with the byte offset alone.
func jsonError(dec *json.Decoder, err error, what string, kind error) error {
	if what == "" {
		what = "not valid JSON"
	}
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%w: %s (byte %d)", kind, what, syn.Offset)
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: %s (unexpected end)", kind, what)
	default:
		return fmt.Errorf("%w: %s (byte %d)", kind, what, dec.InputOffset())
	}
}
