package main

import (
	"context"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/example"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/wire"
)

// unsteeredKind is a second test-local kind on the same native engine
// whose installed declaration leaves steering, a capability Core requires
// of every Turn, unsupported.
const unsteeredKind = "wordecho-unsteered"

// onboardingPolicy is the custom immutable catalog of this test: the
// third Harness (the guide's wordecho adapter, registered only here) and
// the unsteered kind, text Turns without an environment, with image input
// qualified by the service so that the Runtime's declaration decides it.
// Core's API admission, device selection and final dispatch all read it.
func onboardingPolicy() *engine.Policy {
	profile := func(kind string) engine.Profile {
		yes, no := wire.CapabilitySupported, wire.CapabilityUnsupported
		return engine.Profile{
			Kind:  kind,
			Label: "onboarding " + kind,
			Capabilities: engine.Capabilities{
				WebSearchControl: no, TextVerbosity: no, StructuredOutput: no, MessageImages: yes,
				FunctionTools: no, ToolSearch: no, FunctionResultImages: no, ProgrammaticToolCallingDisable: no,
				Subagents: no, MCPRequired: no,
			},
			Placements:               []engine.Placement{engine.PlacementNone},
			MCPOrigins:               []string{},
			MCPBearer:                no,
			ConfigurationValidation:  engine.CommonValidationOnly,
			ToolsValidation:          engine.CommonValidationOnly,
			FunctionResultValidation: engine.CommonValidationOnly,
		}
	}
	p := engine.For(engine.NewCatalog(profile(example.Kind), profile(unsteeredKind)))
	return &p
}

// unsteeredDeclaration declares the engine's kind again under
// unsteeredKind with steering unsupported.
func unsteeredDeclaration(e *example.Engine) agent.Declaration {
	caps := example.Capabilities()
	caps.Steering = wire.CapabilityUnsupported
	d := example.Declaration(e)
	d.Kind, d.Capabilities = unsteeredKind, caps
	d.Discover = func(context.Context, map[string]string, io.Writer) (*agent.Runtime, error) {
		return &agent.Runtime{Descriptor: wire.SupportedAgentKind{Kind: unsteeredKind, Available: true, Capabilities: caps},
			Sessions: e, Executors: e}, nil
	}
	return d
}

// publicAPI holds every public HTTP call of the onboarding test, so that
// its routes live in one place: the Agents API under /v1, Core's operator
// views under /core/v1.
type publicAPI struct{ s *stack }

func (p publicAPI) createSession(kind string) (string, int) {
	var out struct {
		ID string `json:"id"`
	}
	body := map[string]any{"agent": map[string]any{"model": "echo-1", "x_agents_core": map[string]any{"harness": kind}},
		"environment": map[string]any{"type": "none"}}
	code := p.s.call("POST", "/v1/agents/sessions", body, &out)
	return out.ID, code
}

// submit starts a Turn with in (its messages as /v1 user messages).
func (p publicAPI) submit(session string, in wire.MessageInput) string {
	p.s.t.Helper()
	msgs := []any{}
	for _, m := range in {
		msgs = append(msgs, map[string]any{"role": "user", "content": m.Content})
	}
	return p.s.submitInput(session, msgs)
}

func (p publicAPI) steer(turn, text string) {
	p.s.t.Helper()
	p.s.steer(p.turn(turn).SessionID, text)
}

func (p publicAPI) cancel(turn string) {
	p.s.t.Helper()
	p.s.cancel(p.turn(turn).SessionID)
}

func (p publicAPI) turn(id string) api.TurnJSON { return p.s.turn(id) }

func (p publicAPI) devices() []api.DeviceJSON {
	p.s.t.Helper()
	var out struct {
		Devices []api.DeviceJSON `json:"devices"`
	}
	if code := p.s.call("GET", "/core/v1/devices", nil, &out); code != http.StatusOK {
		p.s.t.Fatalf("devices: %d", code)
	}
	return out.Devices
}

func (p publicAPI) events(turn string) <-chan e2eEvent { return p.s.events(turn) }

// nativeIdentity returns the native session Core saved for Session sid.
func (p publicAPI) nativeIdentity(sid string) string {
	p.s.t.Helper()
	rec, ok := p.s.store.Session(sid)
	if !ok {
		p.s.t.Fatalf("no session %s in the store", sid)
	}
	return rec.NativeSessionID
}

func eventNames(events []e2eEvent) string {
	names := make([]string, len(events))
	for i, ev := range events {
		names[i] = ev.Event
	}
	return strings.Join(names, ",")
}

