package inference

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrDecode is wrapped by every error of DecodeResponse: the body is not a
// chat completion with an answer.
var ErrDecode = errors.New("response is not a chat completion")

// jsonSpace is the white space JSON allows between tokens.
const jsonSpace = " \t\r\n"

// maxMetaBytes bounds the server-chosen strings (model, fingerprint, finish
// reason, error messages) copied into a record.
const maxMetaBytes = 256

// Completion is what DecodeResponse extracts from a success body.
type Completion struct {
	// Content is the answer text, valid UTF-8: each maximal run of invalid
	// bytes is replaced by one U+FFFD, and each escaped lone surrogate
	// (\ud800) by one U+FFFD. A null or absent content is "" and not an error: the
	// environment scores it as an empty answer.
	Content      string
	FinishReason string
	Model        string
	Fingerprint  string
	Usage        Usage
}

// DecodeResponse reads a chat-completions success body (spec/inference.md,
// "Reading the answer"). The answer is required: the body must be a JSON
// object whose "choices" is an array whose first element is an object with
// a "message" object; "content" may be a string, null, or an array of
// {"type": "text", "text": ...} parts (concatenated). Members are found by
// their exact names, the last occurrence of a repeated one counting. Everything
// else (model, system_fingerprint, finish_reason, usage) is optional and
// ignored when it has an unexpected type, so that odd metadata never costs a
// miner its answer. A body carrying an "error" object is an error.
func DecodeResponse(body []byte) (Completion, error) {
	// Invalid bytes are replaced before JSON decoding, a maximal run by one
	// U+FFFD as spec/envs/README.md says; encoding/json would replace each
	// byte on its own.
	if !utf8.Valid(body) {
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	body = bytes.TrimLeft(body, jsonSpace)
	if len(body) == 0 || body[0] != '{' {
		return Completion{}, fmt.Errorf("%w: body is not a JSON object", ErrDecode)
	}
	top, err := members(body)
	if err != nil {
		return Completion{}, fmt.Errorf("%w: %v", ErrDecode, err)
	}
	if isPresent(top["error"]) {
		return Completion{}, fmt.Errorf("%w: server error: %s", ErrDecode, errorMessage(top["error"]))
	}
	// Only choices[0] is read: what follows it is not the answer.
	var choices []json.RawMessage
	if err := json.Unmarshal(top["choices"], &choices); err != nil || len(choices) == 0 {
		return Completion{}, fmt.Errorf("%w: no choices", ErrDecode)
	}
	choice, err := members(choices[0])
	if err != nil {
		return Completion{}, fmt.Errorf("%w: choices[0] is not an object", ErrDecode)
	}
	msg, err := members(choice["message"])
	if err != nil {
		return Completion{}, fmt.Errorf("%w: choices[0].message is not an object", ErrDecode)
	}
	content, err := decodeContent(msg["content"])
	if err != nil {
		return Completion{}, err
	}
	c := Completion{
		Content:      strings.ToValidUTF8(content, "\uFFFD"),
		FinishReason: metaString(choice["finish_reason"]),
		Model:        metaString(top["model"]),
		Fingerprint:  metaString(top["system_fingerprint"]),
	}
	if usage, err := members(top["usage"]); err == nil {
		c.Usage = Usage{
			PromptTokens:     count(usage["prompt_tokens"]),
			CompletionTokens: count(usage["completion_tokens"]),
			TotalTokens:      count(usage["total_tokens"]),
		}
	}
	return c, nil
}

// members returns the members of a JSON object by their exact names (the
// spec's names are names: encoding/json would match a struct's fields
// case-insensitively, so "Content" would stand in for "content"). Where
// the object repeats a name, the last occurrence counts. Anything but an
// object is an error.
func members(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errors.New("not an object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

func decodeContent(raw json.RawMessage) (string, error) {
	if !isPresent(raw) {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("%w: content: %v", ErrDecode, err)
		}
		return s, nil
	case '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", fmt.Errorf("%w: content parts: %v", ErrDecode, err)
		}
		var b strings.Builder
		for i, p := range parts {
			part, err := members(p)
			if err != nil {
				return "", fmt.Errorf("%w: content parts: part %d is not an object", ErrDecode, i)
			}
			typ, okType := partString(part["type"])
			text, okText := partString(part["text"])
			if !okType || !okText {
				return "", fmt.Errorf("%w: content parts: part %d has a type or text that is not a string", ErrDecode, i)
			}
			if typ == "text" {
				b.WriteString(text)
			}
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("%w: content is neither a string, null nor an array of parts", ErrDecode)
}

// partString reads a part's type or text: absent is "", a string is
// itself, anything else (null included) is not ok.
func partString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", true
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// isPresent reports whether a member was there and not null. RawMessage
// values captured by encoding/json carry no surrounding white space.
func isPresent(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// metaString returns raw as a clean, bounded string, or "" when raw is not a
// JSON string.
func metaString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return clean(s, maxMetaBytes)
}

// count returns raw when it is a JSON integer (digits only: no sign,
// fraction or exponent) that fits an int64, else 0.
func count(raw json.RawMessage) int64 {
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0
		}
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// errorMessage pulls a message out of an OpenAI-style "error" value, which
// some servers send as an object and some as a string.
func errorMessage(raw json.RawMessage) string {
	var obj ErrorBody
	if json.Unmarshal(raw, &obj.Error) == nil && obj.Error.Message != "" {
		return clean(obj.Error.Message, maxMetaBytes)
	}
	if s := metaString(raw); s != "" {
		return s
	}
	return clean(string(raw), maxMetaBytes)
}

// clean makes text from a miner safe to store: valid UTF-8, at most n bytes.
func clean(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "..."
}
