package inference

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/affine-ledger/ledger/challenge"
	"github.com/affine-ledger/ledger/envs"
)

// Defaults of Options, normative in spec/inference.md.
const (
	DefaultTimeout       = 600 * time.Second
	DefaultMaxAttempts   = 3
	DefaultBaseBackoff   = 1 * time.Second
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
	DefaultMaxTokens     = 16384
	DefaultPerMiner      = 4
	DefaultOverall       = 64
	DefaultReadLimit     = 1 << 20
	DefaultKeepRaw       = 64 << 10
	// DefaultHeaderLimit bounds the response header bytes the default
	// HTTPClient reads: Go's own default is 10 MiB, ten times the read
	// limit, which a miner could make every attempt in flight hold.
	DefaultHeaderLimit = 64 << 10
)

// maxErrorBytes bounds Call.Error.
const maxErrorBytes = 1024

// Options configures a Client. Zero fields take the Default* values.
type Options struct {
	// HTTPClient sends the requests. The default refuses redirects (a
	// redirected POST is not the endpoint the miner committed to), reads
	// at most DefaultHeaderLimit bytes of response headers, and has no
	// timeout of its own: Timeout applies per attempt through the
	// request's context.
	HTTPClient *http.Client
	// Timeout bounds one attempt, from sending the request to having read
	// the body. Time spent waiting for a concurrency slot is not counted.
	Timeout time.Duration
	// MaxAttempts bounds the HTTP requests of one call.
	MaxAttempts int
	// BaseBackoff and MaxBackoff shape the wait between attempts.
	BaseBackoff, MaxBackoff time.Duration
	// MaxRetryAfter caps how long a server's Retry-After can make us wait.
	MaxRetryAfter time.Duration
	// MaxTokens is sent as "max_tokens".
	MaxTokens int
	// PerMiner and Overall bound the attempts in flight to one endpoint
	// key and in all.
	PerMiner, Overall int
	// ReadLimit is the most body bytes read; a larger 2xx body fails the
	// call as too large (an error status's body is cut there, its status
	// decides).
	ReadLimit int64
	// KeepRaw is the most body bytes kept in Call.Raw.
	KeepRaw int
	// MaxAnswerBytes is the longest answer taken (default
	// envs.MaxAnswerBytes, which no env reads past); a longer one fails
	// the call as too large. It bounds what a miner puts in a transcript:
	// without it a body just under ReadLimit would be recorded whole, and
	// could push a conversation past the ledger's limit.
	MaxAnswerBytes int
	// PublicOnly makes the default HTTPClient connect to public unicast
	// addresses only, through no proxy: a miner's committed endpoint must
	// not point a validator at its own machine, its network or its
	// cloud's metadata service. The address is checked as dialled, after
	// name resolution. A refused connection fails the call as a bad
	// request (ErrRequest, not retried). Off for local networks and tests.
	PublicOnly bool
}

func (o Options) withDefaults() Options {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Timeout, DefaultTimeout)
	def(&o.BaseBackoff, DefaultBaseBackoff)
	def(&o.MaxBackoff, DefaultMaxBackoff)
	def(&o.MaxRetryAfter, DefaultMaxRetryAfter)
	defInt(&o.MaxAttempts, DefaultMaxAttempts)
	defInt(&o.MaxTokens, DefaultMaxTokens)
	defInt(&o.PerMiner, DefaultPerMiner)
	defInt(&o.Overall, DefaultOverall)
	defInt(&o.KeepRaw, DefaultKeepRaw)
	defInt(&o.MaxAnswerBytes, envs.MaxAnswerBytes)
	if o.ReadLimit <= 0 {
		o.ReadLimit = DefaultReadLimit
	}
	if o.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = o.PerMiner
		tr.MaxResponseHeaderBytes = DefaultHeaderLimit
		if o.PublicOnly {
			tr.Proxy = nil
			tr.DialContext = publicDialContext()
		}
		o.HTTPClient = &http.Client{
			Transport:     tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return o
}

