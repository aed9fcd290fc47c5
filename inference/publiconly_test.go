package inference_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/affine-ledger/ledger/inference"
)

// A miner's committed endpoint must not point a validator at its own
// machine: with PublicOnly, a server on loopback, named by address or by
// a host name that resolves to it, is never sent the request, and the
// call fails as a bad request, not retried. Without it, the same server
// answers.
func TestPublicOnlyRefusesLoopback(t *testing.T) {
	var requests atomic.Int32
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		io.WriteString(w, completion("4"))
	})
	byName := ep
	byName.BaseURL = strings.Replace(ep.BaseURL, "127.0.0.1", "localhost", 1)
	public := inference.New(fast(inference.Options{PublicOnly: true, MaxAttempts: 3}))
	for _, e := range []inference.Endpoint{ep, byName} {
		reply, err := public.Complete(context.Background(), e, testID, question)
		if !errors.Is(err, inference.ErrRequest) || !errors.Is(err, inference.ErrNotPublic) || reply.Call.ErrorKind != inference.KindRequest || reply.Call.Attempts != 1 {
			t.Fatalf("%s with PublicOnly: err %v, call %+v; want one refused attempt", e.BaseURL, err, reply.Call)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("the loopback server got %d requests", n)
	}
	reply, err := inference.New(fast(inference.Options{})).Complete(context.Background(), ep, testID, question)
	if err != nil || reply.Content != "4" || requests.Load() != 1 {
		t.Fatalf("without PublicOnly: %q, %v, %d requests", reply.Content, err, requests.Load())
	}
}
