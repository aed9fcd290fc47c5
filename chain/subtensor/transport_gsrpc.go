//go:build !(windows && arm64)

package subtensor

import (
	"context"

	gsclient "github.com/centrifuge/go-substrate-rpc-client/v4/client"
)

// connect dials a node's websocket JSON-RPC (ws:// or wss://).
func connect(url string) (rpcConn, error) {
	c, err := gsclient.Connect(url)
	if err != nil {
		return nil, err
	}
	return gsrpcConn{c}, nil
}

type gsrpcConn struct{ c gsclient.Client }

func (g gsrpcConn) CallContext(ctx context.Context, result any, method string, args ...any) error {
	return g.c.CallContext(ctx, result, method, args...)
}

func (g gsrpcConn) Subscribe(ctx context.Context, namespace, subscribeMethod, unsubscribeMethod, notificationMethod string, channel any, args ...any) (subscription, error) {
	sub, err := g.c.Subscribe(ctx, namespace, subscribeMethod, unsubscribeMethod, notificationMethod, channel, args...)
	if err != nil {
		// Not a nil *ClientSubscription in a non-nil interface.
		return nil, err
	}
	return sub, nil
}

func (g gsrpcConn) Close() { g.c.Close() }
