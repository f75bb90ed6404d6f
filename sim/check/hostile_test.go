package check

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// hostileWire feeds one conversation of a connection to a ledger.
type hostileWire struct {
	t *testing.T
	l *Ledger
}

func newHostileWire(t *testing.T) *hostileWire {
	h := &hostileWire{t: t, l: NewLedger()}
	h.open(1, "d1", 0)
	return h
}

func (h *hostileWire) frame(kind string, at int64, conn uint64, from, to string, raw []byte, forged bool) {
	ev := WireEvent{At: at, Kind: kind, Conn: conn, From: from, To: to, Raw: raw, Forged: forged}
	ev.Frame, ev.DecodeErr = wire.Decode(raw)
	h.l.Wire(ev)
}

func (h *hostileWire) open(conn uint64, device string, at int64) {
	h.l.Wire(WireEvent{At: at, Kind: WireOpened, Conn: conn, From: device, To: "core"})
	h.l.Wire(WireEvent{At: at, Kind: WireOpened, Conn: conn, From: "core", To: device})
}

func (h *hostileWire) closeBy(conn uint64, node, reason string, at int64) {
	h.l.Wire(WireEvent{At: at, Kind: WireClosed, Conn: conn, From: node, To: node, Reason: reason})
}

func encode(t *testing.T, id string, p wire.Payload) []byte {
	t.Helper()
	b, err := wire.Encode(wire.Frame{ID: id, Payload: p})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// forge registers a probe and delivers its frame from core to d1 at at.
func (h *hostileWire) forge(at int64, p HostileProbe, raw []byte) {
	p.Conn, p.Frame = 1, raw
	if p.Target == "" {
		p.Target = "d1"
	}
	h.l.HostileProbe(p)
	from := "core"
	if p.Target == "core" {
		from = "d1"
	}
	h.frame(WireSent, at, 1, from, p.Target, raw, true)
	h.frame(WireDelivered, at+ms, 1, from, p.Target, raw, true)
}

func (h *hostileWire) answer(at int64, id string, p wire.Payload) {
	h.frame(WireSent, at, 1, "d1", "core", encode(h.t, id, p), false)
}

// tick is an unrelated event far later, which ends every answer window.
func (h *hostileWire) tick(at int64) {
	h.l.Wire(WireEvent{At: at, Kind: WireOpened, Conn: 99, From: "d9", To: "x"})
}

func (h *hostileWire) want(check, substr string) {
	h.t.Helper()
	for _, v := range h.l.Violations() {
		if v.Check == check && strings.Contains(v.Message, substr) {
			return
		}
	}
	h.t.Fatalf("want %s violation containing %q, got:\n%s", check, substr, Render(h.l.Violations()))
}

func (h *hostileWire) clean() {
	h.t.Helper()
	if vs := hostileOnly(h.l.Violations()); len(vs) > 0 {
		h.t.Fatalf("want no violation, got:\n%s", Render(vs))
	}
}

func (h *hostileWire) refusals(action string) int {
	for _, m := range h.l.HostileRefusals() {
		if string(m.Mark) == action {
			return m.Count
		}
	}
	return 0
}

func neverGrantedStart(t *testing.T) (HostileProbe, []byte) {
	p := HostileProbe{Action: HostileStartNeverGranted, ReplyID: "x-p-1", Want: []string{"rejected/unknown_preparation"}}
	return p, encode(t, "x-p-1", wire.ExecutionStart{ExecutorID: "x-e", Handle: "x-h", RunID: "x-r",
		Input: wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("hi")}}}})
}

func TestHostileRefusalWithTheDocumentedCodeIsCountedAndClean(t *testing.T) {
	h := newHostileWire(t)
	var reached []Mark
	h.l.OnReach = func(m Mark) { reached = append(reached, m) }
	p, raw := neverGrantedStart(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-p-1", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "unknown_preparation",
		Operation: wire.TypeExecutionStart})
	h.tick(5000 * ms)
	h.clean()
	if n := h.refusals(HostileStartNeverGranted); n != 1 {
		t.Fatalf("refusals = %d, want 1", n)
	}
	if len(reached) != 1 || reached[0] != HostileMark(HostileStartNeverGranted) {
		t.Fatalf("OnReach told %q", reached)
	}
}

