package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/internal/wiretrace"
	"github.com/turnstile-sim/turnstile/wire"
)

// spanRecorder is one in-memory exporter behind two tracer providers,
// Core's and the daemon's, as two processes would have.
type spanRecorder struct {
	exp          *tracetest.InMemoryExporter
	core, daemon trace.Tracer
}

const (
	coreService   = "turnstile-core"
	daemonService = "turnstile-daemon"
)

func newSpanRecorder(t *testing.T) *spanRecorder {
	exp := tracetest.NewInMemoryExporter()
	provider := func(service string) trace.Tracer {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp),
			sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", service))))
		t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		return tp.Tracer("turnstile-test")
	}
	return &spanRecorder{exp: exp, core: provider(coreService), daemon: provider(daemonService)}
}

func serviceOf(s tracetest.SpanStub) string {
	for _, a := range s.Resource.Attributes() {
		if a.Key == "service.name" {
			return a.Value.AsString()
		}
	}
	return ""
}

func attrOf(s tracetest.SpanStub, key attribute.Key) string {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value.Emit()
		}
	}
	return ""
}

// find returns the spans of service named name whose attribute key (when
// not empty) is value.
func (r *spanRecorder) find(service, name string, key attribute.Key, value string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range r.exp.GetSpans() {
		if serviceOf(s) == service && s.Name == name && (key == "" || attrOf(s, key) == value) {
			out = append(out, s)
		}
	}
	return out
}

// one is find with exactly one match.
func (r *spanRecorder) one(t *testing.T, service, name string, key attribute.Key, value string) tracetest.SpanStub {
	t.Helper()
	got := r.find(service, name, key, value)
	if len(got) != 1 {
		t.Fatalf("%d %s spans %q with %s=%q, want 1; all spans:\n%s", len(got), service, name, key, value, r.dump())
	}
	return got[0]
}

