package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/amem-dev/amem"
)

// A webhook makes the server send requests to a URL an API caller chose,
// so by default it may not reach the server's own networks: loopback,
// private and unique-local ranges, link-local (with the cloud metadata
// address 169.254.169.254), carrier-grade NAT, unspecified and multicast
// addresses. The check is made on the address actually dialled, after
// name resolution, so a name that resolves (or later rebinds) to an
// internal address is refused too; a webhook's creation refuses what is
// internal on its face (an internal literal address, localhost, a cloud
// metadata name, an IP address in a form other than dotted or bracketed)
// so that the mistake is seen at once. A server that must deliver inside
// its network names the hosts or networks it allows (amem serve
// --webhook-allow).

// Targets is where webhooks may send. The zero Targets refuses every
// internal address.
type Targets struct {
	hosts map[string]bool // allowed names, lower case
	nets  []netip.Prefix  // allowed networks
}

// ErrTargetRefused is a webhook target in the server's own networks.
var ErrTargetRefused = errors.New("webhook target is an internal address")

// ParseTargets reads what webhooks may reach although it is internal:
// each entry a host name (exact, any case), an IP address or a CIDR
// network.
func ParseTargets(allow []string) (Targets, error) {
	var t Targets
	for _, a := range allow {
		a = strings.TrimSpace(a)
		switch {
		case a == "":
			return Targets{}, fmt.Errorf("%w: an empty webhook target", amem.ErrInvalid)
		case strings.Contains(a, "/"):
			p, err := netip.ParsePrefix(a)
			if err != nil {
				return Targets{}, fmt.Errorf("%w: webhook target %q: %v", amem.ErrInvalid, a, err)
			}
			t.nets = append(t.nets, p.Masked())
		default:
			if ip, err := netip.ParseAddr(a); err == nil {
				t.nets = append(t.nets, netip.PrefixFrom(ip, ip.BitLen()))
				continue
			}
			if !validHostName(a) {
				return Targets{}, fmt.Errorf("%w: webhook target %q is not a host name, an IP address or a CIDR network", amem.ErrInvalid, a)
			}
			if t.hosts == nil {
				t.hosts = map[string]bool{}
			}
			t.hosts[strings.ToLower(a)] = true
		}
	}
	return t, nil
}

// internalNets are the ranges refused by default, beyond what netip's
// predicates name (loopback, private, link-local, unspecified,
// multicast).
var internalNets = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network"
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),   // reserved, broadcast
	netip.MustParsePrefix("64:ff9b::/96"),  // NAT64 (can reach IPv4 internals)
	netip.MustParsePrefix("2002::/16"),     // 6to4 (likewise)
}

// Internal reports whether ip is an address of the server's own
// networks, which webhooks may not reach by default.
func Internal(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || !ip.IsValid() {
		return true
	}
	for _, p := range internalNets {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// internalNames are host names that are internal whatever they resolve
// to here: the machine itself and the cloud metadata services.
func internalName(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	return h == "localhost" || strings.HasSuffix(h, ".localhost") ||
		h == "metadata.google.internal" || h == "metadata" || h == "instance-data" ||
		strings.HasSuffix(h, ".internal")
}

func (t Targets) allowsName(host string) bool {
	return t.hosts[strings.ToLower(strings.TrimSuffix(host, "."))]
}

func (t Targets) allowsIP(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range t.nets {
		if p.Contains(ip) {
			return true
		}
	}
	return !Internal(ip)
}

// CheckURL refuses a webhook URL whose host is internal on its face,
// unless allowed: an internal IP address, localhost or a metadata name,
// or a number that some resolvers read as an address ("2130706433",
// "0x7f.1"). What it lets through is checked again at each delivery, on
// the address the name resolves to then.
func (t Targets) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: url: %v", amem.ErrInvalid, err)
	}
	host := u.Hostname()
	if t.allowsName(host) {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !t.allowsIP(ip) {
			return fmt.Errorf("%w: %w (%s); a server that must reach it allows it with amem serve --webhook-allow", amem.ErrInvalid, ErrTargetRefused, ip)
		}
		return nil
	}
	if !validHostName(host) {
		return fmt.Errorf("%w: url host %q is neither a host name nor an IP address in the usual form", amem.ErrInvalid, host)
	}
	if internalName(host) {
		return fmt.Errorf("%w: %w (%s); a server that must reach it allows it with amem serve --webhook-allow", amem.ErrInvalid, ErrTargetRefused, host)
	}
	return nil
}

// validHostName reports whether h is a DNS name with at least one letter
// in its last label: all-digit or hexadecimal-looking names are read as
// IP addresses by some resolvers (inet_aton: "2130706433", "0x7f.1").
func validHostName(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	last := strings.ToLower(labels[len(labels)-1])
	if _, err := strconv.ParseUint(last, 0, 64); err == nil {
		return false // a number: decimal, 0x hex or 0 octal
	}
	return strings.ContainsAny(last, "abcdefghijklmnopqrstuvwxyz")
}

// dialContext dials addr only if the address it connects to is allowed:
// the check runs in the dialer's Control, on the resolved address, for
// every address tried.
func (t Targets) dialContext(timeout time.Duration, r *net.Resolver) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		d := &net.Dialer{Timeout: timeout, Resolver: r}
		if !t.allowsName(host) {
			d.Control = func(_, address string, _ syscall.RawConn) error {
				ap, err := netip.ParseAddrPort(address)
				if err != nil {
					return err
				}
				if !t.allowsIP(ap.Addr()) {
					return fmt.Errorf("%w: %s resolves to %s", ErrTargetRefused, host, ap.Addr())
				}
				return nil
			}
		}
		return d.DialContext(ctx, network, addr)
	}
}

// failure is what a webhook's status says of a delivery that got no
// HTTP answer: a class, not the network error, which would tell a
// refused connection from a reset or a timeout (a port scanner's
// answer). The error itself goes to the server's log.
func failure(err error) string {
	if errors.Is(err, ErrTargetRefused) {
		return "refused: the target is an internal address"
	}
	return "no HTTP answer (no connection, or none in time)"
}