func TestHostileRefusalWithAnotherCodeIsAViolation(t *testing.T) {
	h := newHostileWire(t)
	p, raw := neverGrantedStart(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-p-1", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "preparation_not_ready"})
	h.want(CheckHostileRefusal, "rejected/preparation_not_ready, documented rejected/unknown_preparation")
}

func TestHostileForgeryNeverAnsweredIsAViolation(t *testing.T) {
	h := newHostileWire(t)
	p, raw := neverGrantedStart(t)
	h.forge(10*ms, p, raw)
	h.tick(5000 * ms)
	h.want(CheckHostileRefusal, "never answered start_never_granted")
}

func TestHostileForgeryOnAConnectionThatClosedIsNotJudged(t *testing.T) {
	h := newHostileWire(t)
	p, raw := neverGrantedStart(t)
	h.forge(10*ms, p, raw)
	h.l.Wire(WireEvent{At: 12 * ms, Kind: WireClosed, Conn: 1, From: "d1", To: "core", Reason: "lost"})
	h.tick(5000 * ms)
	h.clean()
}

func steerConflict(t *testing.T) (HostileProbe, []byte) {
	p := HostileProbe{Action: HostileSteerReusedInput, ReplyID: "t-1", Want: []string{"ack/input_conflict"}, Cond: CondDone}
	return p, encode(t, "t-1", wire.PromptSteer{InputID: "1", DurableReceipt: true,
		Input: wire.MessageInput{{Content: []wire.InputContent{wire.TextPart("other")}}}})
}

func TestHostileReusedInputRunInactiveNeedsAPublishedDone(t *testing.T) {
	h := newHostileWire(t)
	p, raw := steerConflict(t)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "t-1", wire.PromptSteerAck{InputID: "1", ErrorCode: "run_inactive"})
	h.want(CheckHostileRefusal, "ack/run_inactive, documented ack/input_conflict")

	h = newHostileWire(t)
	h.answer(5*ms, "t-1", wire.Done{Content: ""})
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "t-1", wire.PromptSteerAck{InputID: "1", ErrorCode: "run_inactive"})
	h.clean()
}

func TestHostileConflictingPrepareIsJudgedOnlyOnceGranted(t *testing.T) {
	prep := encode(t, "x-p-2", wire.ExecutionPrepare{SessionID: "x-s", Configuration: wire.ExecutionConfiguration{
		AgentKind: "k", AgentStateKey: wire.AgentStateKey("x-s"), StrictResume: true, DisableExecutionEnvironment: true}})
	own := HostileProbe{Action: HostilePrepareOwn, ReplyID: "x-p-2", Want: []string{AnswerAny}}
	conflict := HostileProbe{Action: HostilePrepareConflict, ReplyID: "x-p-2", Want: []string{"rejected/request_conflict"},
		Cond: CondGranted}
	dup := append([]byte(nil), prep...)
	dup = append(dup[:len(dup)-1], ' ', '}') // other bytes, so it matches its own probe

	h := newHostileWire(t)
	h.forge(10*ms, own, prep)
	h.forge(10*ms, conflict, dup)
	h.answer(11*ms, "x-p-2", wire.PreparationStatus{Handle: "h-1", ExecutorID: "ex-1", Revision: 1, State: wire.StatePreparing})
	h.answer(11*ms, "x-p-2", wire.PreparationStatus{Handle: "h-1", ExecutorID: "ex-1", Revision: 1, State: wire.StatePreparing})
	h.want(CheckHostileRefusal, "answered prepare_conflict")

	h = newHostileWire(t)
	h.forge(10*ms, own, prep)
	h.forge(10*ms, conflict, dup)
	h.answer(11*ms, "x-p-2", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "preparation_capacity"})
	h.answer(11*ms, "x-p-2", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "preparation_capacity"})
	h.tick(5000 * ms)
	h.clean()
}

