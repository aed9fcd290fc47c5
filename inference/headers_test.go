package inference_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/affine-ledger/ledger/inference"
)

// Response headers are bounded like the body: Go's transport reads up to
// 10 MiB of them by default, ten times the read limit, so each attempt in
// flight could be made to hold that much. Headers over
// inference.DefaultHeaderLimit fail the attempt as a transport failure;
// headers just under it are read.
func TestResponseHeadersAreBounded(t *testing.T) {
	for _, c := range []struct {
		bytes int
		fails bool
	}{{inference.DefaultHeaderLimit / 2, false}, {1 << 20, true}} {
		t.Run(fmt.Sprint(c.bytes), func(t *testing.T) {
			line := strings.Repeat("h", 1000)
			ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
				for i := 0; i < c.bytes/(len(line)+16); i++ {
					w.Header().Set(fmt.Sprintf("X-Pad-%d", i), line)
				}
				io.WriteString(w, completion("4"))
			})
			reply, err := inference.New(fast(inference.Options{MaxAttempts: 1})).Complete(context.Background(), ep, testID, question)
			switch {
			case c.fails && (!errors.Is(err, inference.ErrTransport) || reply.Call.ErrorKind != inference.KindTransport || reply.Call.Status != 0):
				t.Fatalf("%d bytes of headers: err %v, call %+v", c.bytes, err, reply.Call)
			case !c.fails && (err != nil || reply.Content != "4"):
				t.Fatalf("%d bytes of headers: err %v, content %q", c.bytes, err, reply.Content)
			}
		})
	}
}
