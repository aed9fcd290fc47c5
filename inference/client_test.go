package inference_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/codec"
	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/inference"
)

var testID = func() challenge.ID {
	id, err := challenge.New("addtest", 1, [32]byte{1, 2, 3})
	if err != nil {
		panic(err)
	}
	return id
}()

var question = []envs.Message{{Role: envs.RoleSystem, Content: "be brief"}, {Role: envs.RoleUser, Content: "2+2?"}}

// fast keeps retry tests short: tiny backoff, short attempts.
func fast(o inference.Options) inference.Options {
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	if o.BaseBackoff == 0 {
		o.BaseBackoff = 5 * time.Millisecond
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 20 * time.Millisecond
	}
	return o
}

// serve starts h on loopback for the test and returns its endpoint.
func serve(t *testing.T, h http.HandlerFunc) inference.Endpoint {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return inference.Endpoint{BaseURL: s.URL + "/v1", Model: "test-model", APIKey: "sk-test"}
}

// hang holds a request until the client gives up. It reads the body first:
// the server notices a client hanging up only once the body is consumed.
func hang(r *http.Request) {
	io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

func completion(content string) string {
	b, _ := json.Marshal(map[string]any{
		"model": "test-model", "system_fingerprint": "fp-abc",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
	})
	return string(b)
}

func TestCompleteSendsSpecRequest(t *testing.T) {
	var got map[string]json.RawMessage
	var header http.Header
	var method, path string
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		method, path, header = r.Method, r.URL.Path, r.Header.Clone()
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &got); err != nil {
			t.Errorf("request body %q: %v", body, err)
		}
		io.WriteString(w, completion("4"))
	})
	c := inference.New(fast(inference.Options{MaxTokens: 1234}))
	reply, err := c.Complete(context.Background(), ep, testID, question)
	if err != nil {
		t.Fatal(err)
	}
	if method != "POST" || path != "/v1/chat/completions" {
		t.Errorf("request %s %s", method, path)
	}
	if header.Get("Authorization") != "Bearer sk-test" || header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", header)
	}
	seed, _ := inference.Seed(testID)
	want := map[string]string{
		"model":       `"test-model"`,
		"temperature": `0`,
		"seed":        fmt.Sprint(seed),
		"max_tokens":  `1234`,
		"stream":      `false`,
		"messages":    `[{"role":"system","content":"be brief"},{"role":"user","content":"2+2?"}]`,
	}
	for k, v := range want {
		if string(got[k]) != v {
			t.Errorf("request %s = %s, want %s", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("request has fields %v, want exactly %v", keys(got), want)
	}
	call := reply.Call
	if reply.Content != "4" || call.Attempts != 1 || call.Status != 200 || call.Seed != seed || call.MaxTokens != 1234 ||
		call.Model != "test-model" || call.ServedModel != "test-model" || call.Fingerprint != "fp-abc" || call.FinishReason != "stop" ||
		call.PromptTokens != 11 || call.CompletionTokens != 3 || call.TotalTokens != 14 || call.Error != "" || call.ErrorKind != "" {
		t.Errorf("reply %+v", reply)
	}
	if string(call.Raw) != completion("4") || call.BodyBytes != int64(len(completion("4"))) {
		t.Errorf("raw %q (%d bytes)", call.Raw, call.BodyBytes)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestRetryAfterThenSuccess(t *testing.T) {
	var n atomic.Int32
	var gap time.Duration
	var first time.Time
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"slow down"}}`)
			return
		}
		gap = time.Since(first)
		io.WriteString(w, completion("ok"))
	})
	reply, err := inference.New(fast(inference.Options{})).Complete(context.Background(), ep, testID, question)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != "ok" || reply.Call.Attempts != 2 || reply.Call.Status != 200 {
		t.Fatalf("reply %+v", reply)
	}
	// The backoff alone would be at most 20ms: the second second is the
	// server's Retry-After.
	if gap < time.Second || gap > 3*time.Second {
		t.Fatalf("retried after %v, want about the 1s Retry-After", gap)
	}
}

func TestRetryAfterIsCapped(t *testing.T) {
	var n atomic.Int32
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, completion("ok"))
	})
	start := time.Now()
	reply, err := inference.New(fast(inference.Options{MaxRetryAfter: 200 * time.Millisecond})).Complete(context.Background(), ep, testID, question)
	if err != nil || reply.Call.Attempts != 2 {
		t.Fatalf("reply %+v, %v", reply, err)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 3*time.Second {
		t.Fatalf("took %v, want the 200ms cap", d)
	}
}

func TestServerErrorsGiveUp(t *testing.T) {
	var n atomic.Int32
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, `{"error":{"message":"upstream died","type":"server_error"}}`)
	})
	reply, err := inference.New(fast(inference.Options{MaxAttempts: 4})).Complete(context.Background(), ep, testID, question)
	if !errors.Is(err, inference.ErrStatus) {
		t.Fatalf("err = %v, want ErrStatus", err)
	}
	c := reply.Call
	if n.Load() != 4 || c.Attempts != 4 || c.Status != 502 || c.ErrorKind != inference.KindStatus ||
		!strings.Contains(c.Error, "upstream died") || !strings.Contains(c.Error, "attempt 4/4") || reply.Content != "" {
		t.Fatalf("server saw %d requests; call %+v", n.Load(), c)
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	for _, status := range []int{400, 401, 404, 422} {
		var n atomic.Int32
		ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.WriteHeader(status)
		})
		reply, err := inference.New(fast(inference.Options{})).Complete(context.Background(), ep, testID, question)
		if !errors.Is(err, inference.ErrStatus) || n.Load() != 1 || reply.Call.Status != int64(status) {
			t.Errorf("HTTP %d: %d requests, err %v", status, n.Load(), err)
		}
	}
}

func TestTimeoutRetriesThenFails(t *testing.T) {
	var n atomic.Int32
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		hang(r)
	})
	start := time.Now()
	reply, err := inference.New(fast(inference.Options{Timeout: 100 * time.Millisecond, MaxAttempts: 2})).Complete(context.Background(), ep, testID, question)
	if !errors.Is(err, inference.ErrTimeout) || reply.Call.ErrorKind != inference.KindTimeout {
		t.Fatalf("err = %v, kind %q; want a timeout", err, reply.Call.ErrorKind)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 2*time.Second {
		t.Errorf("two 100ms attempts took %v", d)
	}
	if n.Load() != 2 || reply.Call.Attempts != 2 || reply.Call.Status != 0 || reply.Call.LatencyMS < 100 {
		t.Errorf("server saw %d; call %+v", n.Load(), reply.Call)
	}
}

func TestBodyThatStallsTimesOut(t *testing.T) {
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"choices":[{"message":{"content":"`)
		w.(http.Flusher).Flush()
		hang(r)
	})
	reply, err := inference.New(fast(inference.Options{Timeout: 100 * time.Millisecond, MaxAttempts: 1})).Complete(context.Background(), ep, testID, question)
	if !errors.Is(err, inference.ErrTimeout) || reply.Call.Status != 200 || !strings.HasPrefix(string(reply.Call.Raw), `{"choices"`) {
		t.Fatalf("err %v call %+v", err, reply.Call)
	}
}

