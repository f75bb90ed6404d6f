package transport_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/daemon/transport"
)

// TestUntrustedCoreCertificateIsPermanent: a Core whose certificate the
// daemon's roots do not vouch for is refused for good, with the fix named;
// with the CA trusted the same bootstrap goes through.
func TestUntrustedCoreCertificateIsPermanent(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"device_id":"d1","ws_url":"wss://core.invalid/ws"}`))
	}))
	defer ts.Close()
	c := &transport.Client{CoreURL: ts.URL, DeviceID: "d1", Credential: "tsd_x", HTTP: &http.Client{}}
	_, err := c.Bootstrap(context.Background())
	perm := transport.Permanent(err)
	if perm == nil || !strings.Contains(perm.Error(), "-ca-file") {
		t.Fatalf("bootstrap against an untrusted certificate: %v (permanent %v)", err, perm)
	}
	c.HTTP = ts.Client()
	if _, err := c.Bootstrap(context.Background()); err != nil {
		t.Fatalf("bootstrap with the CA trusted: %v", err)
	}
}

// TestHTTPSCoreRefusesPlainWebSocketURL: an https Core whose bootstrap
// names a ws:// URL would carry the credential in the clear; the daemon
// refuses it for good instead of dialling.
func TestHTTPSCoreRefusesPlainWebSocketURL(t *testing.T) {
	c := &transport.Client{CoreURL: "https://core.example", DeviceID: "d1", Credential: "tsd_x"}
	_, err := c.URL(transport.Bootstrap{WSURL: "ws://core.example/api/v1/agent-daemon/ws"})
	var perm *transport.PermanentError
	if !errors.As(err, &perm) || !strings.Contains(err.Error(), "-public-url") {
		t.Fatalf("ws:// under https: %v", err)
	}
	for _, ok := range []string{"wss://core.example/ws", ""} {
		if _, err := c.URL(transport.Bootstrap{WSURL: ok}); err != nil {
			t.Fatalf("ws_url %q: %v", ok, err)
		}
	}
	plain := &transport.Client{CoreURL: "http://core.example", DeviceID: "d1", Credential: "tsd_x"}
	if _, err := plain.URL(transport.Bootstrap{WSURL: "ws://core.example/ws"}); err != nil {
		t.Fatalf("ws:// under http: %v", err)
	}
}

// TestPlainHTTPToTLSCoreNamesHTTPS: a daemon given http:// for a Core that
// serves TLS gets Go's plain-text 400 from the TLS listener; it stops for
// good and says to use https://, not to check the device ID.
func TestPlainHTTPToTLSCoreNamesHTTPS(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"device_id":"d1","ws_url":"wss://core.invalid/ws"}`))
	}))
	defer ts.Close()
	c := &transport.Client{CoreURL: "http://" + ts.Listener.Addr().String(), DeviceID: "d1", Credential: "tsd_x", HTTP: &http.Client{}}
	_, err := c.Bootstrap(context.Background())
	perm := transport.Permanent(err)
	if perm == nil || !strings.Contains(perm.Fix, "https://") || strings.Contains(perm.Fix, "device ID") || strings.Contains(perm.Error(), "()") {
		t.Fatalf("bootstrap over http against a TLS Core: %v (permanent %v)", err, perm)
	}
}
