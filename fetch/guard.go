package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// errBlocked is the cause of a connection refused by the guard.
var errBlocked = errors.New("address blocked by BlockPrivateNetworks")

var (
	thisNetwork   = netip.MustParsePrefix("0.0.0.0/8")     // RFC 1122; Linux connects 0.0.0.0 to the local host
	sharedAddress = netip.MustParsePrefix("100.64.0.0/10") // RFC 6598, carrier-grade NAT, often internal
)

// blockedAddr reports whether the guard refuses to connect to ap: an
// address that reaches the local host or a private network rather than the
// public Internet. IPv4-mapped IPv6 addresses are judged as the IPv4 address
// they carry.
func blockedAddr(ap netip.AddrPort) bool {
	a := ap.Addr().Unmap()
	return !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() ||
		thisNetwork.Contains(a) || sharedAddress.Contains(a)
}

// guardControl returns a net.Dialer ControlContext that refuses, before
// connecting, the addresses blocked reports.
func guardControl(blocked func(netip.AddrPort) bool) func(context.Context, string, string, syscall.RawConn) error {
	return func(_ context.Context, _, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || blocked(ap) {
			return fmt.Errorf("%w: %s", errBlocked, address)
		}
		return nil
	}
}

// dialFunc is the signature of http.Transport's DialContext and
// DialTLSContext.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// guardDial wraps a caller's dial function: it cannot refuse before
// connecting, so it checks the remote address of the connection made, and
// closes it before a byte is sent when it is blocked. A connection whose
// remote address is not an IP address and port is refused.
func guardDial(dial dialFunc, blocked func(netip.AddrPort) bool) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
		if err != nil || blocked(ap) {
			c.Close()
			return nil, &net.OpError{Op: "dial", Net: network, Addr: c.RemoteAddr(),
				Err: fmt.Errorf("%w: %s", errBlocked, c.RemoteAddr())}
		}
		return c, nil
	}
}