func TestHugeBodyIsCutAndRefused(t *testing.T) {
	big := `{"choices":[{"message":{"content":"` + strings.Repeat("x", 2<<20) + `"}}]}`
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, big) })
	reply, err := inference.New(fast(inference.Options{})).Complete(context.Background(), ep, testID, question)
	if !errors.Is(err, inference.ErrTooLarge) || reply.Call.ErrorKind != inference.KindTooLarge || reply.Call.Attempts != 1 {
		t.Fatalf("err = %v, call kind %q attempts %d", err, reply.Call.ErrorKind, reply.Call.Attempts)
	}
	if reply.Call.BodyBytes != inference.DefaultReadLimit+1 || len(reply.Call.Raw) != inference.DefaultKeepRaw || string(reply.Call.Raw) != big[:inference.DefaultKeepRaw] {
		t.Fatalf("read %d bytes, kept %d", reply.Call.BodyBytes, len(reply.Call.Raw))
	}
}

// An answer of exactly MaxAnswerBytes is taken, and only the start of its
// body is kept raw.
func TestLargestAnswerKeepsRawPrefix(t *testing.T) {
	answer := strings.Repeat("y", envs.MaxAnswerBytes)
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, completion(answer)) })
	reply, err := inference.New(fast(inference.Options{})).Complete(context.Background(), ep, testID, question)
	if err != nil || reply.Content != answer {
		t.Fatalf("err %v, content of %d bytes", err, len(reply.Content))
	}
	if len(reply.Call.Raw) != inference.DefaultKeepRaw || reply.Call.BodyBytes != int64(len(completion(answer))) {
		t.Fatalf("kept %d of %d bytes", len(reply.Call.Raw), reply.Call.BodyBytes)
	}
}

