package inference_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/affine-ledger/ledger/inference"
)

// fixedReply is a transport that answers every request with one status,
// Retry-After and body, without a network.
type fixedReply struct {
	status     int
	retryAfter string
	body       []byte
}

func (f fixedReply) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	h := http.Header{}
	if f.retryAfter != "" {
		h.Set("Retry-After", f.retryAfter)
	}
	return &http.Response{StatusCode: f.status, Header: h, Body: io.NopCloser(bytes.NewReader(f.body)), Request: r}, nil
}

// FuzzComplete puts any reply (status, Retry-After, body) through the
// whole client, with limits small enough for the fuzzer to cross: a call
// either answers (valid UTF-8 within the answer limit, the same answer
// DecodeResponse reads) or fails with an error kind that fits the reply;
// what it records stays within its bounds.
func FuzzComplete(f *testing.F) {
	f.Add(uint16(200), "", []byte(`{"choices":[{"message":{"content":"<answer>4</answer>"}}]}`))
	f.Add(uint16(200), "", []byte(`{"choices":[{"message":{"content":null}}],"usage":{"prompt_tokens":-1}}`))
	f.Add(uint16(429), "1", []byte(`{"error":{"message":"slow down"}}`))
	f.Add(uint16(503), "Wed, 21 Oct 2015 07:28:00 GMT", []byte(`<html>`))
	f.Add(uint16(302), "", []byte(``))
	f.Add(uint16(200), "", bytes.Repeat([]byte("a"), 5000))
	f.Add(uint16(402), "", bytes.Repeat([]byte("<html>"), 1000)) // HTTP 502, over the read limit
	opts := inference.Options{
		MaxAttempts: 2, BaseBackoff: time.Microsecond, MaxBackoff: time.Microsecond, MaxRetryAfter: time.Millisecond,
		ReadLimit: 4096, KeepRaw: 512, MaxAnswerBytes: 1024, Timeout: 10 * time.Second,
	}
	f.Fuzz(func(t *testing.T, status uint16, retryAfter string, body []byte) {
		code := 100 + int(status)%900
		o := opts
		o.HTTPClient = &http.Client{
			Transport:     fixedReply{code, retryAfter, body},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		c := inference.New(o)
		reply, err := c.Complete(context.Background(), inference.Endpoint{BaseURL: "http://miner.invalid/v1", Model: "m"}, testID, question)
		call := reply.Call
		if call.Attempts < 1 || call.Attempts > int64(o.MaxAttempts) || len(call.Raw) > o.KeepRaw || call.BodyBytes > o.ReadLimit+1 || len(call.Error) > 1024+3 {
			t.Fatalf("record out of bounds: attempts %d, raw %d, body %d, error %d bytes", call.Attempts, len(call.Raw), call.BodyBytes, len(call.Error))
		}
		for _, s := range []string{call.Error, call.ServedModel, call.Fingerprint, call.FinishReason} {
			if !utf8.ValidString(s) || len(s) > 1024+3 {
				t.Fatalf("recorded text not clean: %q", s)
			}
		}
		if err != nil {
			if reply.Content != "" || call.ErrorKind == "" {
				t.Fatalf("failed call with content %q, kind %q: %v", reply.Content, call.ErrorKind, err)
			}
			var ok bool
			switch {
			case code < 200 || code > 299:
				// Whatever the body's size: only a 2xx body is an answer.
				retried := code == 408 || code == 429 || code >= 500 && code <= 599
				ok = errors.Is(err, inference.ErrStatus) && call.Status == int64(code) && retried == (call.Attempts == int64(o.MaxAttempts))
			case int64(len(body)) > o.ReadLimit:
				ok = errors.Is(err, inference.ErrTooLarge)
			default:
				ok = errors.Is(err, inference.ErrDecode) || errors.Is(err, inference.ErrTooLarge)
			}
			if !ok {
				t.Fatalf("HTTP %d, %d bytes: kind %q: %v", code, len(body), call.ErrorKind, err)
			}
			return
		}
		if code < 200 || code > 299 || call.ErrorKind != "" || call.Attempts != 1 {
			t.Fatalf("HTTP %d answered (kind %q, %d attempts)", code, call.ErrorKind, call.Attempts)
		}
		if !utf8.ValidString(reply.Content) || len(reply.Content) > o.MaxAnswerBytes {
			t.Fatalf("answer of %d bytes, valid UTF-8 %v", len(reply.Content), utf8.ValidString(reply.Content))
		}
		comp, derr := inference.DecodeResponse(body)
		if derr != nil || comp.Content != reply.Content {
			t.Fatalf("client answered %q, DecodeResponse says %q, %v", reply.Content, comp.Content, derr)
		}
	})
}

// FuzzChutes: a chute slug is accepted only as a DNS label, and then makes
// an https endpoint on chutes.ai.
func FuzzChutes(f *testing.F) {
	for _, s := range []string{"abc", "a-b", "-a", "a-", "A", "a.b", "", "0123456789012345678901234567890123456789012345678901234567890123"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, slug string) {
		ep, err := inference.Chutes(slug, "m", "k")
		if err != nil {
			if !errors.Is(err, inference.ErrRequest) {
				t.Fatalf("error does not wrap ErrRequest: %v", err)
			}
			return
		}
		if len(slug) > 63 || ep.BaseURL != "https://"+slug+".chutes.ai/v1" {
			t.Fatalf("slug %q accepted as %s", slug, ep.BaseURL)
		}
		for i := 0; i < len(slug); i++ {
			c := slug[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0 && i < len(slug)-1) {
				t.Fatalf("slug %q accepted with %q at %d", slug, c, i)
			}
		}
	})
}
