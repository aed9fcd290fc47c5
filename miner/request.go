package miner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/affine-ledger/ledger/envs"
	"github.com/affine-ledger/ledger/inference"
)

// requestError is a refused request: its HTTP status, OpenAI error type and
// message.
type requestError struct {
	status int
	kind   string
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &requestError{status: http.StatusBadRequest, kind: "invalid_request_error", msg: fmt.Sprintf(format, args...)}
}

// readRequest decodes and checks a chat-completions request. model, when the
// request names one, must be the served model, as OpenAI-compatible servers
// answer 404 for a model they do not serve.
func readRequest(w http.ResponseWriter, r *http.Request, model string) (inference.ChatRequest, error) {
	var req inference.ChatRequest
	// Reading the body to its end also lets the server notice a client
	// that hangs up (it watches the connection only after the body), which
	// is what ends a hanging or slow answer.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return req, &requestError{status: http.StatusRequestEntityTooLarge, kind: "invalid_request_error",
				msg: fmt.Sprintf("request body over %d bytes", MaxRequestBytes)}
		}
		return req, badRequest("request body is not a chat-completions request: %v", err)
	}
	if req.Model != "" && req.Model != model {
		return req, &requestError{status: http.StatusNotFound, kind: "model_not_found",
			msg: fmt.Sprintf("model %q is not served here (this is %q)", req.Model, model)}
	}
	if req.Stream {
		return req, badRequest("stream: true is not supported")
	}
	if len(req.Messages) == 0 {
		return req, badRequest("messages must not be empty")
	}
	for i, m := range req.Messages {
		switch m.Role {
		case envs.RoleSystem, envs.RoleUser, envs.RoleAssistant:
		default:
			return req, badRequest("messages[%d]: unknown role %q", i, m.Role)
		}
	}
	return req, nil
}