// Client asks miners for answers. It is safe for concurrent use; its
// concurrency limits hold across all goroutines using it.
type Client struct {
	opts  Options
	limit *limiter
}

// New returns a Client with opts (zero fields take their defaults).
func New(opts Options) *Client {
	opts = opts.withDefaults()
	return &Client{opts: opts, limit: newLimiter(opts.PerMiner, opts.Overall)}
}

// Options returns the options in force, defaults filled in.
func (c *Client) Options() Options { return c.opts }

// Reply is the outcome of Complete: the answer and the record of the call.
type Reply struct {
	// Content is the answer, valid UTF-8; "" when the call failed.
	Content string
	Call    Call
}

// Complete sends conversation (the whole of it: multi-turn environments
// pass every earlier turn again) to ep with the sampling parameters of
// challenge id, retrying as spec/inference.md says. It returns an error,
// also recorded in Reply.Call, when no answer could be had; the error wraps
// one of the Err* sentinels (and context.Canceled or DeadlineExceeded when
// ctx ended). Complete never waits beyond ctx.
func (c *Client) Complete(ctx context.Context, ep Endpoint, id challenge.ID, conversation []envs.Message) (Reply, error) {
	start := time.Now()
	call := Call{Model: ep.Model, MaxTokens: int64(c.opts.MaxTokens)}
	comp, err := c.complete(ctx, ep, id, conversation, &call)
	call.ElapsedMS = time.Since(start).Milliseconds()
	if err != nil {
		err = fmt.Errorf("miner %s: %w", clean(ep.key(), 200), err)
		call.ErrorKind, call.Error = kindOf(err), clean(err.Error(), maxErrorBytes)
		return Reply{Call: call}, err
	}
	call.FinishReason, call.ServedModel, call.Fingerprint = comp.FinishReason, comp.Model, comp.Fingerprint
	call.PromptTokens, call.CompletionTokens, call.TotalTokens = comp.Usage.PromptTokens, comp.Usage.CompletionTokens, comp.Usage.TotalTokens
	return Reply{Content: comp.Content, Call: call}, nil
}

func (c *Client) complete(ctx context.Context, ep Endpoint, id challenge.ID, conversation []envs.Message, call *Call) (Completion, error) {
	seed, err := Seed(id)
	if err != nil {
		return Completion{}, fmt.Errorf("%w: %v", ErrRequest, err)
	}
	call.Seed = seed
	url, err := ep.url()
	if err != nil {
		return Completion{}, err
	}
	body, err := json.Marshal(ChatRequest{
		Model:       ep.Model,
		Messages:    conversation,
		Temperature: 0,
		Seed:        &seed,
		MaxTokens:   c.opts.MaxTokens,
	})
	if err != nil {
		return Completion{}, fmt.Errorf("%w: encode: %v", ErrRequest, err)
	}
	for attempt := 1; ; attempt++ {
		release, err := c.limit.acquire(ctx, ep.key())
		if err != nil {
			return Completion{}, fmt.Errorf("%w: waiting for a slot: %w", ErrCanceled, err)
		}
		call.Attempts = int64(attempt)
		comp, fail := c.attempt(ctx, url, ep.APIKey, body, call)
		release()
		if fail == nil {
			return comp, nil
		}
		err = fmt.Errorf("attempt %d/%d: %w", attempt, c.opts.MaxAttempts, fail.err)
		if !fail.retry || attempt >= c.opts.MaxAttempts {
			return Completion{}, err
		}
		wait := backoff(attempt, c.opts.BaseBackoff, c.opts.MaxBackoff)
		if fail.hasRetryAfter {
			wait = fail.retryAfter
		}
		if err := sleep(ctx, wait); err != nil {
			return Completion{}, fmt.Errorf("%w: during backoff after %v", ErrCanceled, err)
		}
	}
}

