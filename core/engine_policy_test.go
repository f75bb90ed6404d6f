package core_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/wire"
)

func policyRig(t *testing.T, profiles ...engine.Profile) *rig {
	p := engine.For(engine.NewCatalog(profiles...))
	return newRigCfg(t, core.Config{Policy: &p})
}

// TestPolicyEmptyCatalogAuthorisesNothing: with an explicit empty catalog
// no Session is admitted and nothing durable changes.
func TestPolicyEmptyCatalogAuthorisesNothing(t *testing.T) {
	h := policyRig(t)
	r := h.api(core.CreateSession{Call: "c", Agent: defaultAgent()})
	require.ErrorIs(t, r.Err, core.ErrEngineUnqualified)
	require.ErrorIs(t, r.Err, engine.ErrUnknownEngine)
	require.Equal(t, 0, len(h.st.Sessions()))
}

func TestPolicyRefusesUnqualifiedPlacementAndOperations(t *testing.T) {
	h := policyRig(t, enginetest.TextOnly(kind))
	hosted := defaultAgent()
	hosted.Environment, hosted.EnvironmentID = core.EnvSelfHosted, "e-1"
	r := h.api(core.CreateSession{Call: "c1", Agent: hosted})
	require.ErrorIs(t, r.Err, engine.ErrUnqualified)

	tools := defaultAgent()
	tools.FunctionTools = []wire.FunctionTool{{Name: "f"}}
	r = h.api(core.CreateSession{Call: "c2", Agent: tools})
	require.ErrorIs(t, r.Err, engine.ErrUnqualified)

	mcp := defaultAgent()
	mcp.MCPServers = []wire.MCPHTTPServer{{ServerLabel: "l", ServerURL: "https://mcp.example"}}
	r = h.api(core.CreateSession{Call: "c3", Agent: mcp})
	require.ErrorIs(t, r.Err, engine.ErrUnqualified, "the frozen default origin is qualified like an explicit one")
	require.Equal(t, 0, len(h.st.Sessions()))

	h.session(defaultAgent())
}

// TestPolicyRefusesImagesAtSubmitAndSteer: an image input on an engine
// whose profile does not qualify images is refused before any work.
func TestPolicyRefusesImagesAtSubmitAndSteer(t *testing.T) {
	h := policyRig(t, enginetest.TextOnly(kind))
	h.connect("d1", 1, fullCaps())
	sid := h.session(defaultAgent())
	r := h.api(core.SubmitTurn{Call: "c", Session: sid, Input: imageInput})
	require.ErrorIs(t, r.Err, engine.ErrUnqualified)
	tid := h.submit(sid, "x")
	r = h.api(core.SteerInput{Call: "s", Turn: tid, Input: imageInput})
	require.ErrorIs(t, r.Err, core.ErrEngineUnqualified)
}

// TestPolicyControlsReachDeviceSelection: a profile declaring the web
// search and verbosity controls makes Core require the device's matching
// capabilities; the text-only profile does not.
func TestPolicyControlsReachDeviceSelection(t *testing.T) {
	h := policyRig(t, enginetest.Full(kind))
	h.connect("d1", 1, baseCaps())
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "x")
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, "web_search_control", v.ErrorDetail)

	h = policyRig(t, enginetest.TextOnly(kind))
	h.connect("d1", 1, baseCaps())
	sid = h.session(defaultAgent())
	h.submit(sid, "x")
	one[wire.ExecutionPrepare](t, h.last)
}

