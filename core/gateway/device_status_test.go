package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/wire"
)

func (e *env) deviceStatus(device string) gateway.DeviceStatus {
	e.t.Helper()
	status, body := e.do("GET", gateway.DeviceStatusPath+"?device_id="+device, bearerHeader(credential(device)), "")
	var ds gateway.DeviceStatus
	if status != 200 || json.Unmarshal([]byte(body), &ds) != nil {
		e.t.Fatalf("device-status: %d %s", status, body)
	}
	return ds
}

// waitDevice polls the machine's view until cond holds for device.
func (e *env) waitDevice(device string, cond func(core.DeviceView) bool) core.DeviceView {
	e.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		for _, d := range e.devices() {
			if d.Device == device && cond(d) {
				return d
			}
		}
		runtime.Gosched()
	}
	e.t.Fatalf("device %s never reached the wanted state: %+v", device, e.devices())
	return core.DeviceView{}
}

func TestDeviceStatusReportsTheOwningConnection(t *testing.T) {
	e := newEnv(t, gateway.Options{PodID: "pod-a"}, "d1", "d2")
	if ds := e.deviceStatus("d1"); ds.Online || ds.Owner != nil {
		t.Fatalf("never connected: %+v", ds)
	}
	// A connection that has not heartbeated yet owns the device, capabilities unknown.
	h := bearerHeader(credential("d1"))
	raw, _, err := websocket.Dial(context.Background(), "ws"+e.ts.URL[len("http"):]+wsQuery("d1", wire.Version), &websocket.DialOptions{HTTPHeader: h, HTTPClient: e.ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	d := e.waitDevice("d1", func(d core.DeviceView) bool { return d.Conn != 0 })
	ds := e.deviceStatus("d1")
	want := gateway.DeviceOwner{OwnerPodID: "pod-a", OwnerURL: e.ts.URL, Generation: uint64(d.Conn),
		Status: gateway.OwnerAwaitingHeartbeat, LeaseExpiresAt: d.IdleDeadline.UnixMilli()}
	if !ds.Online || ds.Owner == nil || *ds.Owner != want {
		t.Fatalf("before heartbeat: %+v, want owner %+v", ds, want)
	}
	// A newer connection replaces it: a higher generation, ready after its heartbeat.
	c := e.dial("d1", &scripted.Runtime{})
	served := make(chan error, 1)
	go func() { served <- c.Serve(context.Background()) }()
	d2 := e.waitDevice("d1", func(v core.DeviceView) bool { return v.Known })
	ds = e.deviceStatus("d1")
	if ds.Owner == nil || ds.Owner.Generation != uint64(d2.Conn) || ds.Owner.Generation <= want.Generation ||
		ds.Owner.Status != gateway.OwnerReady || ds.Owner.LeaseExpiresAt != d2.IdleDeadline.UnixMilli() {
		t.Fatalf("after replacement: %+v (machine %+v)", ds.Owner, d2)
	}
	if other := e.deviceStatus("d2"); other.Online || other.Owner != nil {
		t.Fatalf("another device: %+v", other)
	}
	_, body := e.do("GET", gateway.DeviceStatusPath+"?device_id=d2", bearerHeader(credential("d2")), "")
	if body != `{"device_id":"d2","online":false,"owner":null}`+"\n" {
		t.Fatalf("offline body %s", body)
	}
	c.WS.Close(websocket.StatusNormalClosure, "bye")
	<-served
	raw.CloseNow()
	e.waitDevice("d1", func(v core.DeviceView) bool { return v.Conn == 0 })
	if ds := e.deviceStatus("d1"); ds.Online || ds.Owner != nil {
		t.Fatalf("after close: %+v", ds)
	}
}

func TestDeviceStatusRejections(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	for _, c := range []struct {
		method, path string
		header       http.Header
		status       int
		code         string
	}{
		{"POST", gateway.DeviceStatusPath + "?device_id=d1", bearerHeader(credential("d1")), 405, gateway.CodeMethodNotAllowed},
		{"GET", gateway.DeviceStatusPath, bearerHeader(credential("d1")), 400, gateway.CodeMissingDeviceID},
		{"GET", gateway.DeviceStatusPath + "?device_id=d1", nil, 401, gateway.CodeMissingBearer},
		{"GET", gateway.DeviceStatusPath + "?device_id=d9", bearerHeader(credential("d9")), 401, gateway.CodeUnknownDevice},
		{"GET", gateway.DeviceStatusPath + "?device_id=d1", bearerHeader("wrong"), 401, gateway.CodeBadCredential},
	} {
		status, body := e.do(c.method, c.path, c.header, "")
		if status != c.status || errorCode(t, body) != c.code {
			t.Errorf("%s %s: %d %s, want %d %s", c.method, c.path, status, body, c.status, c.code)
		}
	}
}
