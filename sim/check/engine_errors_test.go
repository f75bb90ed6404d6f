package check

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// deliverError reports an error frame of run with the given payload bytes
// delivered to Core.
func deliverError(l *Ledger, at int64, run, payload string) {
	raw := []byte(`{"type":"error","id":"` + run + `","payload":` + payload + `}`)
	f, err := wire.Decode(raw)
	l.Wire(WireEvent{At: at, Kind: WireDelivered, Conn: 1, From: "d1", To: CoreNode, Raw: raw, Frame: f, DecodeErr: err})
}

func TestEngineErrorClassificationTable(t *testing.T) {
	cases := []struct {
		payload string
		want    engineFailure
	}{
		{`{"error":"e","code":"server_error"}`, engineFailure{code: "server_error"}},
		{`{"error":"e","code":"server_error","http_status":500}`, engineFailure{code: "server_error"}},
		{`{"error":"e","code":"connection_failed","http_status":503}`, engineFailure{code: "connection_failed", status: 503}},
		{`{"error":"e","code":"connection_failed","http_status":100}`, engineFailure{code: "connection_failed", status: 100}},
		{`{"error":"e","code":"connection_failed","http_status":599}`, engineFailure{code: "connection_failed", status: 599}},
		{`{"error":"e","code":"connection_failed","http_status":99}`, engineFailure{code: "connection_failed"}},
		{`{"error":"e","code":"connection_failed","http_status":600}`, engineFailure{code: "connection_failed"}},
		{`{"error":"e","code":"connection_failed","http_status":1000}`, engineFailure{code: "connection_failed"}},
		{`{"error":"e","code":"connection_failed","http_status":502.0}`, engineFailure{code: "connection_failed"}},
		{`{"error":"e","code":"connection_failed","http_status":"502"}`, engineFailure{code: "connection_failed"}},
		{`{"error":"e","code":"overloaded","http_status":502}`, engineFailure{}},
		{`{"error":"e","code":"Server_Error"}`, engineFailure{}},
		{`{"error":"e","code":7}`, engineFailure{}},
		{`{"error":"e"}`, engineFailure{}},
	}
	for _, c := range cases {
		raw := []byte(`{"type":"error","id":"r","payload":` + c.payload + `}`)
		got, _, ok := classifyRawEngineError(raw)
		if !ok || got != c.want {
			t.Errorf("%s: got %v (%v), want %v", c.payload, got, ok, c.want)
		}
	}
	if len(documentedEngineCodes) != 11 {
		t.Fatalf("§6.3 lists 11 engine codes, the table has %d", len(documentedEngineCodes))
	}
}

func TestEngineErrorProjection(t *testing.T) {
	cases := []struct {
		name    string
		payload string
		code    string
		status  int
		fails   bool
	}{
		{"classified code kept", `{"error":"e","code":"rate_limit_exceeded","http_status":429}`, "rate_limit_exceeded", 0, false},
		{"status kept on connection_failed", `{"error":"e","code":"connection_failed","http_status":502}`, "connection_failed", 502, false},
		{"status 600 kept", `{"error":"e","code":"connection_failed","http_status":600}`, "connection_failed", 600, true},
		{"status 99 kept", `{"error":"e","code":"connection_failed","http_status":99}`, "connection_failed", 99, true},
		{"status dropped though in range", `{"error":"e","code":"connection_failed","http_status":599}`, "connection_failed", 0, true},
		{"status kept on another code", `{"error":"e","code":"server_error","http_status":500}`, "server_error", 500, true},
		{"unknown code recorded as sent", `{"error":"e","code":"overloaded"}`, "overloaded", 0, true},
		{"unknown code unclassified", `{"error":"e","code":"overloaded","http_status":502}`, "", 0, false},
		{"code lost", `{"error":"e","code":"cyber_policy"}`, "", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := NewLedger()
			deliverError(l, 1, "run-1", c.payload)
			l.EngineErrorRecorded(2, "run-1", c.code, c.status)
			vs := l.AfterStep(1)
			if c.fails != (len(vs) == 1 && vs[0].Check == CheckEngineErrorProjection) || (!c.fails && len(vs) != 0) {
				t.Fatalf("violations %v, want failure %v", vs, c.fails)
			}
		})
	}
}

func TestEngineErrorProjectionLatestFrame(t *testing.T) {
	l := NewLedger()
	deliverError(l, 1, "run-1", `{"error":"e","code":"server_error"}`)
	deliverError(l, 2, "run-1", `{"error":"e","code":"connection_failed","http_status":503}`)
	l.EngineErrorRecorded(3, "run-1", "server_error", 0)
	if vs := l.AfterStep(1); len(vs) != 1 || !strings.Contains(vs[0].Message, "503") {
		t.Fatalf("a record of the earlier frame must fail against the latest: %v", vs)
	}
	l.EngineErrorRecorded(4, "run-2", "server_error", 0)
	if vs := l.AfterStep(2); len(vs) != 1 || !strings.Contains(vs[0].Message, "no error frame") {
		t.Fatalf("a record without any error frame must fail: %v", vs)
	}
}