// TestPolicyDefaultsToTheBuiltinCatalog: a Config without Policy
// qualifies exactly the shipped Harness kinds, each by its own profile.
func TestPolicyDefaultsToTheBuiltinCatalog(t *testing.T) {
	st := store.NewMemory()
	h := &rig{t: t, m: core.New(core.Config{}, st), st: st, now: t0}
	r := h.api(core.CreateSession{Call: "c1", Agent: defaultAgent()})
	require.ErrorIs(t, r.Err, engine.ErrUnknownEngine, "a kind outside the built-in catalog fails closed")
	require.Equal(t, 0, len(st.Sessions()))

	synth := core.AgentConfig{Kind: "synthetic", Model: "m", Environment: core.EnvNone}
	h.session(synth)
	synth.FunctionTools = []wire.FunctionTool{{Name: "f"}}
	require.ErrorIs(t, h.api(core.CreateSession{Call: "c2", Agent: synth}).Err, engine.ErrUnqualified)

	codex := core.AgentConfig{Kind: "codex", Model: "m", Environment: core.EnvNone, OutputSchema: []byte(`{"type":"object"}`)}
	h.session(codex)
	hosted := codex
	hosted.Environment, hosted.EnvironmentID = core.EnvSelfHosted, "env-1"
	require.NoError(t, h.api(core.CreateSession{Call: "c3", Agent: hosted}).Err, "codex runs in a bound workspace")
	claude := core.AgentConfig{Kind: "claude", Model: "m", Environment: core.EnvSelfHosted, EnvironmentID: "env-2"}
	require.ErrorIs(t, h.api(core.CreateSession{Call: "c4", Agent: claude}).Err, engine.ErrUnqualified, "claude runs without an execution environment")

	// codex declares the web search and verbosity controls: a device
	// without them is never selected.
	h.step(core.ConnOpened{Device: "d1", Conn: 1})
	h.frame(1, "", wire.Heartbeat{TS: 1, SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: "codex", Available: true, Capabilities: baseCaps()}}})
	tid := h.submit(h.session(core.AgentConfig{Kind: "codex", Model: "m", Environment: core.EnvNone}), "x")
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, "web_search_control", v.ErrorDetail)
}

// TestDispatchRequalifiesAfterRestart: a Session admitted under one
// policy, whose kind the Core restarted with no longer qualifies, fails
// its queued Turn at device selection with capability_unsupported, and
// no preparation reaches the device.
func TestDispatchRequalifiesAfterRestart(t *testing.T) {
	h := newRig(t)
	sid := h.session(defaultAgent())
	tid := h.submit(sid, "queued before the restart")
	require.Equal(t, core.TurnQueued, h.turn(tid).State)
	other := engine.For(engine.NewCatalog(enginetest.TextOnly("other")))
	h.m = core.Restart(core.Config{Policy: &other}, h.st)
	effs := h.connect("d1", 1, fullCaps())
	require.Empty(t, sends[wire.ExecutionPrepare](effs))
	v := h.turn(tid)
	require.Equal(t, core.TurnFailed, v.State)
	require.Equal(t, core.CodeCapabilityUnsupported, v.ErrorCode)
	require.Contains(t, v.ErrorDetail, "engine_unqualified")
	require.Contains(t, v.ErrorDetail, kind)
}

// TestFunctionResultValidationOnEverySubmission: a profile's additional
// function result validation runs on each submitted result; a refused
// one is a named error, sends nothing and changes nothing durable, and
// the same call still takes a valid result.
func TestFunctionResultValidationOnEverySubmission(t *testing.T) {
	h := policyRig(t, enginetest.Full(kind))
	tid, run := h.runningWith(with(fullCaps(), "function_result_images", wire.CapabilitySupported))
	h.frame(1, run, wire.FunctionCall{CallID: "call-1", Name: "lookup", Arguments: json.RawMessage(`{}`)})
	before, _ := h.st.Turn(tid)
	refused := h.api(core.SubmitFunctionResult{Call: h.nextCall(), Turn: tid, CallID: "call-1", Success: true,
		Content: []wire.InputContent{wire.TextPart(enginetest.RefusedResultMarker)}})
	require.ErrorIs(t, refused.Err, core.ErrEngineUnqualified)
	require.ErrorIs(t, refused.Err, engine.ErrRejected)
	require.ErrorIs(t, refused.Err, enginetest.ErrResultRefused)
	require.Contains(t, refused.Err.Error(), "function_result")
	requireResultRefusedThenText(t, h, tid, before)
}