// An answer one byte over MaxAnswerBytes (counted after invalid bytes are
// replaced) fails the call as too large, at once: asking again would get
// the same. The limit is an option.
func TestAnswerOverLimitIsTooLarge(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer string
		opts   inference.Options
		size   int // of the answer taken
	}{
		{"one byte over", strings.Repeat("y", envs.MaxAnswerBytes+1), inference.Options{}, envs.MaxAnswerBytes + 1},
		{"a megabyte", strings.Repeat("y", 1000_000), inference.Options{}, 1000_000},
		{"over a lower limit", "<answer>12</answer>", inference.Options{MaxAnswerBytes: 18}, 19},
		// The invalid byte becomes the three bytes of U+FFFD.
		{"over once cleaned", strings.Repeat("y", envs.MaxAnswerBytes-1) + "\xff", inference.Options{}, envs.MaxAnswerBytes + 2},
	} {
		var n atomic.Int32
		ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			io.WriteString(w, completion(c.answer))
		})
		reply, err := inference.New(fast(c.opts)).Complete(context.Background(), ep, testID, question)
		if !errors.Is(err, inference.ErrTooLarge) || reply.Call.ErrorKind != inference.KindTooLarge || n.Load() != 1 || reply.Content != "" {
			t.Fatalf("%s: err %v, kind %q, %d requests, content of %d bytes", c.name, err, reply.Call.ErrorKind, n.Load(), len(reply.Content))
		}
		if !strings.Contains(reply.Call.Error, fmt.Sprintf("answer of %d bytes", c.size)) || reply.Call.Status != 200 {
			t.Fatalf("%s: error %q, status %d", c.name, reply.Call.Error, reply.Call.Status)
		}
	}
	// At the lower limit exactly, the answer is taken.
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, completion("<answer>1</answer>")) })
	reply, err := inference.New(fast(inference.Options{MaxAnswerBytes: 18})).Complete(context.Background(), ep, testID, question)
	if err != nil || reply.Content != "<answer>1</answer>" {
		t.Fatalf("answer at the limit: %q, %v", reply.Content, err)
	}
}

func TestInvalidJSONIsADecodeError(t *testing.T) {
	var n atomic.Int32
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.WriteString(w, `{"choices":[{"message":{"content":"4"}}]`)
	})
	reply, err := inference.New(fast(inference.Options{})).Complete(context.Background(), ep, testID, question)
	if !errors.Is(err, inference.ErrDecode) || reply.Call.ErrorKind != inference.KindDecode || n.Load() != 1 || reply.Call.Status != 200 {
		t.Fatalf("err %v, kind %q, %d requests", err, reply.Call.ErrorKind, n.Load())
	}
}

func TestInvalidUTF8IsReplaced(t *testing.T) {
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("{\"model\":\"m\xff\",\"choices\":[{\"message\":{\"content\":\"<answer>4\xfe\xff</answer>\"}}]}"))
	})
	reply, err := inference.New(fast(inference.Options{})).Complete(context.Background(), ep, testID, question)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(reply.Content) || reply.Content != "<answer>4\uFFFD</answer>" || !utf8.ValidString(reply.Call.ServedModel) {
		t.Fatalf("content %q model %q", reply.Content, reply.Call.ServedModel)
	}
	// The raw body stays as sent, as bytes.
	if !strings.Contains(string(reply.Call.Raw), "\xfe\xff") {
		t.Fatalf("raw body was altered: %q", reply.Call.Raw)
	}
}