// failure is a failed attempt: its error, whether another attempt may
// help, and the server's Retry-After if it sent one.
type failure struct {
	err           error
	retry         bool
	hasRetryAfter bool
	retryAfter    time.Duration
}

func (c *Client) attempt(ctx context.Context, url, apiKey string, body []byte, call *Call) (Completion, *failure) {
	// The deadline and the latency share one start, so that an attempt
	// that timed out never records less than the timeout (a busy machine
	// may deschedule this goroutine between two clock reads).
	sent := time.Now()
	actx, cancel := context.WithDeadline(ctx, sent.Add(c.opts.Timeout))
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Completion{}, &failure{err: fmt.Errorf("%w: %v", ErrRequest, err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "ledger-inference/1")
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	call.Status, call.BodyBytes, call.Raw = 0, 0, nil
	defer func() { call.LatencyMS = time.Since(sent).Milliseconds() }()

	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		return Completion{}, c.networkFailure(ctx, actx, err)
	}
	defer resp.Body.Close()
	call.Status = int64(resp.StatusCode)
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.ReadLimit+1))
	call.BodyBytes = int64(len(raw))
	call.Raw = bytes.Clone(raw[:min(len(raw), c.opts.KeepRaw)])
	if err != nil {
		return Completion{}, c.networkFailure(ctx, actx, fmt.Errorf("reading body: %w", err))
	}
	over := int64(len(raw)) > c.opts.ReadLimit
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Only a 2xx body is an answer: an error's body, however long, is
		// the server's, so the status alone says whether to ask again (a
		// proxy's long error page must not make a 503 final).
		detail := statusDetail(raw)
		if over {
			detail = fmt.Sprintf("body over %d bytes, starting %s", c.opts.ReadLimit, detail)
		}
		f := &failure{
			err:   fmt.Errorf("%w: HTTP %d: %s", ErrStatus, resp.StatusCode, detail),
			retry: retryableStatus(resp.StatusCode),
		}
		f.retryAfter, f.hasRetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now(), c.opts.MaxRetryAfter)
		return Completion{}, f
	}
	if over {
		return Completion{}, &failure{err: fmt.Errorf("%w: body over %d bytes", ErrTooLarge, c.opts.ReadLimit)}
	}
	comp, err := DecodeResponse(raw)
	if err != nil {
		return Completion{}, &failure{err: err}
	}
	if len(comp.Content) > c.opts.MaxAnswerBytes {
		return Completion{}, &failure{err: fmt.Errorf("%w: answer of %d bytes, max %d", ErrTooLarge, len(comp.Content), c.opts.MaxAnswerBytes)}
	}
	return comp, nil
}

// networkFailure classifies an error of sending or reading: the caller's
// context ending is final, the attempt's own deadline is a timeout, anything
// else a transport failure; the latter two may be retried.
func (c *Client) networkFailure(ctx, actx context.Context, err error) *failure {
	switch {
	case ctx.Err() != nil:
		return &failure{err: fmt.Errorf("%w: %w", ErrCanceled, context.Cause(ctx))}
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return &failure{err: fmt.Errorf("%w: no answer within %v", ErrTimeout, c.opts.Timeout), retry: true}
	case errors.Is(err, ErrNotPublic):
		// Asking again would dial the same address.
		return &failure{err: fmt.Errorf("%w: %w", ErrRequest, err)}
	default:
		return &failure{err: fmt.Errorf("%w: %v", ErrTransport, err), retry: true}
	}
}

// statusDetail gives the reason of an error body: the OpenAI error message
// when there is one, else the start of the body.
func statusDetail(raw []byte) string {
	if body, err := members(bytes.TrimLeft(raw, jsonSpace)); err == nil && isPresent(body["error"]) {
		return errorMessage(body["error"])
	}
	return fmt.Sprintf("%q", clean(string(raw), 200))
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