// TestThirdHarnessPublicOnboarding runs a Harness Core does not ship,
// registered only in this test, through the public integration path: a
// custom immutable engine catalog in the one Policy Core's API and
// scheduler read, public Session and input admission over HTTP, device
// selection, the real WebSocket gateway, the daemon's Registry and
// router, neutral events and the persisted terminal projection. It proves
// the integration path, not native execution: the native side is the
// guide's in-process wordecho engine.
func TestThirdHarnessPublicOnboarding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		e := example.NewEngine()
		s := newStack(t, stackOptions{dir: dir, policy: onboardingPolicy(),
			decls: []agent.Declaration{example.Declaration(e), unsteeredDeclaration(e)}})
		p := publicAPI{s}

		// Device selection sees the device's installed declarations once
		// its first heartbeat arrived.
		synctest.Wait()
		devs := p.devices()
		if len(devs) != 1 || !devs[0].Connected {
			t.Fatalf("devices %+v", devs)
		}
		kinds := map[string]wire.SupportedAgentKind{}
		for _, k := range devs[0].Kinds {
			kinds[k.Kind] = k
		}
		if k := kinds[example.Kind]; !k.Available || !k.Capabilities.Steering.IsSupported() {
			t.Fatalf("the device declares %s as %+v", example.Kind, k)
		}

		// The API admits by the custom catalog: a kind Core ships, absent
		// from it, is refused, with no native effect.
		if _, code := p.createSession(synthetic.Kind); code < 400 || code >= 500 {
			t.Fatalf("a Session of a kind outside the custom catalog: %d, want a 4xx refusal", code)
		}
		sid, code := p.createSession(example.Kind)
		if code != http.StatusOK {
			t.Fatalf("create a %s Session: %d", example.Kind, code)
		}

		// Turn 1 streams while a steered input is written, then applied:
		// the applied receipt is recorded as accepted.
		e.Next(example.Behaviour{Interval: time.Second, ApplyDelay: 500 * time.Millisecond})
		t1 := p.submit(sid, wire.TextInput("one two three"))
		ch := p.events(t1)
		if ev := e2eNext(t, ch); ev.Event != api.EvOutputTextDelta || !strings.Contains(ev.Data, `"one "`) {
			t.Fatalf("first event %+v", ev)
		}
		p.steer(t1, "more words")
		_, text, evs := collect(t, ch)
		if text != "two three more words " || !strings.HasSuffix(eventNames(evs), api.EvTurnCompleted) {
			t.Fatalf("streamed %q as %s; turn %+v", text, eventNames(evs), p.turn(t1))
		}
		tr1 := p.turn(t1)
		if tr1.State != "completed" || tr1.RunID == "" || len(tr1.Inputs) != 1 || tr1.Inputs[0].State != "accepted" {
			t.Fatalf("turn 1 %+v", tr1)
		}
		if !e.Applied("more words") {
			t.Fatal("the input was accepted but the native side never applied it")
		}
		native := p.nativeIdentity(sid)
		if native == "" {
			t.Fatal("turn 1 left no native identity")
		}

		// Turn 2 continues on the same native session.
		t2 := p.submit(sid, wire.TextInput("again"))
		_, text, _ = collect(t, p.events(t2))
		if tr := p.turn(t2); text != "again " || tr.State != "completed" {
			t.Fatalf("turn 2 streamed %q: %+v", text, tr)
		}
		if id := p.nativeIdentity(sid); id != native {
			t.Fatalf("turn 2 ran on native session %q, turn 1 on %q", id, native)
		}
		if truth := e.Truth(); !strings.HasPrefix(truth, "sessions=1 ") {
			t.Fatalf("native truth %s: the continuation opened another native session", truth)
		}

		// Turn 3 is cancelled while it runs.
		e.Next(example.Behaviour{Hold: true})
		t3 := p.submit(sid, wire.TextInput("hold on"))
		ch = p.events(t3)
		e2eNext(t, ch)
		p.cancel(t3)
		_, text, evs = collect(t, ch)
		if tr := p.turn(t3); tr.State != "cancelled" || tr.Content != "hold on " || !strings.HasSuffix(eventNames(evs), api.EvTurnCancelled) {
			t.Fatalf("turn 3 after cancel: %+v, events %s, streamed %q", tr, eventNames(evs), text)
		}

		// An optional request the Runtime does not support (image input,
		// qualified by the service) is refused by device selection with no
		// native effect.
		before := e.Truth()
		image := wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("look"), wire.ImagePart("data:image/png;base64,AAAA")}}}
		t4 := p.submit(sid, image)
		collect(t, p.events(t4))
		if tr := p.turn(t4); tr.State != "failed" || tr.ErrorCode != core.CodeCapabilityUnsupported || tr.ErrorDetail != "message_images" || tr.RunID != "" {
			t.Fatalf("image Turn %+v", tr)
		}

		// A kind whose installed declaration lacks a capability Core
		// always requires is refused before any native work.
		uid, code := p.createSession(unsteeredKind)
		if code != http.StatusOK {
			t.Fatalf("create a %s Session: %d", unsteeredKind, code)
		}
		t5 := p.submit(uid, wire.TextInput("never runs"))
		collect(t, p.events(t5))
		if tr := p.turn(t5); tr.State != "failed" || tr.ErrorCode != core.CodeCapabilityUnsupported || tr.ErrorDetail != "steering" || tr.RunID != "" {
			t.Fatalf("Turn of the unsteered kind %+v", tr)
		}
		if after := e.Truth(); after != before || e.Applied("never runs") || e.Applied("look") {
			t.Fatalf("refused Turns had a native effect: %s, was %s", after, before)
		}

		// The terminal projection and the native identity are persisted:
		// a Core restarted on the same store answers the same.
		want := map[string]api.TurnJSON{}
		for _, id := range []string{t1, t2, t3, t4, t5} {
			want[id] = p.turn(id)
		}
		s.restartCore(dir)
		for _, id := range slices.Sorted(maps.Keys(want)) {
			got, was := p.turn(id), want[id]
			if got.State != was.State || got.Content != was.Content || got.ErrorCode != was.ErrorCode ||
				got.ErrorDetail != was.ErrorDetail || got.Events != was.Events || len(got.Inputs) != len(was.Inputs) {
				t.Fatalf("after a restart %s is %+v, was %+v", id, got, was)
			}
		}
		rec, ok := s.store.Session(sid)
		if !ok || rec.NativeSessionID != native {
			t.Fatalf("saved native identity %q (found %v), want %q", rec.NativeSessionID, ok, native)
		}
	})
}
