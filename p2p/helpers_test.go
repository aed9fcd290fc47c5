package p2p

import (
	"fmt"
	"net"
	"testing"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/affine-ledger/ledger/codec"
)

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	data, err := codec.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// freeTCPAddr is a loopback TCP address nothing listened on a moment ago:
// a peer's address that nobody answers at, until a host listens there.
func freeTCPAddr(t *testing.T) ma.Multiaddr {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ma.StringCast(fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", ln.Addr().(*net.TCPAddr).Port))
}
