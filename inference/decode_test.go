package inference

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeResponse(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		content string
		finish  string
		usage   Usage
		fail    string // substring of the error; "" for success
	}{
		{name: "plain", body: `{"model":"m","system_fingerprint":"fp","choices":[{"index":0,"message":{"role":"assistant","content":"42"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`,
			content: "42", finish: "stop", usage: Usage{10, 2, 12}},
		{name: "null content", body: `{"choices":[{"message":{"content":null},"finish_reason":"length"}]}`, finish: "length"},
		{name: "absent content", body: `{"choices":[{"message":{"role":"assistant"}}]}`},
		{name: "parts", body: `{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]}}]}`, content: "ab"},
		{name: "escaped lone surrogate", body: `{"choices":[{"message":{"content":"x\ud800y"}}]}`, content: "x\uFFFDy"},
		{name: "raw invalid utf8", body: "{\"choices\":[{\"message\":{\"content\":\"a\xffb\"}}]}", content: "a\uFFFDb"},
		{name: "run of invalid bytes", body: "{\"choices\":[{\"message\":{\"content\":\"a\xe2\x82\xff\xfeb\xc3\"}}]}", content: "a\uFFFDb\uFFFD"},
		{name: "odd usage ignored", body: `{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":"many","completion_tokens":-3,"total_tokens":1e99}}`, content: "ok"},
		{name: "odd metadata ignored", body: `{"model":7,"system_fingerprint":{},"choices":[{"message":{"content":"ok"},"finish_reason":5}]}`, content: "ok"},
		{name: "usage as strings ignored", body: `{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":"12","completion_tokens":2.0,"total_tokens":7}}`, content: "ok", usage: Usage{TotalTokens: 7}},
		{name: "usage over int64 ignored", body: `{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":9223372036854775808,"completion_tokens":9223372036854775807}}`, content: "ok", usage: Usage{CompletionTokens: 9223372036854775807}},
		{name: "duplicate member: last wins", body: `{"choices":[{"message":{"content":"a","content":"b"}}]}`, content: "b"},
		{name: "non-JSON leading space", body: "\u00a0{\"choices\":[{\"message\":{\"content\":\"ok\"}}]}", fail: "not a JSON object"},
		{name: "part not an object", body: `{"choices":[{"message":{"content":["a"]}}]}`, fail: "content parts"},
		{name: "leading space", body: " \n{\"choices\":[{\"message\":{\"content\":\"ok\"}}]}", content: "ok"},
		{name: "error object", body: `{"error":{"message":"model overloaded","type":"server_error"}}`, fail: "model overloaded"},
		{name: "error string", body: `{"error":"nope"}`, fail: "nope"},
		{name: "no choices", body: `{"choices":[]}`, fail: "no choices"},
		{name: "choices not array", body: `{"choices":{}}`, fail: "no choices"},
		{name: "message not object", body: `{"choices":[{"message":"hi"}]}`, fail: "not an object"},
		{name: "content number", body: `{"choices":[{"message":{"content":5}}]}`, fail: "neither"},
		{name: "not json", body: `<html>502</html>`, fail: "not a JSON object"},
		{name: "empty", body: ``, fail: "not a JSON object"},
		{name: "array", body: `[1]`, fail: "not a JSON object"},
		{name: "truncated", body: `{"choices":[{"message":{"content":"4`, fail: "unexpected end"},
		{name: "trailing garbage", body: `{"choices":[]} x`, fail: "invalid character"},
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
			if got.Content != c.content || got.FinishReason != c.finish || got.Usage != c.usage {
				t.Fatalf("got %+v, want content %q finish %q usage %+v", got, c.content, c.finish, c.usage)
			}
		})
	}
}

func TestDecodeMetadata(t *testing.T) {
	long := strings.Repeat("é", 300)
	got, err := DecodeResponse([]byte(`{"model":"` + long + `","system_fingerprint":"fp-1","choices":[{"message":{"content":"x"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Model) > maxMetaBytes+3 || !utf8.ValidString(got.Model) || !strings.HasSuffix(got.Model, "...") {
		t.Errorf("model not bounded on a rune boundary: %d bytes", len(got.Model))
	}
	if got.Fingerprint != "fp-1" {
		t.Errorf("fingerprint %q", got.Fingerprint)
	}
}

func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"message":{"content":"42"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1}}`,
		`{"choices":[{"message":{"content":[{"type":"text","text":"a"}]}}]}`,
		`{"error":{"message":"x"}}`,
		"{\"choices\":[{\"message\":{\"content\":\"\xff\"}}]}",
		`{"choices":[{"message":{"content":null}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := DecodeResponse(body)
		if err != nil {
			if !errors.Is(err, ErrDecode) {
				t.Fatalf("error %v does not wrap ErrDecode", err)
			}
			return
		}
		for _, s := range []string{c.Content, c.Model, c.Fingerprint, c.FinishReason} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in %+v", c)
			}
		}
		if c.Usage.PromptTokens < 0 || c.Usage.CompletionTokens < 0 || c.Usage.TotalTokens < 0 {
			t.Fatalf("negative usage %+v", c.Usage)
		}
	})
}