func TestHostileRepublishMustRepeatTheRevision(t *testing.T) {
	h := newHostileWire(t)
	h.answer(1*ms, "p-1", wire.PreparationStatus{Handle: "h-1", ExecutorID: "e", Revision: 2, State: wire.StateReady})
	h.answer(2*ms, "p-1", wire.PreparationStatus{Handle: "h-1", ExecutorID: "e", Revision: 2, State: wire.StateReady})
	h.clean()
	h.answer(3*ms, "p-1", wire.PreparationStatus{Handle: "h-1", ExecutorID: "e", Revision: 2, State: wire.StateStarting, RunID: "t-1"})
	h.want(CheckHostileRefusal, "republished revision 2 of handle h-1 as starting")
	h.answer(4*ms, "p-1", wire.PreparationStatus{Handle: "h-1", ExecutorID: "e", Revision: 1, State: wire.StatePreparing})
	h.want(CheckHostileRefusal, "sent revision 1 of handle h-1 after revision 2")
}

func TestHostileEffects(t *testing.T) {
	h := newHostileWire(t)
	h.l.TurnCreated(1*ms, "d1", "t-1")
	h.clean()
	h.l.TurnCreated(2*ms, "d1", "x-r-3")
	h.want(CheckHostileEffect, "forged Run x-r-3")

	h = newHostileWire(t)
	h.answer(1*ms, "x-long-zzzz", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "invalid_request"})
	h.want(CheckHostileEffect, "echoed (part of) an over-long ID")

	h = newHostileWire(t)
	h.l.RogueConn(0, 1, "x-dev-1", wire.Version)
	h.frame(WireSent, 1*ms, 1, "core", "d1", encode(t, "p-1", wire.ExecutionRelease{Handle: "h"}), false)
	h.want(CheckHostileEffect, "Core sent execution_release on rogue connection c1")

	h = newHostileWire(t)
	h.l.HostileDurableWrite(1*ms, 1, "turn t-1")
	h.want(CheckHostileEffect, "Core wrote turn t-1 to its store while stepping a hostile frame on c1")
}

func heartbeatProbe(t *testing.T, want string) (HostileProbe, []byte) {
	return HostileProbe{Target: "core", Action: HostileRogueInvalidHeartbeat, Want: []string{want}},
		[]byte(`{"type":"heartbeat","payload":{"ts":"x"}}`)
}

func TestHostileInvalidHeartbeatMustCloseInItsStep(t *testing.T) {
	h := newHostileWire(t)
	p, raw := heartbeatProbe(t, AnswerClose)
	h.forge(10*ms, p, raw)
	h.closeBy(1, "core", "invalid heartbeat", 11*ms)
	h.tick(5000 * ms)
	h.clean()
	if h.refusals(HostileRogueInvalidHeartbeat) != 1 {
		t.Fatal("the close must count as the refusal")
	}

	h = newHostileWire(t)
	h.forge(10*ms, p, raw)
	h.tick(12 * ms)
	h.want(CheckHostileConnection, "kept c1 open after rogue_invalid_heartbeat")
}

func TestHostileFrameCoreMustKeepIsJudgedInItsOwnStep(t *testing.T) {
	keep := HostileProbe{Target: "core", Action: HostileRogueNearLimit, Want: []string{AnswerKeep}}
	raw := encode(t, "", wire.Heartbeat{TS: 1})
	h := newHostileWire(t)
	h.forge(10*ms, keep, raw)
	h.closeBy(1, "core", "invalid heartbeat", 11*ms)
	h.want(CheckHostileConnection, "closed c1 on rogue_near_limit")

	// a close answering a later frame delivered at the same instant is that
	// frame's answer
	h = newHostileWire(t)
	h.forge(10*ms, keep, raw)
	p, bad := heartbeatProbe(t, AnswerClose)
	h.forge(10*ms, p, bad)
	h.closeBy(1, "core", "invalid heartbeat", 11*ms)
	h.tick(5000 * ms)
	h.clean()
}

