package subtensor

import "context"

// rpcConn is what the client needs of its connection to a node: a JSON-RPC
// call and a subscription, over go-substrate-rpc-client's websocket
// client (transport_gsrpc.go). That library does not build for
// windows/arm64 (transport_unsupported.go).
type rpcConn interface {
	CallContext(ctx context.Context, result any, method string, args ...any) error
	// Subscribe calls namespace_subscribeMethod with args and delivers
	// each namespace_notificationMethod to channel until Unsubscribe.
	Subscribe(ctx context.Context, namespace, subscribeMethod, unsubscribeMethod, notificationMethod string, channel any, args ...any) (subscription, error)
	Close()
}

// subscription is a live rpcConn.Subscribe.
type subscription interface {
	// Err delivers the error that ended the subscription.
	Err() <-chan error
	Unsubscribe()
}
