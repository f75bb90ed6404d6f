package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/wire"
)

// askPeer is a Runtime over a real WebSocket whose Runs, once started,
// ask a permission (perm-1), a user choice (ask-1, questions q1 and q2)
// and a function call (call-1). It answers every decision and function
// result applied=true, or, when silent, never; once all three were
// applied it ends the Run with done. Everything else is the scripted
// Runtime's (holding each Run open).
type askPeer struct {
	silent bool

	inner scripted.Runtime
	mu    sync.Mutex
	run   string
	got   []wire.Frame    // decisions and function results, in arrival order
	done  map[string]bool // kinds applied
}

func newAskPeer(silent bool) *askPeer {
	return &askPeer{silent: silent, inner: scripted.Runtime{Hold: true}, done: map[string]bool{}}
}

// askCaps are the scripted Runtime's capabilities plus permissions and
// function_tools.
func askCaps() wire.AgentKindCapabilities {
	c := scripted.Caps()
	c.Permissions, c.FunctionTools = wire.CapabilitySupported, wire.CapabilitySupported
	return c
}

func encode(t *testing.T, f wire.Frame) []byte {
	b, err := wire.Encode(f)
	if err != nil {
		t.Fatalf("encode %T: %v", f.Payload, err)
	}
	return b
}

// received returns the decisions and function results the peer got.
func (p *askPeer) received() []wire.Frame {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]wire.Frame(nil), p.got...)
}

func (p *askPeer) respond(t *testing.T, b []byte) [][]byte {
	f, err := wire.Decode(b)
	if err != nil {
		t.Errorf("peer: undecodable frame from Core: %v", err)
		return nil
	}
	var kind, delivery string
	switch d := f.Payload.(type) {
	case wire.ExecutionStart:
		p.mu.Lock()
		p.run = d.RunID
		p.mu.Unlock()
		return append(p.inner.Respond(b), p.asks(t, d.RunID)...)
	case wire.PermissionDecision:
		kind, delivery = "permission", d.DeliveryID
	case wire.UserChoiceDecision:
		kind, delivery = "user_choice", d.DeliveryID
	case wire.FunctionResult:
		kind, delivery = "function", d.DeliveryID
	default:
		return p.inner.Respond(b)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, f)
	if p.silent {
		return nil
	}
	p.done[kind] = true
	out := [][]byte{encode(t, wire.Frame{ID: f.ID, Payload: wire.InteractionDecisionAck{DeliveryID: delivery, Applied: true}})}
	if len(p.done) == 3 {
		out = append(out, encode(t, wire.Frame{ID: p.run, Payload: wire.Done{Content: "answered"}}))
	}
	return out
}

func (p *askPeer) asks(t *testing.T, run string) [][]byte {
	return [][]byte{
		encode(t, wire.Frame{ID: run, Payload: wire.PermissionRequest{RequestID: "perm-1", Tool: "shell", Title: "run ls"}}),
		encode(t, wire.Frame{ID: run, Payload: wire.UserChoicePrompt{AskID: "ask-1", Questions: []wire.UserQuestion{
			{ID: "q1", Question: "which colour?", Options: []wire.UserOption{{Label: "red"}, {Label: "blue"}}},
			{ID: "q2", Header: "Size", Question: "which size?", Options: []wire.UserOption{{Label: "s"}, {Label: "l"}}},
		}}}),
		encode(t, wire.Frame{ID: run, Payload: wire.FunctionCall{CallID: "call-1", Name: "lookup", Arguments: []byte(`{"q":1}`)}}),
	}
}

// connectPeer dials the gateway of e as device d1 with a heartbeat
// declaring askCaps and serves p until the returned stop is called.
func (e *env) connectPeer(p *askPeer) func() {
	e.t.Helper()
	ctx := context.Background()
	u := "ws" + strings.TrimPrefix(e.ts.URL, "http") + gateway.WSPath + "?" +
		url.Values{"device_id": {"d1"}, "version": {wire.Version}}.Encode()
	ws, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: e.ts.Client(),
		HTTPHeader: http.Header{"Authorization": {"Bearer cred-d1"}}})
	if err != nil {
		e.t.Fatal(err)
	}
	ws.SetReadLimit(wire.FrameBytesMax)
	hb := encode(e.t, wire.Frame{Payload: wire.Heartbeat{TS: 1, DaemonVersion: "ask-peer",
		SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: scripted.Kind, Available: true, Capabilities: askCaps()}}}})
	if err := ws.Write(ctx, websocket.MessageText, hb); err != nil {
		e.t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				return
			}
			for _, out := range p.respond(e.t, b) {
				if ws.Write(ctx, websocket.MessageText, out) != nil {
					return
				}
			}
		}
	}()
	return func() { ws.Close(websocket.StatusNormalClosure, ""); <-served }
}
