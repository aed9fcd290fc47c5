package inference

import (
	"errors"
	"strings"
	"testing"
)

// spec/inference.md names the members a body is read by, and they are
// names: encoding/json matched struct fields case-insensitively, so
// "Content" stood in for "content" (and won over it when it came last),
// "Choices", "Error" and "PROMPT_TOKENS" counted too. The answer is in
// choices[0] whatever follows it, and a part that is not an object, or a
// type or text that is not a string (null included), is an error.
func TestDecodeReadsTheSpecsMembers(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		content string
		usage   Usage
		fail    string // substring of the error; "" for success
	}{
		{name: "Content is not content", body: `{"choices":[{"message":{"content":"a","Content":"b"}}]}`, content: "a"},
		{name: "Content alone is no content", body: `{"choices":[{"message":{"Content":"b"}}]}`, content: ""},
		{name: "Choices is not choices", body: `{"Choices":[{"message":{"content":"b"}}]}`, fail: "no choices"},
		{name: "Message is not message", body: `{"choices":[{"Message":{"content":"b"}}]}`, fail: "not an object"},
		{name: "ERROR is not error", body: `{"choices":[{"message":{"content":"a"}}],"ERROR":"x"}`, content: "a"},
		{name: "escaped name is the name", body: `{"choices":[{"message":{"\u0063ontent":"a"}}]}`, content: "a"},
		{name: "usage names", body: `{"choices":[{"message":{"content":"a"}}],"usage":{"PROMPT_TOKENS":5,"completion_tokens":2}}`, content: "a", usage: Usage{CompletionTokens: 2}},
		{name: "later choices are not read", body: `{"choices":[{"message":{"content":"a"}},5,null]}`, content: "a"},
		{name: "null part", body: `{"choices":[{"message":{"content":[{"type":"text","text":"a"},null]}}]}`, fail: "content parts"},
		{name: "null text", body: `{"choices":[{"message":{"content":[{"type":"text","text":null}]}}]}`, fail: "content parts"},
		{name: "null type", body: `{"choices":[{"message":{"content":[{"type":null,"text":"x"}]}}]}`, fail: "content parts"},
		{name: "number text of another type", body: `{"choices":[{"message":{"content":[{"type":"image_url","text":5}]}}]}`, fail: "content parts"},
		{name: "Text is not text", body: `{"choices":[{"message":{"content":[{"type":"text","Text":"x","text":"y"}]}}]}`, content: "y"},
		{name: "repeated part member: last wins", body: `{"choices":[{"message":{"content":[{"type":"image_url","type":"text","text":"x"}]}}]}`, content: "x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DecodeResponse([]byte(c.body))
			if c.fail != "" {
				if !errors.Is(err, ErrDecode) || !strings.Contains(err.Error(), c.fail) {
					t.Fatalf("err = %v, want ErrDecode mentioning %q", err, c.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != c.content || got.Usage != c.usage {
				t.Fatalf("got %+v, want content %q usage %+v", got, c.content, c.usage)
			}
		})
	}
}
