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

// DecodeResponse reads a chat-completions success body. The answer is
// required: the body must be a JSON object whose "choices" holds at least one
// object with a "message" object; "content" may be a string, null, or an
// array of {"type": "text", "text": ...} parts (concatenated). Everything
// else (model, system_fingerprint, finish_reason, usage) is optional and
// ignored when it has an unexpected type, so that odd metadata never costs a
// miner its answer. A body carrying an "error" object is an error.
func DecodeResponse(body []byte) (Completion, error) {
	var top struct {
		Model             json.RawMessage `json:"model"`
		SystemFingerprint json.RawMessage `json:"system_fingerprint"`
		Choices           json.RawMessage `json:"choices"`
		Usage             json.RawMessage `json:"usage"`
		Error             json.RawMessage `json:"error"`
	}
	// Invalid bytes are replaced before JSON decoding, a maximal run by one
	// U+FFFD as spec/envs/README.md says; encoding/json would replace each
	// byte on its own.
	if !utf8.Valid(body) {
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	if start := bytes.TrimLeft(body, jsonSpace); len(start) == 0 || start[0] != '{' {
		return Completion{}, fmt.Errorf("%w: body is not a JSON object", ErrDecode)
	}
	if err := json.Unmarshal(body, &top); err != nil {
		return Completion{}, fmt.Errorf("%w: %v", ErrDecode, err)
	}
	if isPresent(top.Error) {
		return Completion{}, fmt.Errorf("%w: server error: %s", ErrDecode, errorMessage(top.Error))
	}
	var choices []struct {
		Message      json.RawMessage `json:"message"`
		FinishReason json.RawMessage `json:"finish_reason"`
	}
	if err := json.Unmarshal(top.Choices, &choices); err != nil || len(choices) == 0 {
		return Completion{}, fmt.Errorf("%w: no choices", ErrDecode)
	}
	var msg struct {
		Content json.RawMessage `json:"content"`
	}
	m := choices[0].Message
	if len(m) == 0 || m[0] != '{' {
		return Completion{}, fmt.Errorf("%w: choices[0].message is not an object", ErrDecode)
	}
	if err := json.Unmarshal(m, &msg); err != nil {
		return Completion{}, fmt.Errorf("%w: choices[0].message: %v", ErrDecode, err)
	}
	content, err := decodeContent(msg.Content)
	if err != nil {
		return Completion{}, err
	}
	c := Completion{
		Content:      strings.ToValidUTF8(content, "\uFFFD"),
		FinishReason: metaString(choices[0].FinishReason),
		Model:        metaString(top.Model),
		Fingerprint:  metaString(top.SystemFingerprint),
	}
	var usage struct {
		Prompt     json.RawMessage `json:"prompt_tokens"`
		Completion json.RawMessage `json:"completion_tokens"`
		Total      json.RawMessage `json:"total_tokens"`
	}
	if json.Unmarshal(top.Usage, &usage) == nil {
		c.Usage = Usage{
			PromptTokens:     count(usage.Prompt),
			CompletionTokens: count(usage.Completion),
			TotalTokens:      count(usage.Total),
		}
	}
	return c, nil
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
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", fmt.Errorf("%w: content parts: %v", ErrDecode, err)
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("%w: content is neither a string, null nor an array of parts", ErrDecode)
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