func (r *spanRecorder) dump() string {
	var b strings.Builder
	for _, s := range r.exp.GetSpans() {
		b.WriteString(serviceOf(s) + " " + s.Name + " trace=" + s.SpanContext.TraceID().String() +
			" span=" + s.SpanContext.SpanID().String() + " parent=" + s.Parent.SpanID().String())
		for _, a := range s.Attributes {
			b.WriteString(" " + string(a.Key) + "=" + a.Value.Emit())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// childOf fails unless child's parent is parent (same trace, parent's
// span ID); remote says whether the link crossed the WebSocket.
func childOf(t *testing.T, child, parent tracetest.SpanStub, remote bool) {
	t.Helper()
	if child.Parent.TraceID() != parent.SpanContext.TraceID() || child.Parent.SpanID() != parent.SpanContext.SpanID() {
		t.Errorf("%s %q is not a child of %s %q: parent %s/%s, want %s/%s", serviceOf(child), child.Name,
			serviceOf(parent), parent.Name, child.Parent.TraceID(), child.Parent.SpanID(),
			parent.SpanContext.TraceID(), parent.SpanContext.SpanID())
	}
	if child.Parent.IsRemote() != remote {
		t.Errorf("%s %q: parent remote %v, want %v", serviceOf(child), child.Name, child.Parent.IsRemote(), remote)
	}
}

// TestTracesJoinCoreAndDaemonAcrossTheWebSocket runs one Turn through a
// real Core and a real daemon with tracers: Core's Turn span is the root
// of one trace that holds Core's preparation and frame spans and, through
// the envelope's trace field, the daemon's receive, preparation, Turn and
// send spans, and Core's receive spans of the daemon's frames.
func TestTracesJoinCoreAndDaemonAcrossTheWebSocket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newSpanRecorder(t)
		s := newStack(t, stackOptions{tracing: stackTracing{core: rec.core, daemon: rec.daemon}})
		s.h.Script(synthetic.TurnScript{Deltas: []string{"traced ", "turn"}, EventInterval: 100 * time.Millisecond})
		tid := s.submit(s.session(), "hi")
		if _, text, _ := collect(t, s.events(tid)); text != "traced turn" {
			t.Fatalf("streamed %q; turn %+v", text, s.turn(tid))
		}
		synctest.Wait() // the loops settle: the Turn span ends after its terminal commit

		turn := rec.one(t, coreService, wiretrace.SpanTurn, wiretrace.AttrTurn, tid)
		if turn.Parent.IsValid() || attrOf(turn, wiretrace.AttrState) != "completed" || turn.EndTime.IsZero() {
			t.Fatalf("Core's Turn span: parent %v state %q ended %v", turn.Parent.IsValid(), attrOf(turn, wiretrace.AttrState), turn.EndTime)
		}
		trace := turn.SpanContext.TraceID()

		// Preparation: Core's span under the Turn, its execution_prepare
		// under it, the daemon's receive and preparation spans under that.
		prep := rec.one(t, coreService, wiretrace.SpanPreparation, wiretrace.AttrTurn, tid)
		childOf(t, prep, turn, false)
		reqID := attrOf(prep, wiretrace.AttrPreparation)
		if attrOf(prep, wiretrace.AttrState) != wire.StateReady {
			t.Errorf("Core's preparation span state %q, want ready", attrOf(prep, wiretrace.AttrState))
		}
		sendPrep := rec.one(t, coreService, wiretrace.SpanSendPrefix+wire.TypeExecutionPrepare, wiretrace.AttrFrameID, reqID)
		childOf(t, sendPrep, prep, false)
		recvPrep := rec.one(t, daemonService, wiretrace.SpanRecvPrefix+wire.TypeExecutionPrepare, wiretrace.AttrFrameID, reqID)
		childOf(t, recvPrep, sendPrep, true)
		dPrep := rec.one(t, daemonService, wiretrace.SpanPreparation, wiretrace.AttrPreparation, reqID)
		childOf(t, dPrep, recvPrep, false)
		if attrOf(dPrep, wiretrace.AttrState) != wire.StateReady {
			t.Errorf("daemon's preparation span state %q, want ready", attrOf(dPrep, wiretrace.AttrState))
		}
		ready := false
		for _, st := range rec.find(daemonService, wiretrace.SpanSendPrefix+wire.TypePreparationStatus, wiretrace.AttrFrameID, reqID) {
			if st.Parent.SpanID() == dPrep.SpanContext.SpanID() {
				ready = true
				back := rec.find(coreService, wiretrace.SpanRecvPrefix+wire.TypePreparationStatus, wiretrace.AttrFrameID, reqID)
				if !containsChildOf(back, st) {
					t.Errorf("no Core receive span of preparation_status is a child of the daemon's send span")
				}
			}
		}
		if !ready {
			t.Errorf("no preparation_status send span under the daemon's preparation span:\n%s", rec.dump())
		}

		// The Run: execution_start under Core's Turn, the daemon's Turn
		// span under its receive span, its output under its Turn span,
		// and Core's receive spans under the daemon's sends.
		start := rec.one(t, coreService, wiretrace.SpanSendPrefix+wire.TypeExecutionStart, wiretrace.AttrFrameID, reqID)
		childOf(t, start, turn, false)
		recvStart := rec.one(t, daemonService, wiretrace.SpanRecvPrefix+wire.TypeExecutionStart, wiretrace.AttrFrameID, reqID)
		childOf(t, recvStart, start, true)
		dTurn := rec.one(t, daemonService, wiretrace.SpanTurn, wiretrace.AttrTurn, tid)
		childOf(t, dTurn, recvStart, false)
		if attrOf(dTurn, wiretrace.AttrState) != "done" {
			t.Errorf("daemon's Turn span state %q, want done", attrOf(dTurn, wiretrace.AttrState))
		}
		deltas := rec.find(daemonService, wiretrace.SpanSendPrefix+wire.TypeDelta, wiretrace.AttrFrameID, tid)
		if len(deltas) != 2 {
			t.Fatalf("%d delta send spans, want 2:\n%s", len(deltas), rec.dump())
		}
		coreDeltas := rec.find(coreService, wiretrace.SpanRecvPrefix+wire.TypeDelta, wiretrace.AttrFrameID, tid)
		for _, d := range deltas {
			childOf(t, d, dTurn, false)
			if !containsChildOf(coreDeltas, d) {
				t.Errorf("no Core receive span of delta is a child of the daemon's send span %s", d.SpanContext.SpanID())
			}
		}
		done := rec.one(t, daemonService, wiretrace.SpanSendPrefix+wire.TypeDone, wiretrace.AttrFrameID, tid)
		childOf(t, done, dTurn, false)
		childOf(t, rec.one(t, coreService, wiretrace.SpanRecvPrefix+wire.TypeDone, wiretrace.AttrFrameID, tid), done, true)

		// Every span of the Turn is in its one trace.
		for _, sp := range []tracetest.SpanStub{prep, sendPrep, recvPrep, dPrep, start, recvStart, dTurn, done} {
			if sp.SpanContext.TraceID() != trace {
				t.Errorf("%s %q in trace %s, want %s", serviceOf(sp), sp.Name, sp.SpanContext.TraceID(), trace)
			}
		}
		// Heartbeats open no trace of their own.
		if hb := rec.find(coreService, wiretrace.SpanRecvPrefix+wire.TypeHeartbeat, "", ""); len(hb) != 0 {
			t.Errorf("%d heartbeat spans", len(hb))
		}
	})
}

