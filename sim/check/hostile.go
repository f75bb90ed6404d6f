package check

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Hostile peers. The world forges frames an honest peer never sends (a
// proxy on a Core–daemon connection, a rogue daemon dialling Core) and
// registers each forgery it expects the attacked machine to refuse as a
// HostileProbe: the action, the frame, and the answer the seeds document
// for that situation. The checkers below judge the answers from the wire
// alone: what the attacked machine sent back, what it closed, and what
// the Harness and Core's store show it did.
const (
	CheckHostileRefusal    = "hostile_refusal"
	CheckHostileEffect     = "hostile_effect"
	CheckHostileConnection = "hostile_connection" // hostile_conns.go
)

// RogueNode is the node ID of the rogue daemon: its frames are a hostile
// peer's, never an honest daemon's.
const RogueNode = "rogue"

// Hostile reports whether the event is a hostile peer's: a forged frame,
// or traffic of the rogue node. Checkers of honest behaviour skip it.
func (e WireEvent) Hostile() bool { return e.Forged || e.From == RogueNode || e.To == RogueNode }

// HostileIDPrefix starts every identity a hostile peer mints (request,
// Run, input, delivery and handle IDs, sessions, devices). Honest peers
// never mint one, so an answer naming it is an answer to a forgery.
const HostileIDPrefix = "x-"

// Hostile actions, each with the answer the seeds document (§3.3, §3.5,
// §3.7 of the wire reference; §2.3 for connections).
const (
	HostileStartNeverGranted     = "start_never_granted"    // rejected unknown_preparation
	HostileStartForeignHandle    = "start_foreign_handle"   // rejected unknown_preparation
	HostileStartStaleHandle      = "start_stale_handle"     // rejected unknown_preparation
	HostileStartInvalid          = "start_invalid"          // rejected invalid_start
	HostileStartWrongExecutor    = "start_wrong_executor"   // rejected unknown_executor
	HostileStartReleased         = "start_released"         // rejected preparation_not_ready (expired if it expired)
	HostileStartUsedRun          = "start_used_run"         // rejected run_conflict
	HostileStartConflict         = "start_conflict"         // rejected start_conflict
	HostilePrepareInvalid        = "prepare_invalid"        // rejected invalid_configuration
	HostilePrepareUnknownOption  = "prepare_unknown_option" // rejected unsupported_configuration
	HostilePrepareNoHistory      = "prepare_no_history"     // rejected history_unavailable
	HostilePrepareMCP            = "prepare_mcp"            // the configuration table's refusal of its MCP servers
	HostileForeignStatus         = "foreign_status"         // Core ignores a status with a foreign handle
	HostileReleaseNeverGrant     = "release_never_granted"
	HostileReleaseEmpty          = "release_empty"            // rejected invalid_release
	HostileReleaseOwn            = "release_own"              // released (expired if it expired, failed if it failed)
	HostileReleaseRecord         = "release_record"           // released, or unknown_preparation once evicted
	HostilePrepareOwn            = "prepare_own"              // any answer: the admission attacked later
	HostilePrepareConflict       = "prepare_conflict"         // rejected request_conflict once granted
	HostilePrepareOtherConfig    = "prepare_other_config"     // its idle executor's Session, another configuration: configuration_conflict
	HostilePrepareReuseNoHistory = "prepare_reuse_no_history" // history required of its rootless idle executor: history_unavailable
	HostilePrepareUndecodable    = "prepare_undecodable"      // rejected invalid_request
	HostileLongID                = "long_id"                  // no answer naming it, no effect
	HostileCancelUnknownRun      = "cancel_unknown_run"       // ack run_inactive
	HostileSteerUnknownRun       = "steer_unknown_run"        // ack run_inactive
	HostileSteerLongInputID      = "steer_long_input_id"      // ack invalid_input, id not echoed
	HostileSteerLimitInputID     = "steer_limit_input_id"     // a 256-byte input_id is valid: ack run_inactive
	HostileSteerUndecodable      = "steer_undecodable"        // ack invalid_input
	HostileDecisionConflict      = "decision_conflict"        // ack decision_conflict (not_pending once forgotten)
	HostileResultImages          = "result_images"            // ack unsupported (not_pending once gone)
	HostileWriteBodyMismatch     = "write_body_mismatch"      // commit rejected invalid_request
	HostileSteerBlankInputID     = "steer_blank_input_id"     // ack invalid_input
	HostileSteerReusedInput      = "steer_reused_input"       // ack input_conflict (run_inactive once done)

	HostileRogueInvalidHeartbeat = "rogue_invalid_heartbeat" // Core closes at once
	HostileRogueWrongVersion     = "rogue_wrong_version"     // Core closes at the upgrade
	HostileRogueNearLimit        = "rogue_near_limit"        // Core keeps the connection
	HostileRogueForeignFrame     = "rogue_foreign_frame"     // Core ignores it: no change
	HostileRogueSilent           = "rogue_silent"            // Core closes by the idle timeout
)

// Expected answers of a HostileProbe (Want).
const (
	AnswerClose  = "close"  // the attacked end closes the connection
	AnswerKeep   = "keep"   // it keeps the connection open
	AnswerIgnore = "ignore" // it neither closes nor changes anything
	AnswerSilent = "silent" // it sends nothing naming the frame
	AnswerAny    = "any"    // any answer (a probe that only orders the answers)
)

// HostileProbe is one forged frame the world expects the attacked machine
// (Target) to refuse. Want lists the acceptable answers: "rejected/<code>"
// or a resource state ("released", "expired") for preparation_status,
// "ack/<code>" for prompt_steer_ack and interaction_decision_ack refusals,
// or one of the Answer constants. ReplyID is the envelope ID the answer
// carries. Frame is the forged bytes as sent (the probe arms when they
// are delivered). Deadline, when set, bounds an AnswerClose in virtual
// nanoseconds (else the close must come in the delivery step).
type HostileProbe struct {
	At       int64
	Conn     uint64
	Target   string
	Action   string
	Frame    []byte
	ReplyID  string
	Want     []string
	Deadline int64
	// Delivery, when set, is the delivery ID the answer (an
	// interaction_decision_ack) must name: other acks on ReplyID answer
	// other deliveries.
	Delivery string
	// Run, when set, is the Run a condition reads where ReplyID names
	// something else (an interaction ID).
	Run string
	// Input, when set, is the input ID the answer (a prompt_steer_ack)
	// must name: other acks on ReplyID answer other inputs.
	Input string
	// Cond names a condition the checker evaluates from the wire when the
	// answer arrives, changing Want (CondExpired, CondEnded, CondDone,
	// CondGranted, ...).
	Cond string
	// Executor, for CondOwnerOpen, is the native executor that must still
	// be open on Target when the frame arrives.
	Executor string
}

// Probe conditions.
const (
	// CondExpired: if the daemon already sent expired for ReplyID on this
	// connection, the answer is the republished expired status.
	CondExpired = "expired"
	// CondEnded: a release of the probe's own admission; once it ended
	// expired or failed the answer is that status (endedAnswer).
	CondEnded = "ended"
	// CondDone: if the daemon already sent done for the Run, the route is
	// gone and the answer is run_inactive.
	CondDone = "done"
	// CondGranted: the answer is checked only if the daemon granted the
	// request ID (a resource status with a handle) before answering.
	CondGranted = "granted"
	// CondEvicted: the request names a record the connection's table may
	// have evicted. The table rebuilt from the wire (admission_records.go)
	// decides: a record the eviction rule removed is unknown
	// (unknown_preparation, only), one it holds answers as Want; a request
	// the table never saw granted is unknown as well once
	// AdmissionRecordsMax requests were granted on the connection.
	CondEvicted = "evicted"
	// CondTable: the probe is a forged execution_prepare; its answer is
	// the refusal the configuration table (prepareRefusal, written out
	// again from the seeds) gives it on the daemon's declared kinds, and
	// is not judged when the table refuses nothing.
	CondTable = "table"
)

// AdmissionRecordsMax is the Runtime's admission records per connection
// (wire reference §6.1).
const AdmissionRecordsMax = 64

// hostileSlack is how long after delivery an answer may leave (the
// attacked machine answers in the step that received the forgery; the
// slack covers a shell that defers the send).
const hostileSlack = int64(1e9)

type probeState struct {
	p         HostileProbe
	delivered int64 // 0 until the forged frame arrived
	done      bool
}

type hostileState struct {
	probes  []*probeState
	marks   map[Mark]int // action -> refusals seen
	fresh   []string     // refusals not yet taken by the world
	granted map[string]bool
	grants  map[uint64]int // request IDs granted per connection
	expired map[string]bool
	failed  map[string]bool // conn/request: the daemon sent failed (noteFailed)
	doneRun map[string]bool
	rogue   map[uint64]bool
	conns   connRules
	// stepOf is, per connection, the probe whose frame was the last one
	// delivered on it: a close at that instant is Core's answer to it.
	stepOf map[uint64]*probeState
	// lastStatus is the newest status sent per connection and handle.
	lastStatus map[string]wire.PreparationStatus
	records    map[uint64]*recordTable // admission_records.go
	starting   map[string]bool         // conn/run: the daemon sent starting (rogue_core.go)
	ownRuns    map[string]bool         // Runs a rogue Core started validly (rogue_core.go)
	// shutdownAt is when the world asked a device to shut down: its
	// daemon cancels every Turn then (rogue_core.go).
	shutdownAt map[string]int64
	writeEnded map[string]int64 // hostile_writes.go
}

func (h *hostileState) init() {
	h.marks = map[Mark]int{}
	h.granted, h.expired, h.doneRun = map[string]bool{}, map[string]bool{}, map[string]bool{}
	h.failed = map[string]bool{}
	h.grants = map[uint64]int{}
	h.rogue = map[uint64]bool{}
	h.stepOf = map[uint64]*probeState{}
	h.lastStatus = map[string]wire.PreparationStatus{}
	h.starting, h.ownRuns = map[string]bool{}, map[string]bool{}
	h.shutdownAt = map[string]int64{}
	h.writeEnded = map[string]int64{}
	h.conns.init()
}

func connIDKey(conn uint64, id string) string { return strconv.FormatUint(conn, 10) + "/" + id }

// HostileProbe registers a forgery the world is about to put on the wire.
func (l *Ledger) HostileProbe(p HostileProbe) {
	l.hostile.probes = append(l.hostile.probes, &probeState{p: p})
}

// RogueConn records that conn is a rogue daemon's connection to Core,
// claiming device (a real device ID or a hostile one) and protocol
// version in its upgrade, at the instant Core learns it open. A version
// other than wire.Version, byte for byte, must be refused at the upgrade:
// Core closes the connection at once with incompatible_version.
func (l *Ledger) RogueConn(at int64, conn uint64, device, version string) {
	l.hostile.rogue[conn] = true
	l.hostile.conns.claim(conn, device)
	l.reconnectRogueOpened(at, conn, device, version) // reconnect_window.go
	if version != wire.Version {
		l.HostileProbe(HostileProbe{At: at, Conn: conn, Target: CoreNode, Action: HostileRogueWrongVersion,
			Want: []string{AnswerClose}, Deadline: at})
	}
}

// HostileDurableWrite records a write to Core's durable store made while
// Core stepped a frame it must ignore: any frame of a rogue connection, or
// a forged frame with an AnswerIgnore probe.
func (l *Ledger) HostileDurableWrite(at int64, conn uint64, what string) {
	l.violate(at, CheckHostileEffect, "Core wrote %s to its store while stepping a hostile frame on c%d", what, conn)
}

// hostileExpectedMarks: every hostile action the default swarm exercises
// must be refused in some seed of every campaign, and every proxy
// mutation must happen.
func hostileExpectedMarks() []Mark {
	out := append([]Mark{MarkHostileDuplicate, MarkHostileReplay, MarkHostileNearLimit, MarkHostileOversize},
		rogueCoreExpectedMarks()...)
	for _, a := range []string{
		HostileStartNeverGranted, HostileStartForeignHandle, HostileStartStaleHandle, HostileStartInvalid,
		HostileStartWrongExecutor, HostileStartReleased, HostileStartUsedRun, HostileStartConflict,
		HostileReleaseNeverGrant, HostileReleaseEmpty, HostileReleaseOwn, HostilePrepareConflict,
		HostilePrepareUndecodable, HostilePrepareInvalid, HostilePrepareUnknownOption, HostilePrepareNoHistory,
		HostileLongID, HostileCancelUnknownRun, HostileSteerUnknownRun, HostileSteerLongInputID,
		HostileSteerLimitInputID, HostileSteerReusedInput, HostileSteerUndecodable, HostileForeignStatus,
		HostileRogueInvalidHeartbeat, HostileRogueWrongVersion, HostileRogueNearLimit, HostileRogueForeignFrame,
		HostileRogueSilent,
	} {
		out = append(out, HostileMark(a))
	}
	return out
}

// HostileMark is the mark of one hostile action refused as documented.
func HostileMark(action string) Mark { return Mark("hostile_refused_" + action) }

func (l *Ledger) refused(action string) {
	l.hostile.marks[Mark(action)]++
	l.hostile.fresh = append(l.hostile.fresh, action)
	l.Mark(HostileMark(action))
}

// TakeHostileRefusals returns the actions refused since the last call, in
// the order judged (the world turns them into kernel marks).
func (l *Ledger) TakeHostileRefusals() []string {
	out := l.hostile.fresh
	l.hostile.fresh = nil
	return out
}

func (l *Ledger) observeHostile(ev WireEvent) {
	h := &l.hostile
	l.expireProbes(ev.At)
	l.hostileConns(ev)
	if ev.Kind == WireClosed && ev.From == ev.To {
		l.closedBy(ev)
		return
	}
	if ev.Kind == WireDelivered && len(ev.Raw) > 0 {
		h.stepOf[ev.Conn] = nil
		if !ev.Forged && ev.From != RogueNode {
			return
		}
		for _, ps := range h.probes {
			if ps.delivered == 0 && !ps.done && ps.p.Conn == ev.Conn && ps.p.Target == ev.To && bytes.Equal(ps.p.Frame, ev.Raw) {
				ps.delivered = ev.At
				h.stepOf[ev.Conn] = ps
				if ps.p.Deadline == 0 && ps.p.Want[0] == AnswerClose {
					ps.p.Deadline = ev.At
				}
				break
			}
		}
		return
	}
	if ev.Kind != WireSent || ev.Forged || !ev.HasFrame() {
		return
	}
	if h.rogue[ev.Conn] && ev.From != ev.To && !strings.HasPrefix(ev.From, "rogue") {
		l.violate(ev.At, CheckHostileEffect, "Core sent %s on rogue connection c%d, which declared no Harness kind",
			ev.Frame.Type(), ev.Conn)
	}
	if len(ev.Frame.ID) > wire.IDBytesMax {
		l.violate(ev.At, CheckHostileEffect, "%s sent %s with a %d-byte ID (limit %d)", ev.From, ev.Frame.Type(), len(ev.Frame.ID), wire.IDBytesMax)
	}
	if ev.From == CoreNode && namesHostile(ev.Frame) {
		l.violate(ev.At, CheckHostileEffect, "Core sent %s naming a forged identity (id %q)", ev.Frame.Type(), ev.Frame.ID)
	}
	if strings.HasPrefix(ev.Frame.ID, HostileIDPrefix+"long") {
		l.violate(ev.At, CheckHostileEffect, "%s echoed (part of) an over-long ID in %s", ev.From, ev.Frame.Type())
	}
	l.noteAnswerContext(ev)
	l.matchAnswer(ev)
	l.noteFailed(ev)
}

// namesHostile reports whether a frame names an identity only a hostile
// peer mints: Core acting on a forgery would name it.
func namesHostile(f wire.Frame) bool {
	if strings.HasPrefix(f.ID, HostileIDPrefix) {
		return true
	}
	switch p := f.Payload.(type) {
	case wire.ExecutionStart:
		return strings.HasPrefix(p.Handle, HostileIDPrefix) || strings.HasPrefix(p.ExecutorID, HostileIDPrefix)
	case wire.ExecutionRelease:
		return strings.HasPrefix(p.Handle, HostileIDPrefix)
	}
	return false
}

// noteAnswerContext tracks what the conditions of probes read: grants and
// expiries of request IDs, and done of Runs, per connection.
func (l *Ledger) noteAnswerContext(ev WireEvent) {
	h := &l.hostile
	switch p := ev.Frame.Payload.(type) {
	case wire.PreparationStatus:
		k := connIDKey(ev.Conn, ev.Frame.ID)
		if ev.From != RogueNode {
			l.noteRecord(ev.Conn, ev.Frame.ID, p)
			l.noteStarting(ev, p)
		}
		if p.State != wire.StateRejected && p.Handle != "" {
			if !h.granted[k] {
				h.grants[ev.Conn]++
			}
			h.granted[k] = true
			l.republishRule(ev, p)
		}
		if p.State == wire.StateExpired {
			h.expired[k] = true
		}
	case wire.Done:
		h.doneRun[connIDKey(ev.Conn, ev.Frame.ID)] = true
	case wire.WorkspaceWriteResult:
		l.noteWriteEnded(ev, p)
	}
}

// republishRule: a status with the revision already sent for its handle
// on the connection is a republish (the answer to an identical repeat)
// and must say the same; a lower revision is never sent.
func (l *Ledger) republishRule(ev WireEvent, p wire.PreparationStatus) {
	h := &l.hostile
	k := connIDKey(ev.Conn, p.Handle)
	last, ok := h.lastStatus[k]
	switch {
	case !ok || p.Revision > last.Revision:
		h.lastStatus[k] = p
	case p.Revision < last.Revision:
		l.violate(ev.At, CheckHostileRefusal, "%s sent revision %d of handle %s after revision %d", ev.From, p.Revision, p.Handle, last.Revision)
	case p.State != last.State || p.RunID != last.RunID || p.ErrorCode != last.ErrorCode:
		l.violate(ev.At, CheckHostileRefusal, "%s republished revision %d of handle %s as %s, first sent as %s",
			ev.From, p.Revision, p.Handle, p.State, last.State)
	}
}

func (l *Ledger) matchAnswer(ev WireEvent) {
	ans := answerOf(ev.Frame)
	if ans == "" {
		return
	}
	for _, ps := range l.hostile.probes {
		p := &ps.p
		if ack, ok := ev.Frame.Payload.(wire.InteractionDecisionAck); p.Delivery != "" && (!ok || ack.DeliveryID != p.Delivery) {
			continue
		}
		if ack, ok := ev.Frame.Payload.(wire.PromptSteerAck); p.Input != "" && (!ok || ack.InputID != p.Input) {
			continue
		}
		if ps.done || ps.delivered == 0 || p.Conn != ev.Conn || p.Target != ev.From || p.ReplyID != ev.Frame.ID ||
			p.Want[0] == AnswerClose || p.Want[0] == AnswerKeep || p.Want[0] == AnswerIgnore {
			continue
		}
		ps.done = true
		want := l.wantOf(p, ev, ps.delivered)
		if want == nil {
			return // condition not met: nothing to judge
		}
		if !slices.Contains(want, ans) {
			l.violate(ev.At, CheckHostileRefusal, "%s answered %s (%s on c%d) with %s, documented %s",
				ev.From, p.Action, p.ReplyID, p.Conn, ans, strings.Join(want, " or "))
			return
		}
		if ack, ok := ev.Frame.Payload.(wire.PromptSteerAck); ok && len(ack.InputID) > wire.InputIDBytesMax {
			l.violate(ev.At, CheckHostileRefusal, "%s echoed a %d-byte input_id", ev.From, len(ack.InputID))
			return
		}
		l.refused(p.Action)
		return
	}
}

// wantNow applies a probe's condition to its Want, from the wire so far.
func (l *Ledger) wantNow(p *HostileProbe, ev WireEvent, delivered int64) []string {
	h := &l.hostile
	switch p.Cond {
	case CondExpired:
		if h.expired[connIDKey(p.Conn, p.ReplyID)] {
			return []string{wire.StateExpired}
		}
	case CondEnded:
		if w := l.endedAnswer(p); w != nil {
			return w
		}
	case CondDone:
		if h.doneRun[connIDKey(p.Conn, p.ReplyID)] {
			return []string{"ack/" + "run_inactive"}
		}
	case CondGranted:
		if !h.granted[connIDKey(p.Conn, p.ReplyID)] {
			return nil
		}
	case CondTable:
		return l.tableAnswer(p)
	case CondTransferOpen:
		return l.transferOpenAnswer(p, delivered)
	case CondUnresolved:
		return l.unresolvedAnswer(p, delivered)
	case CondRunLive:
		return l.runLiveAnswer(p, delivered)
	case CondCloseFailed:
		return l.closeFailedAnswer(p, delivered)
	case CondWriteOutstanding:
		return l.writeOutstandingAnswer(p, delivered)
	case CondOwnerOpen:
		if e := l.harness.executors[pairKey(p.Target, p.Executor)]; e == nil || e.closed {
			return nil
		}
	case CondEvicted:
		if held, evicted := l.recordKnown(p.Conn, p.ReplyID); evicted {
			return []string{"rejected/unknown_preparation"}
		} else if !held && h.grants[p.Conn] >= AdmissionRecordsMax {
			return append([]string{"rejected/unknown_preparation"}, p.Want...)
		}
	}
	if p.Want[0] == AnswerAny {
		return nil
	}
	return p.Want
}

// closedBy settles probes that want the attacked end to close, and
// judges a close in the step of a frame that must not cause one.
func (l *Ledger) closedBy(ev WireEvent) {
	h := &l.hostile
	for _, ps := range h.probes {
		p := &ps.p
		if ps.done || p.Conn != ev.Conn || p.Target != ev.From {
			continue
		}
		ps.done = true
		switch p.Want[0] {
		case AnswerClose:
			switch {
			case p.Action == HostileRogueWrongVersion && ev.Reason != ReasonIncompatibleVersion:
				l.violate(ev.At, CheckHostileConnection, "%s refused version of c%d with %q, documented %s",
					ev.From, ev.Conn, ev.Reason, ReasonIncompatibleVersion)
			case ps.delivered != 0 || p.Frame == nil:
				l.refused(p.Action)
			}
		case AnswerKeep, AnswerIgnore:
			if ps.delivered != 0 && ev.At == ps.delivered && h.stepOf[ev.Conn] == ps {
				l.violate(ev.At, CheckHostileConnection, "%s closed c%d on %s (%s); it must keep it",
					ev.From, ev.Conn, p.Action, ev.Reason)
			}
		}
	}
}

// expireProbes judges probes whose time is up at instant at, then drops
// the probes already judged.
func (l *Ledger) expireProbes(at int64) {
	h := &l.hostile
	if len(h.probes) == 0 {
		return
	}
	for _, ps := range h.probes {
		p := &ps.p
		if ps.done {
			continue
		}
		switch {
		case p.Want[0] == AnswerClose && p.Deadline != 0 && at > p.Deadline && (ps.delivered != 0 || p.Frame == nil):
			ps.done = true
			if !l.hostile.conns.openAt(p.Conn, p.Target) {
				continue
			}
			l.violate(at, CheckHostileConnection, "%s kept c%d open after %s (deadline %s)", p.Target, p.Conn, p.Action, vtime(p.Deadline))
		case ps.delivered != 0 && (p.Want[0] == AnswerKeep || p.Want[0] == AnswerIgnore) && at > ps.delivered:
			ps.done = true
			l.refused(p.Action)
		case ps.delivered != 0 && p.Want[0] != AnswerClose && at > ps.delivered+hostileSlack:
			ps.done = true
			if p.Action == HostileLongID {
				l.refused(p.Action)
				continue
			}
			if p.Cond == CondWriteOutstanding && l.writeOutstandingAnswer(p, ps.delivered) == nil {
				continue // admitted: its first receipt waits for its native write
			}
			if p.Cond == CondUnresolved && l.unresolvedAnswer(p, ps.delivered) == nil {
				continue // the start had resolved: admitted, answered when the native side is
			}
			if l.hostile.conns.openAt(p.Conn, p.Target) {
				l.violate(at, CheckHostileRefusal, "%s never answered %s (%s on c%d delivered at %s), documented %s",
					p.Target, p.Action, p.ReplyID, p.Conn, vtime(ps.delivered), strings.Join(p.Want, " or "))
			}
		}
	}
	h.probes = slices.DeleteFunc(h.probes, func(ps *probeState) bool { return ps.done })
}

// hostileTurnCreated: a native Turn for a hostile Run means a forged
// start was obeyed.
func (l *Ledger) hostileTurnCreated(at int64, device, run string) {
	if strings.HasPrefix(run, HostileIDPrefix) && !l.hostile.ownRuns[run] {
		l.violate(at, CheckHostileEffect, "Harness of %s created a native Turn for forged Run %s", device, run)
	}
}
