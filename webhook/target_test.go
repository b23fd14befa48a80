package webhook_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amem-dev/amem"
	"github.com/amem-dev/amem/sqlite"
	"github.com/amem-dev/amem/webhook"
	"golang.org/x/net/dns/dnsmessage"
)

// Every class of internal address is refused; public ones are not.
func TestInternal(t *testing.T) {
	for _, a := range []string{
		"127.0.0.1", "127.255.0.9", "::1", // loopback
		"10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", // private
		"fc00::1", "fd00:ec2::254", // unique local (AWS's IPv6 metadata)
		"169.254.169.254", "169.254.1.1", "fe80::1", // link-local, cloud metadata
		"100.64.0.1", "100.127.255.254", // carrier-grade NAT
		"0.0.0.0", "0.1.2.3", "::", // unspecified, "this network"
		"224.0.0.1", "239.255.255.250", "ff02::1", // multicast
		"255.255.255.255", "240.0.0.1", // reserved, broadcast
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", // IPv4-mapped
		"64:ff9b::a00:1", "2002:7f00:1::", // NAT64, 6to4
		"198.18.0.1", "192.0.0.8",
	} {
		if !webhook.Internal(netip.MustParseAddr(a)) {
			t.Errorf("%s is not counted internal", a)
		}
	}
	for _, a := range []string{"8.8.8.8", "1.1.1.1", "93.184.216.34", "2001:4860:4860::8888", "172.32.0.1", "100.128.0.1", "11.0.0.1"} {
		if webhook.Internal(netip.MustParseAddr(a)) {
			t.Errorf("%s is counted internal", a)
		}
	}
}

// A webhook's creation refuses a target that is internal on its face,
// the URLs a probe got accepted before among them, and a bad port; what
// --webhook-allow names is accepted.
func TestCheckURL(t *testing.T) {
	var none webhook.Targets
	refused := []string{
		"http://169.254.169.254/latest/meta-data/",
		"http://metadata.google.internal/computeMetadata/v1/",
		"http://metadata/", "http://instance-data/latest/",
		"http://10.0.0.5/", "http://172.20.1.1:8080/", "http://192.168.0.1/admin",
		"http://127.0.0.1:7077/v1", "http://localhost/", "http://api.localhost/", "http://[::1]:80/",
		"http://0.0.0.0/", "http://[::]/", "http://[fd00:ec2::254]/", "http://[::ffff:127.0.0.1]/",
		"http://2130706433/", "http://0x7f.1/", "http://0x7f000001/", "http://017700000001/", "http://127.1/",
		"http://100.64.0.1/", "http://anything.internal/",
	}
	for _, u := range refused {
		if err := none.CheckURL(u); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("%s: %v, want refused as invalid", u, err)
		}
	}
	for _, u := range []string{"https://hooks.example.com/x", "http://8.8.8.8/", "https://[2001:4860:4860::8888]/", "https://a-b.example.co.uk:8443/"} {
		if err := none.CheckURL(u); err != nil {
			t.Errorf("%s: %v, want accepted", u, err)
		}
	}
	allow, err := webhook.ParseTargets([]string{"127.0.0.1", "10.0.0.0/8", "Receiver.Local"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://127.0.0.1:9/h", "http://10.200.0.1/", "http://receiver.local/"} {
		if err := allow.CheckURL(u); err != nil {
			t.Errorf("allowed %s: %v", u, err)
		}
	}
	if err := allow.CheckURL("http://192.168.0.1/"); err == nil {
		t.Error("a network not allowed got through")
	}
	for _, bad := range [][]string{{""}, {"10.0.0.0/33"}, {"not a host"}, {"12345"}} {
		if _, err := webhook.ParseTargets(bad); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("ParseTargets(%q): %v, want invalid", bad, err)
		}
	}
	for _, secret := range []string{"nul-in-secret\x00-0123456", "space in the secret 0123", "tab\tin-the-secret-0123", "zoë-secret-0123456789"} {
		if _, err := webhook.New("ns", webhook.Input{URL: "https://example.com/", Secret: secret}, time.Now()); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("secret %q: %v, want invalid", secret, err)
		}
	}
	for _, u := range []string{"https://example.com:99999/", "https://example.com:0/", "https://example.com:x/"} {
		if _, err := webhook.New("ns", webhook.Input{URL: u}, time.Now()); !errors.Is(err, amem.ErrInvalid) {
			t.Errorf("port of %s: %v, want invalid", u, err)
		}
	}
}