// containsChildOf reports whether one of spans is a remote child of parent.
func containsChildOf(spans []tracetest.SpanStub, parent tracetest.SpanStub) bool {
	for _, s := range spans {
		if s.Parent.IsRemote() && s.Parent.SpanID() == parent.SpanContext.SpanID() && s.Parent.TraceID() == parent.SpanContext.TraceID() {
			return true
		}
	}
	return false
}

// TestTracesEndACancelledTurn: a Turn cancelled mid-Run ends Core's Turn
// span as cancelled and the daemon's with the receipt of the applied
// cancel, whose send span is in the Turn's trace.
func TestTracesEndACancelledTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newSpanRecorder(t)
		s := newStack(t, stackOptions{tracing: stackTracing{core: rec.core, daemon: rec.daemon}})
		s.h.Script(synthetic.TurnScript{Deltas: []string{"partial"}, Hold: true, CancelLatency: time.Second})
		sid := s.session()
		tid := s.submit(sid, "start")
		ch := s.events(tid)
		e2eNext(t, ch)
		s.cancel(sid)
		if names, _, _ := collect(t, ch); names[len(names)-1] != api.EvTurnCancelled {
			t.Fatalf("events after cancel %v", names)
		}
		synctest.Wait()
		turn := rec.one(t, coreService, wiretrace.SpanTurn, wiretrace.AttrTurn, tid)
		dTurn := rec.one(t, daemonService, wiretrace.SpanTurn, wiretrace.AttrTurn, tid)
		if attrOf(turn, wiretrace.AttrState) != "cancelled" || attrOf(dTurn, wiretrace.AttrState) != "cancelled" {
			t.Fatalf("Turn span states: Core %q, daemon %q, want cancelled", attrOf(turn, wiretrace.AttrState), attrOf(dTurn, wiretrace.AttrState))
		}
		cancel := rec.one(t, coreService, wiretrace.SpanSendPrefix+wire.TypePromptCancel, wiretrace.AttrFrameID, tid)
		childOf(t, cancel, turn, false)
		ack := rec.one(t, daemonService, wiretrace.SpanSendPrefix+wire.TypeInteractionDecisionAck, wiretrace.AttrFrameID, tid)
		childOf(t, ack, dTurn, false)
		if dTurn.SpanContext.TraceID() != turn.SpanContext.TraceID() {
			t.Fatalf("the daemon's Turn span is in another trace:\n%s", rec.dump())
		}
	})
}

// mcpDeclaration declares the synthetic kind with MCP HTTP servers and
// bearer authentication, so that Core dispatches a Session whose MCP
// server's bearer token is a Vault credential (the synthetic Harness
// itself then refuses the preparation).
func mcpDeclaration(h *synthetic.Harness) agent.Declaration {
	d := synthetic.Declaration(h)
	caps := d.Capabilities
	caps.MCPHTTPTools, caps.MCPHTTPBearerAuth = wire.CapabilitySupported, wire.CapabilitySupported
	d.Capabilities = caps
	discover := d.Discover
	d.Discover = func(ctx context.Context, env map[string]string, w io.Writer) (*agent.Runtime, error) {
		rt, err := discover(ctx, env, w)
		if rt != nil {
			rt.Descriptor.Capabilities = caps
		}
		return rt, err
	}
	return d
}