func TestUnreachableMinerIsATransportError(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	url := s.URL
	s.Close()
	reply, err := inference.New(fast(inference.Options{MaxAttempts: 2})).Complete(context.Background(), inference.Endpoint{BaseURL: url + "/v1"}, testID, question)
	if !errors.Is(err, inference.ErrTransport) || reply.Call.Attempts != 2 || reply.Call.ErrorKind != inference.KindTransport {
		t.Fatalf("err %v call %+v", err, reply.Call)
	}
}

func TestBadEndpointOrID(t *testing.T) {
	c := inference.New(fast(inference.Options{}))
	for _, ep := range []inference.Endpoint{{BaseURL: ""}, {BaseURL: "ftp://x/v1"}, {BaseURL: "http://%zz"}} {
		reply, err := c.Complete(context.Background(), ep, testID, question)
		if !errors.Is(err, inference.ErrRequest) || reply.Call.Attempts != 0 || reply.Call.ErrorKind != inference.KindRequest {
			t.Errorf("%q: err %v call %+v", ep.BaseURL, err, reply.Call)
		}
	}
	if _, err := c.Complete(context.Background(), inference.Endpoint{BaseURL: "http://127.0.0.1:1/v1"}, challenge.ID{Env: "X"}, question); !errors.Is(err, inference.ErrRequest) {
		t.Errorf("bad ID: %v", err)
	}
}

func TestChutesEndpoint(t *testing.T) {
	ep, err := inference.Chutes("chutes-deepseek-v3", "deepseek-ai/DeepSeek-V3", "k")
	if err != nil || ep.BaseURL != "https://chutes-deepseek-v3.chutes.ai/v1" || ep.Key != "chutes-deepseek-v3" || ep.APIKey != "k" {
		t.Fatalf("%+v, %v", ep, err)
	}
	for _, bad := range []string{"", "-a", "a-", "A", "a.b", "a/b", strings.Repeat("a", 64)} {
		if _, err := inference.Chutes(bad, "m", ""); !errors.Is(err, inference.ErrRequest) {
			t.Errorf("slug %q accepted", bad)
		}
	}
}

// inflight counts requests being served and remembers the most at once.
type inflight struct {
	now, peak atomic.Int32
}

func (f *inflight) enter() {
	n := f.now.Add(1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

func (f *inflight) handler(total *inflight) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f.enter()
		total.enter()
		time.Sleep(30 * time.Millisecond)
		f.now.Add(-1)
		total.now.Add(-1)
		io.WriteString(w, completion("ok"))
	}
}

func TestConcurrencyLimits(t *testing.T) {
	var total, a, b inflight
	epA, epB := serve(t, a.handler(&total)), serve(t, b.handler(&total))
	c := inference.New(fast(inference.Options{PerMiner: 3, Overall: 4}))
	var wg sync.WaitGroup
	for i := 0; i < 24; i++ {
		ep := epA
		if i%2 == 1 {
			ep = epB
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Complete(context.Background(), ep, testID, question); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if a.peak.Load() > 3 || b.peak.Load() > 3 || total.peak.Load() > 4 {
		t.Fatalf("peaks: a %d b %d total %d; limits 3 per miner, 4 overall", a.peak.Load(), b.peak.Load(), total.peak.Load())
	}
	if total.peak.Load() < 4 || a.peak.Load() < 2 {
		t.Fatalf("peaks: a %d total %d; the limits were never reached, so the test proves nothing", a.peak.Load(), total.peak.Load())
	}
}

func TestPerMinerLimitAlone(t *testing.T) {
	var total, a inflight
	ep := serve(t, a.handler(&total))
	c := inference.New(fast(inference.Options{PerMiner: 2}))
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Complete(context.Background(), ep, testID, question)
		}()
	}
	wg.Wait()
	if a.peak.Load() != 2 {
		t.Fatalf("peak %d in flight, want exactly the limit 2", a.peak.Load())
	}
}

