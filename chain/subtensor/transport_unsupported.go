//go:build windows && arm64

package subtensor

import (
	"errors"
	"runtime"
)

// connect refuses: go-substrate-rpc-client, the websocket JSON-RPC client
// the backend uses, pulls in gopkg.in/natefinch/npipe.v2, which has
// system-call files for Windows on 386 and amd64 only.
func connect(string) (rpcConn, error) {
	return nil, errUnsupported
}

var errUnsupported = errors.New("the subtensor backend is not in the " + runtime.GOOS + "/" + runtime.GOARCH +
	" build: its RPC library (go-substrate-rpc-client) does not build there; run the node on windows/amd64, Linux or macOS, or against a local chain (--chain local+http://...)")