// TestTracesHoldNoSecret runs Turns with every kind of secret in play —
// the API key (the stack's key is its operator token), a Vault credential
// that Core puts in an execution_prepare as an MCP server's bearer token,
// the device credential of the bootstrap and the WebSocket, and the input
// text — and finds none of them in any span Core or the daemon exported
// (names, attributes, events, links, status).
func TestTracesHoldNoSecret(t *testing.T) {
	const (
		vaultSecret = "vault-bearer-secret-6d1f0c"
		promptText  = "prompt-text-secret-93ab"
	)
	synctest.Test(t, func(t *testing.T) {
		rec := newSpanRecorder(t)
		key, err := api.NewVaultKey([]byte(strings.Repeat("k", 32)))
		if err != nil {
			t.Fatal(err)
		}
		h := synthetic.New()
		s := newStack(t, stackOptions{policy: enginetest.OpenPolicy(synthetic.Kind), decls: []agent.Declaration{mcpDeclaration(h)},
			tracing: stackTracing{core: rec.core, daemon: rec.daemon, vaultKey: key}})
		s.h = h
		var vault, cred struct{ ID string }
		if code := s.call("POST", "/v1/vaults", map[string]any{"name": "v"}, &vault); code != http.StatusOK {
			t.Fatalf("vault: %d", code)
		}
		if code := s.call("POST", "/v1/vaults/"+vault.ID+"/credentials", map[string]any{"name": "c",
			"auth": map[string]any{"type": "static_bearer", "mcp_server_url": "https://mcp.example/docs", "token": vaultSecret}}, &cred); code != http.StatusOK {
			t.Fatalf("credential: %d", code)
		}
		// A Turn whose execution_prepare carries the Vault secret.
		mcp := s.createSession(map[string]any{
			"agent": map[string]any{"model": "synthetic-1", "x_agents_core": map[string]any{"harness": synthetic.Kind},
				"tools": []any{map[string]any{"type": "mcp", "server_label": "docs",
					"transport": map[string]any{"type": "http", "server_url": "https://mcp.example/docs"}, "credential_id": cred.ID}}},
			"environment": map[string]any{"type": "none"}, "vault_ids": []string{vault.ID}})
		mcpTurn := s.submit(mcp, promptText)
		collect(t, s.events(mcpTurn))
		// A Turn that runs to its end with the secret input.
		h.Script(synthetic.TurnScript{Deltas: []string{"ok"}})
		plain := s.submit(s.session(), promptText)
		collect(t, s.events(plain))
		synctest.Wait()

		if len(rec.find(coreService, wiretrace.SpanSendPrefix+wire.TypeExecutionPrepare, "", "")) < 2 ||
			len(rec.find(daemonService, wiretrace.SpanRecvPrefix+wire.TypeExecutionPrepare, "", "")) < 2 {
			t.Fatalf("the execution_prepare frames were not traced on both sides:\n%s", rec.dump())
		}
		if len(rec.find(coreService, wiretrace.SpanTurn, wiretrace.AttrTurn, mcpTurn)) != 1 {
			t.Fatalf("no Turn span for the MCP Turn:\n%s", rec.dump())
		}
		text := spansText(rec.exp.GetSpans())
		for name, secret := range map[string]string{"API key": e2eToken, "Vault credential": vaultSecret,
			"device credential": e2eCredential, "input text": promptText} {
			if strings.Contains(text, secret) {
				t.Errorf("an exported span holds the %s", name)
			}
		}
	})
}

// spansText renders every exported field of spans that may carry text.
func spansText(spans tracetest.SpanStubs) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.Name + "\n" + s.Status.Description + "\n" + s.SpanContext.TraceState().String() + "\n")
		for _, a := range s.Attributes {
			b.WriteString(string(a.Key) + "=" + a.Value.Emit() + "\n")
		}
		for _, e := range s.Events {
			b.WriteString(e.Name + "\n")
			for _, a := range e.Attributes {
				b.WriteString(string(a.Key) + "=" + a.Value.Emit() + "\n")
			}
		}
		for _, l := range s.Links {
			for _, a := range l.Attributes {
				b.WriteString(string(a.Key) + "=" + a.Value.Emit() + "\n")
			}
		}
		for _, a := range s.Resource.Attributes() {
			b.WriteString(string(a.Key) + "=" + a.Value.Emit() + "\n")
		}
	}
	return b.String()
}
