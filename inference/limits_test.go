package inference

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
)

// bodyOf is a transport answering every request 200 with body.
type bodyOf []byte

func (b bodyOf) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(b)), Request: r}, nil
}

// completionOf is a chat completion padded with trailing white space to
// exactly size bytes.
func completionOf(t *testing.T, content string, size int) []byte {
	t.Helper()
	b := []byte(`{"choices":[{"message":{"content":"` + content + `"}}]}`)
	if len(b) > size {
		t.Fatalf("completion of %d bytes does not fit %d", len(b), size)
	}
	return append(b, bytes.Repeat([]byte(" "), size-len(b))...)
}

func completeWith(t *testing.T, o Options, body []byte) (Reply, error) {
	t.Helper()
	o.HTTPClient = &http.Client{Transport: bodyOf(body)}
	o.BaseBackoff, o.MaxBackoff, o.Timeout = time.Microsecond, time.Microsecond, 10*time.Second
	id, err := challenge.New("addtest", 1, [32]byte{1})
	if err != nil {
		t.Fatal(err)
	}
	return New(o).Complete(context.Background(), Endpoint{BaseURL: "http://miner.invalid/v1"}, id,
		[]envs.Message{{Role: envs.RoleUser, Content: "2+2?"}})
}

// The read limit and the raw prefix kept, each at the bound and one past.
func TestReadLimitAndKeepRawBounds(t *testing.T) {
	const limit, keep = 4096, 1000
	o := Options{ReadLimit: limit, KeepRaw: keep}
	at, err := completeWith(t, o, completionOf(t, "4", limit))
	if err != nil || at.Content != "4" || at.Call.BodyBytes != limit || len(at.Call.Raw) != keep {
		t.Fatalf("body of exactly ReadLimit: %q, %d bytes read, %d kept, %v", at.Content, at.Call.BodyBytes, len(at.Call.Raw), err)
	}
	past, err := completeWith(t, o, completionOf(t, "4", limit+1))
	if err == nil || past.Call.ErrorKind != KindTooLarge || past.Call.BodyBytes != limit+1 || past.Call.Attempts != 1 {
		t.Fatalf("body one past ReadLimit: kind %q, %d bytes read, %v", past.Call.ErrorKind, past.Call.BodyBytes, err)
	}
	for _, n := range []int{keep, keep + 1} {
		r, err := completeWith(t, o, completionOf(t, "4", n))
		if err != nil || len(r.Call.Raw) != keep || r.Call.BodyBytes != int64(n) {
			t.Fatalf("body of %d: kept %d, %v", n, len(r.Call.Raw), err)
		}
	}
	if r, _ := completeWith(t, o, completionOf(t, "4", keep-1)); len(r.Call.Raw) != keep-1 {
		t.Fatalf("body under KeepRaw kept %d bytes", len(r.Call.Raw))
	}
}

// The answer limit at the bound and one past, at the defaults: the answer
// arrives whole or the call fails.
func TestAnswerLimitBound(t *testing.T) {
	at, err := completeWith(t, Options{}, completionOf(t, strings.Repeat("a", envs.MaxAnswerBytes), envs.MaxAnswerBytes+64))
	if err != nil || len(at.Content) != envs.MaxAnswerBytes {
		t.Fatalf("answer of exactly MaxAnswerBytes: %d bytes, %v", len(at.Content), err)
	}
	past, err := completeWith(t, Options{}, completionOf(t, strings.Repeat("a", envs.MaxAnswerBytes+1), envs.MaxAnswerBytes+64))
	if err == nil || past.Call.ErrorKind != KindTooLarge || past.Content != "" {
		t.Fatalf("answer one past MaxAnswerBytes: kind %q, %d bytes, %v", past.Call.ErrorKind, len(past.Content), err)
	}
}

// Server-chosen text is cut at maxMetaBytes (a model name of exactly the
// bound is kept whole) and the error of a call at maxErrorBytes.
func TestMetaAndErrorTextBounds(t *testing.T) {
	for _, n := range []int{maxMetaBytes, maxMetaBytes + 1} {
		model := strings.Repeat("m", n)
		c, err := DecodeResponse([]byte(`{"model":"` + model + `","choices":[{"message":{"content":"x"}}]}`))
		want := model
		if n > maxMetaBytes {
			want = model[:maxMetaBytes] + "..."
		}
		if err != nil || c.Model != want {
			t.Fatalf("model of %d bytes recorded as %d bytes, %v", n, len(c.Model), err)
		}
	}
	// clean enforces both bounds: a string of the bound is kept whole,
	// one past is cut on a rune boundary and marked.
	for _, n := range []int{maxMetaBytes, maxErrorBytes} {
		if s := strings.Repeat("e", n); clean(s, n) != s {
			t.Fatalf("clean cut a string of exactly %d bytes", n)
		}
		if got := clean(strings.Repeat("e", n+1), n); got != strings.Repeat("e", n)+"..." {
			t.Fatalf("clean kept %d of %d bytes", len(got), n+1)
		}
		// The n+1 bytes end in a two-byte rune that straddles the bound.
		if got := clean(strings.Repeat("e", n-1)+"é", n); got != strings.Repeat("e", n-1)+"..." {
			t.Fatalf("clean cut mid-rune: %q", got[len(got)-8:])
		}
	}
	// A call's error stays within maxErrorBytes whatever the server says.
	o := Options{HTTPClient: &http.Client{Transport: statusOf{500, strings.Repeat("\xff", 8000)}}, MaxAttempts: 1}
	id, _ := challenge.New("addtest", 1, [32]byte{1})
	r, err := New(o).Complete(context.Background(), Endpoint{BaseURL: "http://miner.invalid/v1"}, id, []envs.Message{{Role: envs.RoleUser, Content: "?"}})
	if err == nil || len(r.Call.Error) > maxErrorBytes+3 {
		t.Fatalf("error of %d bytes", len(r.Call.Error))
	}
}

type statusOf struct {
	code int
	body string
}

func (s statusOf) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: s.code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(s.body)), Request: r}, nil
}