func TestCancellationReturnsPromptly(t *testing.T) {
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) { hang(r) })
	c := inference.New(inference.Options{PerMiner: 1}) // default 600s timeout
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	replies := make(chan inference.Reply, 2)
	for i := 0; i < 2; i++ { // the second waits for the first's slot
		go func() {
			r, err := c.Complete(ctx, ep, testID, question)
			replies <- r
			errs <- err
		}()
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	cancel()
	var attempts []int64
	for i := 0; i < 2; i++ {
		select {
		case err := <-errs:
			r := <-replies
			attempts = append(attempts, r.Call.Attempts)
			if !errors.Is(err, inference.ErrCanceled) || !errors.Is(err, context.Canceled) || r.Call.ErrorKind != inference.KindCanceled {
				t.Errorf("err %v kind %q", err, r.Call.ErrorKind)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("Complete did not return after cancel")
		}
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("returned %v after cancel", d)
	}
	if !(attempts[0]+attempts[1] == 1) {
		t.Errorf("attempts %v: want one call in flight and one waiting for the slot", attempts)
	}
}

func TestCallEncodesAsRecord(t *testing.T) {
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, completion("4")) })
	reply, err := inference.New(fast(inference.Options{})).Complete(context.Background(), ep, testID, question)
	if err != nil {
		t.Fatal(err)
	}
	b, err := codec.Marshal(reply.Call)
	if err != nil {
		t.Fatal(err)
	}
	var back inference.Call
	if err := codec.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Seed != reply.Call.Seed || string(back.Raw) != string(reply.Call.Raw) || back.Fingerprint != "fp-abc" {
		t.Fatalf("round trip: %+v", back)
	}
}

// A status outside 2xx is the server's, whatever the length of its body:
// the body is not an answer (only a 2xx one is), so its size does not make
// the failure final. A 5xx, 408 or 429 with a body over the read limit is
// retried as a server error and recorded as one (kind status, the status,
// the body cut at the limit); another 4xx is final as any 4xx is.
func TestOversizedErrorBodyIsAStatusFailure(t *testing.T) {
	const limit = 4096
	big := strings.Repeat("<html>upstream failed</html>", 2*limit/28)
	for _, c := range []struct {
		status  int
		retried bool
	}{{500, true}, {502, true}, {503, true}, {408, true}, {429, true}, {400, false}, {404, false}, {302, false}} {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			var n atomic.Int32
			ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				w.WriteHeader(c.status)
				io.WriteString(w, big)
			})
			reply, err := inference.New(fast(inference.Options{ReadLimit: limit, MaxAttempts: 3})).Complete(context.Background(), ep, testID, question)
			want := int32(1)
			if c.retried {
				want = 3
			}
			call := reply.Call
			if !errors.Is(err, inference.ErrStatus) || errors.Is(err, inference.ErrTooLarge) || call.ErrorKind != inference.KindStatus {
				t.Fatalf("err %v, kind %q; want a status failure", err, call.ErrorKind)
			}
			if n.Load() != want || call.Attempts != int64(want) || call.Status != int64(c.status) {
				t.Fatalf("server saw %d requests, call made %d with status %d; want %d", n.Load(), call.Attempts, call.Status, want)
			}
			if call.BodyBytes != limit+1 || string(call.Raw) != big[:limit+1] || !strings.Contains(call.Error, fmt.Sprintf("HTTP %d", c.status)) ||
				!strings.Contains(call.Error, "over 4096 bytes") {
				t.Fatalf("body of %d bytes read, %d kept, error %q", call.BodyBytes, len(call.Raw), call.Error)
			}
		})
	}
	// A server error with an oversized body, then an answer: the call
	// answers.
	var n atomic.Int32
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, big)
			return
		}
		io.WriteString(w, completion("4"))
	})
	reply, err := inference.New(fast(inference.Options{ReadLimit: limit})).Complete(context.Background(), ep, testID, question)
	if err != nil || reply.Content != "4" || reply.Call.Attempts != 2 {
		t.Fatalf("503 with a large body, then 200: err %v, content %q, %d attempts", err, reply.Content, reply.Call.Attempts)
	}
}