// TestPolicyRefusesResultImagesTheProfileDoesNotQualify: a function
// result carrying images needs the engine profile's qualification as well
// as the Runtime's declaration. A device declaring function_result_images
// does not make up for a profile that does not qualify them: the result
// is refused as engine unqualified, nothing is sent and nothing durable
// changes; a text result on the same call still goes out.
func TestPolicyRefusesResultImagesTheProfileDoesNotQualify(t *testing.T) {
	prof := enginetest.Open(kind, false, false)
	prof.Capabilities.FunctionResultImages = wire.CapabilityUnsupported
	h := policyRig(t, prof)
	tid, run := h.runningWith(with(fullCaps(), "function_result_images", wire.CapabilitySupported))
	h.frame(1, run, wire.FunctionCall{CallID: "call-1", Name: "lookup", Arguments: json.RawMessage(`{}`)})
	before, _ := h.st.Turn(tid)
	refused := h.api(core.SubmitFunctionResult{Call: h.nextCall(), Turn: tid, CallID: "call-1", Success: true,
		Content: []wire.InputContent{wire.TextPart("see"), wire.ImagePart("https://example.com/r.png")}})
	require.ErrorIs(t, refused.Err, core.ErrEngineUnqualified)
	require.ErrorIs(t, refused.Err, engine.ErrUnqualified)
	require.Contains(t, refused.Err.Error(), "function_result_images")
	requireResultRefusedThenText(t, h, tid, before)
}

// TestPolicyQualifiedResultImagesStillNeedTheDeclaration: a profile
// qualifying function result images does not stand in for the Runtime:
// a Turn admitted without function_result_images refuses the result as
// capability unsupported.
func TestPolicyQualifiedResultImagesStillNeedTheDeclaration(t *testing.T) {
	h := policyRig(t, enginetest.Open(kind, false, false))
	tid, run := h.runningWith(with(fullCaps(), "function_result_images", wire.CapabilityUnsupported))
	h.frame(1, run, wire.FunctionCall{CallID: "call-1", Name: "lookup", Arguments: json.RawMessage(`{}`)})
	r := h.api(core.SubmitFunctionResult{Call: h.nextCall(), Turn: tid, CallID: "call-1", Success: true,
		Content: []wire.InputContent{wire.ImagePart("https://example.com/r.png")}})
	require.ErrorIs(t, r.Err, core.ErrCapabilityUnsupported)
	require.Empty(t, sends[wire.FunctionResult](h.last))

	h = policyRig(t, enginetest.Open(kind, false, false))
	tid, run = h.runningWith(with(fullCaps(), "function_result_images", wire.CapabilitySupported))
	h.frame(1, run, wire.FunctionCall{CallID: "call-1", Name: "lookup", Arguments: json.RawMessage(`{}`)})
	r = h.api(core.SubmitFunctionResult{Call: h.nextCall(), Turn: tid, CallID: "call-1", Success: true,
		Content: []wire.InputContent{wire.ImagePart("https://example.com/r.png")}})
	require.NoError(t, r.Err)
	require.Len(t, sends[wire.FunctionResult](h.last), 1)
}

// requireResultRefusedThenText: the refused result of call-1 sent nothing
// and changed nothing durable (the Turn as before, the call pending); a
// text result on the same call then goes out.
func requireResultRefusedThenText(t *testing.T, h *rig, tid string, before core.TurnRecord) {
	t.Helper()
	require.Empty(t, sends[wire.FunctionResult](h.last))
	after, _ := h.st.Turn(tid)
	require.Equal(t, before, after, "a refused result changes nothing durable")
	require.Equal(t, core.InteractionPending, interaction(t, h, tid, "call-1").Status)

	ok := h.api(core.SubmitFunctionResult{Call: h.nextCall(), Turn: tid, CallID: "call-1", Success: true,
		Content: []wire.InputContent{wire.TextPart("42")}})
	require.NoError(t, ok.Err)
	require.Len(t, sends[wire.FunctionResult](h.last), 1)
}
