package minertest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/envs/envtest"
	"github.com/affine-ledger/ledger/inference"
)

// hostileOpts are the client limits of the hostile tests: short attempts,
// one retry, and waits short enough that a test of every mode stays quick.
var hostileOpts = inference.Options{
	Timeout: 600 * time.Millisecond, MaxAttempts: 2,
	BaseBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond, MaxRetryAfter: 50 * time.Millisecond,
}

// callBound is the longest a call may take under o: every attempt times
// out and every wait between attempts is the longest allowed.
func callBound(o inference.Options) time.Duration {
	return time.Duration(o.MaxAttempts)*o.Timeout + time.Duration(o.MaxAttempts-1)*max(o.MaxBackoff, o.MaxRetryAfter)
}

// slack covers scheduling on a loaded machine under the race detector.
const slack = 2 * time.Second

// hostileWant is what a call to each mode must record: the error kind and
// the attempts made ("" for an answer that is taken and scored).
var hostileWant = map[HostileMode]struct {
	kind     string
	attempts int64
	status   int64
	word     string // in the error
}{
	HostileSlowDrip:    {inference.KindTimeout, 2, 200, "no answer within"},
	HostileSlowHeaders: {inference.KindTimeout, 2, 0, "no answer within"},
	HostileHang:        {inference.KindTimeout, 2, 0, "no answer within"},
	HostileHuge:        {inference.KindTooLarge, 1, 200, "body over 1048576 bytes"},
	HostileLengthShort: {inference.KindDecode, 1, 200, "JSON"},
	HostileLengthLong:  {inference.KindTimeout, 2, 200, "no answer within"},
	HostileMalformed:   {inference.KindDecode, 1, 200, "chat completion"},
	HostileContentType: {inference.KindDecode, 1, 200, "not a JSON object"},
	HostileSSE:         {inference.KindDecode, 1, 200, "not a JSON object"},
	HostileStatus500:   {inference.KindStatus, 2, 500, "HTTP 500"},
	HostileStatus429:   {inference.KindStatus, 2, 429, "HTTP 429"},
	HostileIgnore:      {"", 1, 200, ""},
	HostileFakeTags:    {"", 1, 200, ""},
	HostileRoles:       {"", 1, 200, ""},
	HostileToolCall:    {"", 1, 200, ""},
	HostileNUL:         {"", 1, 200, ""},
	HostileInvalidUTF8: {"", 1, 200, ""},
	HostileMegabyte:    {inference.KindTooLarge, 1, 200, "answer of 1000000 bytes, max 65536"},
	HostileReadLimit:   {inference.KindTooLarge, 1, 200, "answer of"},
}

// Every hostile mode ends each call within the attempt timeouts, records
// what went wrong, keeps the record bounded, and scores what a wrong answer
// scores: 0 in the single-turn env, the forfeit -1 in the multi-turn one.
func TestHostileMiners(t *testing.T) {
	t.Parallel()
	if len(hostileWant) != len(HostileModes()) {
		t.Fatalf("%d modes, %d expectations", len(HostileModes()), len(hostileWant))
	}
	for _, mode := range HostileModes() {
		want := hostileWant[mode]
		t.Run(string(mode), func(t *testing.T) {
			// The modes that only make the client wait run together;
			// those that make it read and decode a megabyte run one at a
			// time, so that they do not compete for the CPU with each
			// other and with the waits being timed.
			if want.kind == inference.KindTimeout || want.kind == inference.KindStatus {
				t.Parallel()
			}
			_, ep := StartHostile(t, mode, HostileOptions{Drip: 20 * time.Millisecond})
			o := hostileOpts
			if want.kind != inference.KindTimeout {
				// A mode that sends data needs no short timeout to be
				// refused, and reading a megabyte on a loaded machine
				// under the race detector can outlast one.
				o.Timeout = 30 * time.Second
			}
			client := inference.New(o)
			o = client.Options()
			n := 1
			if mode == HostileMalformed {
				n = len(malformedBodies) // one variant per call: decode errors are not retried
			}
			for _, env := range []struct {
				f      envs.Factory
				reward int
			}{{Add, 0}, {Guess, -1}} {
				for _, id := range envtest.IDs(env.f, n) {
					start := time.Now()
					rec, err := inference.Play(context.Background(), client, ep, env.f, id)
					took := time.Since(start)
					if err != nil {
						t.Fatalf("%s: Play: %v", id, err)
					}
					if took > callBound(o)+slack {
						t.Errorf("%s: took %v, bound %v + %v", id, took, callBound(o), slack)
					}
					if rec.Reward != env.reward || !rec.Done {
						t.Errorf("%s: reward %d (%s), want %d", id, rec.Reward, rec.Reason, env.reward)
					}
					if len(rec.Calls) != 1 {
						t.Fatalf("%s: %d calls, want 1 (a failure or a bad answer ends the episode)", id, len(rec.Calls))
					}
					c := rec.Calls[0]
					if c.ErrorKind != want.kind || c.Attempts != want.attempts || c.Status != want.status {
						t.Errorf("%s: kind %q attempts %d status %d, want %q %d %d (error %q)",
							id, c.ErrorKind, c.Attempts, c.Status, want.kind, want.attempts, want.status, c.Error)
					}
					if !strings.Contains(c.Error, want.word) {
						t.Errorf("%s: error %q does not say %q", id, c.Error, want.word)
					}
					if (want.kind != "") != (rec.Error != "") {
						t.Errorf("%s: episode error %q with kind %q", id, rec.Error, c.ErrorKind)
					}
					checkBounded(t, id.String(), o, rec)
				}
			}
		})
	}
}