func TestHostileWrongVersionMustBeRefusedAtTheUpgrade(t *testing.T) {
	h := newHostileWire(t)
	h.l.Wire(WireEvent{At: 20 * ms, Kind: WireOpened, Conn: 2, From: RogueNode, To: "core"})
	h.l.RogueConn(20*ms, 2, "x-dev-1", wire.Version+"-dev")
	h.closeBy(2, "core", ReasonIncompatibleVersion, 20*ms)
	h.tick(5000 * ms)
	h.clean()

	h = newHostileWire(t)
	h.l.Wire(WireEvent{At: 20 * ms, Kind: WireOpened, Conn: 2, From: RogueNode, To: "core"})
	h.l.RogueConn(20*ms, 2, "x-dev-1", " "+wire.Version)
	h.tick(21 * ms)
	h.want(CheckHostileConnection, "kept c2 open after rogue_wrong_version")

	h = newHostileWire(t)
	h.l.Wire(WireEvent{At: 20 * ms, Kind: WireOpened, Conn: 2, From: RogueNode, To: "core"})
	h.l.RogueConn(20*ms, 2, "x-dev-1", "0.9.0")
	h.closeBy(2, "core", "bye", 20*ms)
	h.want(CheckHostileConnection, `refused version of c2 with "bye"`)
}

// TestOlderDaemonVersionMustBeRefusedAtTheUpgrade: a device's daemon of
// an older build is held to the same rule as a rogue, and named as what
// it is; its own version declares nothing to judge.
func TestOlderDaemonVersionMustBeRefusedAtTheUpgrade(t *testing.T) {
	h := newHostileWire(t)
	h.open(2, "d1", 20*ms)
	h.l.UpgradeVersion(20*ms, 2, "0.9.0")
	h.closeBy(2, "core", ReasonIncompatibleVersion, 20*ms)
	h.tick(5000 * ms)
	h.clean()

	h = newHostileWire(t)
	h.open(2, "d1", 20*ms)
	h.l.UpgradeVersion(20*ms, 2, "0.9.0")
	h.tick(21 * ms)
	h.want(CheckHostileConnection, "kept c2 open after its upgrade declared another protocol version than "+wire.Version)

	h = newHostileWire(t)
	h.open(2, "d1", 20*ms)
	h.l.UpgradeVersion(20*ms, 2, wire.Version)
	h.closeBy(1, "core", "replaced by a newer connection", 20*ms)
	h.tick(5000 * ms)
	h.clean()
}

func TestHostileNewerConnectionOfADeviceReplacesTheOlder(t *testing.T) {
	h := newHostileWire(t)
	h.open(2, "d1", 10*ms)
	h.closeBy(1, "core", "replaced by a newer connection", 10*ms)
	h.tick(20 * ms)
	h.clean()

	h = newHostileWire(t)
	h.open(2, "d1", 10*ms)
	h.tick(20 * ms)
	h.want(CheckHostileConnection, "keeps 2 connections of device d1 open (c1 c2)")

	// an older generation arriving late is closed, the newer kept
	h = newHostileWire(t)
	h.open(3, "d1", 10*ms)
	h.closeBy(1, "core", "replaced", 10*ms)
	h.open(2, "d1", 15*ms)
	h.closeBy(2, "core", "stale connection", 15*ms)
	h.tick(20 * ms)
	h.clean()

	h = newHostileWire(t)
	h.open(3, "d1", 10*ms)
	h.closeBy(1, "core", "replaced", 10*ms)
	h.open(2, "d1", 15*ms)
	h.closeBy(3, "core", "replaced", 15*ms)
	h.tick(20 * ms)
	h.want(CheckHostileConnection, "Core accepted c2 of device d1 after newer c3")

	h = newHostileWire(t)
	h.open(3, "d1", 10*ms)
	h.closeBy(3, "core", "stale connection", 10*ms)
	h.tick(20 * ms)
	h.want(CheckHostileConnection, "kept older connection c1 of device d1 and refused newer c3")

	// a rogue claiming d1 counts as d1
	h = newHostileWire(t)
	h.l.Wire(WireEvent{At: 10 * ms, Kind: WireOpened, Conn: 4, From: RogueNode, To: "core"})
	h.l.RogueConn(10*ms, 4, "d1", wire.Version)
	h.tick(20 * ms)
	h.want(CheckHostileConnection, "keeps 2 connections of device d1 open (c1 c4)")
}