// Delivery checks the address it dials, after resolution: a stored URL
// whose name resolves to an internal address (here "localhost", which
// /etc/hosts maps to 127.0.0.1) is not sent to, and the webhook's
// failure says only that the target was refused. Allowing the name or
// its network lets it through.
func TestDeliveryRefusesInternalAddresses(t *testing.T) {
	var hits atomic.Int64
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer rcv.Close()
	url := strings.Replace(rcv.URL, "127.0.0.1", "localhost", 1) + "/hook"

	for _, c := range []struct {
		allow []string
		sent  bool
	}{{nil, false}, {[]string{"localhost"}, true}, {[]string{"127.0.0.0/8", "::1"}, true}} {
		hits.Store(0)
		delivered, lastError := deliverOnce(t, url, c.allow, nil)
		checkDelivery(t, c.allow, c.sent, delivered, hits.Load(), lastError)
	}
}

// DNS rebinding: a public-looking name, accepted when the webhook was
// made, later resolves to 127.0.0.1. The worker asks a resolver that
// answers so (a DNS server of the test's own on loopback) and refuses
// the address it would dial. Allowing the loopback network lets the same
// delivery through, which shows the answer came from that resolver.
func TestDeliveryRefusesRebindingName(t *testing.T) {
	var hits atomic.Int64
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer rcv.Close()
	_, port, _ := strings.Cut(strings.TrimPrefix(rcv.URL, "http://"), ":")
	url := "http://hooks.example.com:" + port + "/hook"
	if err := (webhook.Targets{}).CheckURL(url); err != nil {
		t.Fatalf("a public name is refused at creation: %v", err)
	}
	resolver := fakeDNS(t, netip.MustParseAddr("127.0.0.1"))

	for _, c := range []struct {
		allow []string
		sent  bool
	}{{nil, false}, {[]string{"127.0.0.0/8"}, true}} {
		hits.Store(0)
		delivered, lastError := deliverOnce(t, url, c.allow, resolver)
		checkDelivery(t, c.allow, c.sent, delivered, hits.Load(), lastError)
	}
}

func checkDelivery(t *testing.T, allow []string, sent bool, delivered int, hits int64, lastError string) {
	t.Helper()
	switch {
	case sent && (delivered != 1 || hits != 1):
		t.Errorf("allow %v: %d delivered, %d requests, last error %q; want delivered", allow, delivered, hits, lastError)
	case !sent && (delivered != 0 || hits != 0 || lastError != "refused: the target is an internal address"):
		t.Errorf("allow %v: %d delivered, %d requests, last error %q; want refused", allow, delivered, hits, lastError)
	}
}

// deliverOnce stores a webhook to url with one due event and runs one
// delivery round of a worker allowing allow, resolving names with r (nil:
// the system's); it returns how many were delivered and the webhook's
// last error.
func deliverOnce(t *testing.T, url string, allow []string, r *net.Resolver) (int, string) {
	t.Helper()
	clk := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "amem.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	createHook(t, st, "alice", url, clk.Now())
	err = st.Update(context.Background(), func(tx amem.Tx) error {
		return tx.(amem.EventRecorder).RecordEvent(amem.Event{Namespace: "alice", NoteID: "N1", Version: 1, Kind: amem.EventCreated, At: clk.Now()})
	})
	if err != nil {
		t.Fatal(err)
	}
	targets, err := webhook.ParseTargets(allow)
	if err != nil {
		t.Fatal(err)
	}
	w, err := webhook.NewWorker(st, &webhook.Options{Targets: targets, Resolver: r, Now: clk.Now, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.DeliverDue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	hs, err := st.Webhooks(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	return res.Delivered, hs[0].LastError
}

// fakeDNS serves DNS on a loopback UDP port, answering every A question
// with addr and every other question with no records, and returns a
// resolver that asks it.
func fakeDNS(t *testing.T, addr netip.Addr) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if out, err := dnsAnswer(buf[:n], addr); err == nil {
				pc.WriteTo(out, from)
			}
		}
	}()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
}

func dnsAnswer(query []byte, addr netip.Addr) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	if q.Type == dnsmessage.TypeA {
		rh := dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 60}
		if err := b.AResource(rh, dnsmessage.AResource{A: addr.As4()}); err != nil {
			return nil, err
		}
	}
	return b.Finish()
}