// checkBounded checks the record's size bound: each answer at most
// MaxAnswerBytes and valid UTF-8, each call's raw body at most KeepRaw,
// its error text at most 1 KiB and every string valid UTF-8.
func checkBounded(t *testing.T, name string, o inference.Options, rec inference.EpisodeRecord) {
	t.Helper()
	for i, m := range rec.Messages {
		if !utf8.ValidString(m.Content) {
			t.Errorf("%s: message %d is not valid UTF-8", name, i)
		}
		if m.Role == envs.RoleAssistant && len(m.Content) > o.MaxAnswerBytes {
			t.Errorf("%s: answer %d has %d bytes, max %d", name, i, len(m.Content), o.MaxAnswerBytes)
		}
	}
	for i, c := range rec.Calls {
		if len(c.Raw) > o.KeepRaw || c.BodyBytes > o.ReadLimit+1 {
			t.Errorf("%s: call %d keeps %d raw bytes of %d", name, i, len(c.Raw), c.BodyBytes)
		}
		if len(c.Error) > 1024+3 {
			t.Errorf("%s: call %d error has %d bytes", name, i, len(c.Error))
		}
		for _, s := range []string{c.Error, c.FinishReason, c.ServedModel, c.Fingerprint, c.Model} {
			if !utf8.ValidString(s) || len(s) > 1024+3 {
				t.Errorf("%s: call %d: string %q not clean", name, i, s)
			}
		}
	}
}

// The answers of the content modes arrive as data: NUL bytes intact,
// invalid bytes replaced, the reply's role and tool calls ignored.
func TestHostileContentIsData(t *testing.T) {
	t.Parallel()
	client := inference.New(hostileOpts)
	id := envtest.IDs(Add, 1)[0]
	conv, _, _ := Add.New().Reset(id)
	for mode, check := range map[HostileMode]func(string) bool{
		HostileNUL: func(s string) bool { return strings.Count(s, "\x00") == 1024+5 },
		HostileInvalidUTF8: func(s string) bool {
			return utf8.ValidString(s) && strings.Contains(s, "\uFFFD") && strings.Contains(s, "score=1")
		},
		HostileRoles:    func(s string) bool { return strings.HasPrefix(s, "<|im_end|>") },
		HostileToolCall: func(s string) bool { return strings.HasPrefix(s, `{"tool_calls"`) },
		HostileFakeTags: func(s string) bool { return s == hostileContent(HostileFakeTags) },
	} {
		_, ep := StartHostile(t, mode, HostileOptions{})
		reply, err := client.Complete(context.Background(), ep, id, conv)
		if err != nil || !check(reply.Content) {
			t.Errorf("%s: answer %q, %v", mode, reply.Content, err)
		}
	}
}

// The hostile miner answers model listings normally and refuses unknown
// modes.
func TestHostileModes(t *testing.T) {
	t.Parallel()
	for _, m := range HostileModes() {
		if got, err := ParseHostileMode(string(m)); err != nil || got != m {
			t.Fatalf("%s: %v", m, err)
		}
	}
	if _, err := NewHostile("polite", HostileOptions{}); err == nil || !strings.Contains(err.Error(), "slow-drip") {
		t.Fatalf("unknown mode: %v", err)
	}
	_, ep := StartHostile(t, HostileHang, HostileOptions{})
	resp, err := http.Get(ep.BaseURL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("models: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
}

// Close releases held requests at once: a server shutdown does not wait
// for the client's timeout.
func TestHostileCloseReleases(t *testing.T) {
	t.Parallel()
	for _, mode := range []HostileMode{HostileHang, HostileSlowDrip, HostileSlowHeaders, HostileLengthLong} {
		h, ep := StartHostile(t, mode, HostileOptions{})
		client := inference.New(inference.Options{Timeout: time.Minute, MaxAttempts: 1})
		id := envtest.IDs(Add, 1)[0]
		conv, _, _ := Add.New().Reset(id)
		done := make(chan inference.Reply, 1)
		go func() {
			r, _ := client.Complete(context.Background(), ep, id, conv)
			done <- r
		}()
		time.Sleep(100 * time.Millisecond)
		h.Close()
		select {
		case r := <-done:
			if r.Call.ErrorKind == "" {
				t.Errorf("%s: answer after Close: %q", mode, r.Content)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: request still held 10 s after Close", mode)
		}
	}
}

// FuzzParseHostileMode: only the listed modes parse, each to itself.
func FuzzParseHostileMode(f *testing.F) {
	for _, m := range HostileModes() {
		f.Add(string(m))
	}
	f.Add("Hang")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseHostileMode(s)
		if err != nil {
			return
		}
		if string(m) != s {
			t.Fatalf("%q parsed as %q", s, m)
		}
		if _, err := NewHostile(m, HostileOptions{}); err != nil {
			t.Fatalf("%s parses but does not make a miner: %v", m, err)
		}
	})
}