func TestHostileCrashedEndIsNoLongerOpen(t *testing.T) {
	h := newHostileWire(t)
	h.closeBy(1, "core", "process crashed", 5*ms)
	h.open(2, "d1", 10*ms)
	h.tick(20 * ms)
	h.clean()
}

// The commit of a transfer whose chunk is not the declared body is
// refused invalid_request while the transfer is open; once the daemon
// ended it (an expiry answered rejected), the commit names no transfer
// and is not judged (the write slot may hold another transfer:
// write_capacity).
func TestBodyMismatchCommitJudgedWhileTheTransferIsOpen(t *testing.T) {
	p := HostileProbe{Action: HostileWriteBodyMismatch, ReplyID: "x-w", Cond: CondTransferOpen,
		Want: []string{"write/" + wire.OutcomeRejected + "/" + wire.WriteInvalidRequest}}
	raw := encode(t, "x-w", wire.WorkspaceWrite{Step: wire.StepCommit})
	received := wire.WorkspaceWriteResult{Outcome: wire.OutcomeReceived, Offset: 4}
	capacity := wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteCapacity}

	h := newHostileWire(t)
	h.answer(5*ms, "x-w", received)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-w", wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteInvalidRequest})
	h.tick(5000 * ms)
	h.clean()

	h = newHostileWire(t)
	h.answer(5*ms, "x-w", received)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-w", capacity)
	h.want(CheckHostileRefusal, "with write/rejected/write_capacity, documented write/rejected/invalid_request")

	h = newHostileWire(t)
	h.answer(5*ms, "x-w", received)
	h.answer(7*ms, "x-w", wire.WorkspaceWriteResult{Outcome: wire.OutcomeRejected, ErrorCode: wire.WriteInvalidRequest}) // expired
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-w", capacity)
	h.tick(5000 * ms)
	h.clean()
}

func releaseOwn(t *testing.T) (HostileProbe, []byte) {
	p := HostileProbe{Action: HostileReleaseOwn, ReplyID: "x-p-3", Want: []string{wire.StateReleased}, Cond: CondEnded}
	return p, encode(t, "x-p-3", wire.ExecutionRelease{Handle: "h-3"})
}

// A release that arrives after the daemon failed the admission (native
// setup failed while the frame was delayed) finds a terminal admission:
// the answer is the failed status republished, not released.
func TestHostileReleaseOfAFailedAdmissionIsAnsweredWithTheFailedStatus(t *testing.T) {
	p, raw := releaseOwn(t)
	failed := wire.PreparationStatus{Handle: "h-3", ExecutorID: "ex-3", Revision: 2, State: wire.StateFailed,
		ErrorCode: "preparation_failed"}

	h := newHostileWire(t)
	h.answer(1*ms, "x-p-3", wire.PreparationStatus{Handle: "h-3", ExecutorID: "ex-3", Revision: 1, State: wire.StatePreparing})
	h.answer(5*ms, "x-p-3", failed)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-p-3", failed)
	h.tick(5000 * ms)
	h.clean()
	if n := h.refusals(HostileReleaseOwn); n != 1 {
		t.Fatalf("refusals = %d, want 1", n)
	}

	// a live admission the release fails is not a republish
	h = newHostileWire(t)
	h.answer(1*ms, "x-p-3", wire.PreparationStatus{Handle: "h-3", ExecutorID: "ex-3", Revision: 1, State: wire.StatePreparing})
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-p-3", failed)
	h.want(CheckHostileRefusal, "answered release_own (x-p-3 on c1) with failed, documented released")

	// a failed admission still answers failed, not released
	h = newHostileWire(t)
	h.answer(5*ms, "x-p-3", failed)
	h.forge(10*ms, p, raw)
	h.answer(11*ms, "x-p-3", wire.PreparationStatus{Handle: "h-3", ExecutorID: "ex-3", Revision: 3, State: wire.StateReleased})
	h.want(CheckHostileRefusal, "answered release_own (x-p-3 on c1) with released, documented failed")
}
