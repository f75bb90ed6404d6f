package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/wire"
)

// A plain GET (no upgrade) that passes every other check gets the shared
// JSON error, not the library's text answer.
func TestPlainGetToTheWebSocketRouteIsTheJSONError(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	status, body := e.do("GET", wsQuery("d1", wire.Version), bearerHeader(credential("d1")), "")
	if status != http.StatusBadRequest || errorCode(t, body) != gateway.CodeMissingParams {
		t.Fatalf("plain GET: %d %s", status, body)
	}
	if d := e.registered(); len(d) != 0 {
		t.Fatalf("devices registered: %+v", d)
	}
}

// A binary WebSocket message is never decoded as a frame: the connection
// is closed with 1003 and the log says why, as Core's close.
func TestBinaryMessageIsRefused(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	c := e.dial("d1", &scripted.Runtime{})
	waitDevices(t, e, func(d []core.DeviceView) bool { return len(d) == 1 && d[0].Known })
	ctx := context.Background()
	hb := (&scripted.Runtime{}).Heartbeat(0)
	if err := c.WS.Write(ctx, websocket.MessageBinary, hb); err != nil {
		t.Fatal(err)
	}
	_, _, err := c.WS.Read(ctx)
	if st := websocket.CloseStatus(err); st != websocket.StatusUnsupportedData {
		t.Fatalf("close status %v (%v), want 1003", st, err)
	}
	e.waitLog("runtime disconnected", "binary message refused")
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), "\nturnstile_core_frames_refused_total{reason=\"binary\"} 1\n") {
		t.Fatalf("the refusal is not counted:\n%s", rec.Body.String())
	}
}

// A close Core starts is logged as Core's, with its code and reason,
// never as a close by the peer.
func TestCoreInitiatedCloseIsLoggedAsCore(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	old := e.dial("d1", &scripted.Runtime{})
	waitDevices(t, e, func(d []core.DeviceView) bool { return len(d) == 1 && d[0].Known })
	newer := e.dial("d1", &scripted.Runtime{})
	defer newer.WS.CloseNow()
	if _, _, err := old.WS.Read(context.Background()); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Fatalf("older connection: %v", err)
	}
	line := e.waitLog("runtime disconnected", "closed by core", "replaced by a newer connection")
	if strings.Contains(line, "closed by peer") {
		t.Fatalf("logged as the peer's: %s", line)
	}
}

// Malformed, unknown and wrong-direction frames are dropped by the
// machine, each with a warning line naming the connection and the type.
func TestRefusedFramesAreLogged(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	c := e.dial("d1", &scripted.Runtime{})
	waitDevices(t, e, func(d []core.DeviceView) bool { return len(d) == 1 && d[0].Known })
	ctx := context.Background()
	for _, raw := range []string{
		`{"type":"delta","id":"r","payload":`,                                  // malformed
		`{"type":"teleport","id":"r","payload":{}}`,                            // unknown type
		`{"type":"prompt_cancel","id":"r","payload":{"delivery_id":"cancel"}}`, // Core → Runtime
	} {
		if err := c.WS.Write(ctx, websocket.MessageText, []byte(raw)); err != nil {
			t.Fatal(err)
		}
	}
	e.waitLog("runtime frame refused", "device=d1", "malformed JSON")
	e.waitLog("runtime frame refused", "unknown message type", "teleport")
	e.waitLog("runtime frame in the wrong direction dropped", "type=prompt_cancel", "id=r")
	c.WS.CloseNow()
}
