package inference

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// ErrNotPublic refuses a connection to an address that is not a public
// unicast one (Options.PublicOnly).
var ErrNotPublic = errors.New("endpoint address is not public")

// publicOnly is a dialer Control that refuses every address but a public
// unicast one. It runs on the resolved address, once per connection, so a
// host name that resolves (or is made to resolve, later) to a loopback or
// private address is refused as the address itself would be.
func publicOnly(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrNotPublic, address, err)
	}
	if a := ap.Addr().Unmap(); !isPublic(a) {
		return fmt.Errorf("%w: %s", ErrNotPublic, a)
	}
	return nil
}

// isPublic reports whether a is a global unicast address outside every
// private, shared, documentation, benchmarking and reserved range:
// something on the open internet, not the validator's own machine, its
// network or its cloud's metadata service (169.254.169.254).
func isPublic(a netip.Addr) bool {
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// nonPublic are ranges IsGlobalUnicast and IsPrivate let through that no
// miner's public endpoint lives in (RFC 6890 and successors).
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use IPv4/IPv6 translation
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
}

// publicDialContext is the transport's DialContext under PublicOnly.
func publicDialContext() func(ctx context.Context, network, address string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: publicOnly}
	return d.DialContext
}
