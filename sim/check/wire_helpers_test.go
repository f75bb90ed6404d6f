package check

import (
	"encoding/json"
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// wireFeed builds network events for a ledger the way the world's tap
// reports them.
type wireFeed struct {
	l   *Ledger
	now *int64
}

func (w wireFeed) tick() int64 { *w.now += 1_000_000; return *w.now }

func (w wireFeed) open(conn uint64, device string) {
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireOpened, Conn: conn, From: device, To: CoreNode})
	w.l.Wire(WireEvent{At: *w.now, Kind: WireOpened, Conn: conn, From: CoreNode, To: device})
}

func (w wireFeed) close(conn uint64, device string) {
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireClosed, Conn: conn, From: device, To: CoreNode})
	w.l.Wire(WireEvent{At: *w.now, Kind: WireClosed, Conn: conn, From: CoreNode, To: device})
}

// coreSends reports a frame Core sent and its delivery to device.
func (w wireFeed) coreSends(conn uint64, device string, f wire.Frame) {
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireSent, Conn: conn, From: CoreNode, To: device, Raw: []byte("x"), Frame: f})
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireDelivered, Conn: conn, From: CoreNode, To: device, Raw: []byte("x"), Frame: f})
}

// deviceSends reports a frame a device sent and its delivery to Core.
func (w wireFeed) deviceSends(conn uint64, device string, f wire.Frame) {
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireSent, Conn: conn, From: device, To: CoreNode, Raw: []byte("x"), Frame: f})
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireDelivered, Conn: conn, From: device, To: CoreNode, Raw: []byte("x"), Frame: f})
}

// heartbeat reports a heartbeat sent at the current instant (as a daemon
// sends its first one in the step that opens the connection) and its
// delivery to Core.
func (w wireFeed) heartbeat(conn uint64, device string, kinds ...wire.SupportedAgentKind) {
	f := wire.Frame{Payload: wire.Heartbeat{SupportedAgentKinds: kinds}}
	w.l.Wire(WireEvent{At: *w.now, Kind: WireSent, Conn: conn, From: device, To: CoreNode, Raw: []byte("x"), Frame: f})
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireDelivered, Conn: conn, From: device, To: CoreNode, Raw: []byte("x"), Frame: f})
}

const testKind = "sim"

// testSpec is a plain Session: environment none, no extras.
func testSpec() SessionSpec {
	return SessionSpec{Kind: testKind, Model: "m", SystemPrompt: "p", Environment: EnvNone}
}

// allKind declares the test kind available with every capability.
func allKind() wire.SupportedAgentKind {
	return wire.SupportedAgentKind{Kind: testKind, Available: true, Capabilities: wire.AllCapabilities(wire.CapabilitySupported)}
}

// goodConfig is the configuration the seeds give for testSpec's Session.
func goodConfig(session string) wire.ExecutionConfiguration {
	return wire.ExecutionConfiguration{
		AgentKind: testKind, AgentStateKey: "agents-api-" + session, StrictResume: true,
		AgentOptions:      map[string]json.RawMessage{"model": json.RawMessage(`"m"`), "system_prompt": json.RawMessage(`"p"`)},
		ExecutionControls: &wire.ExecutionControls{WebSearch: "disabled", TextVerbosity: "medium"},
		ObserveMessages:   true, DisableSubagents: true, DisableExecutionEnvironment: true,
	}
}

func prepareFrame(req, session string, cfg wire.ExecutionConfiguration) wire.Frame {
	return wire.Frame{ID: req, Payload: wire.ExecutionPrepare{SessionID: session, Configuration: cfg}}
}

func startFrame(req, handle, run string, in wire.MessageInput) wire.Frame {
	return wire.Frame{ID: req, Payload: wire.ExecutionStart{ExecutorID: "e1", Handle: handle, RunID: run, Input: in}}
}

func statusFrame(req string, st wire.PreparationStatus) wire.Frame {
	return wire.Frame{ID: req, Payload: st}
}

// Check families, for unit tests: each family's tests feed short,
// hand-written histories that are only faithful to what that family
// judges (they keep no heartbeat cadence, settle no native turn, …), so
// they judge the violations of their own family; every check has its own
// tests.
var (
	teardownChecks = []string{CheckDoneBeforeReceipt, CheckPublishedBeforeSettled, CheckHeartbeatSnapshot,
		CheckShutdownReport, CheckReceiptBudget, CheckIdleEviction}
	timingChecks  = timingRuleNames()
	hostileChecks = []string{CheckHostileRefusal, CheckHostileEffect, CheckHostileConnection}
)

// hostileOnly keeps the hostile checks' violations.
func hostileOnly(vs []Violation) []Violation {
	return slices.DeleteFunc(vs, func(v Violation) bool { return !slices.Contains(hostileChecks, v.Check) })
}

// untimed drops the timing and hostile checks' violations.
func untimed(vs []Violation) []Violation { return without(without(vs, timingChecks), hostileChecks) }

// framesOnly drops the timing, teardown and hostile families' violations.
func framesOnly(vs []Violation) []Violation {
	return without(without(without(vs, timingChecks), teardownChecks), hostileChecks)
}

// timedOnly keeps the timing checks' violations.
func timedOnly(vs []Violation) []Violation {
	return slices.DeleteFunc(vs, func(v Violation) bool { return !slices.Contains(timingChecks, v.Check) })
}

func without(vs []Violation, checks []string) []Violation {
	return slices.DeleteFunc(vs, func(v Violation) bool { return slices.Contains(checks, v.Check) })
}
