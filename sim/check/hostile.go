package check

import (
	"bytes"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: hostile_refusal, hostile_effect (rules.go); hostile_connection
// in hostile_conns.go. The world registers each forgery it expects the
// attacked machine to refuse as a HostileProbe; the answers are judged
// from the wire, the Harness and Core's store.
const (
	CheckHostileRefusal    = "hostile_refusal"
	CheckHostileEffect     = "hostile_effect"
	CheckHostileConnection = "hostile_connection"
)

// RogueNode is the node ID of the rogue daemon.
const RogueNode = "rogue"

// Hostile reports whether the event is a hostile peer's: a forged frame,
// or traffic of the rogue node. Checkers of honest behaviour skip it.
func (e WireEvent) Hostile() bool { return e.Forged || e.From == RogueNode || e.To == RogueNode }

// HostileIDPrefix starts every identity a hostile peer mints; honest
// peers never mint one, so an answer naming it answers a forgery.
const HostileIDPrefix = "x-"

// Hostile actions: each forgery the world makes, whether every campaign
// must see it refused (its mark expected), and the answers the seeds
// document for it (wire reference §2.3, §3.3, §3.5, §3.7, §6.1, §6.4):
// a probe naming no Want takes these answers and their condition. An
// action without answers here gets them from the situation the world set
// up.
var (
	HostileStartNeverGranted    = hostileAction("start_never_granted", mustRefuse, "", "rejected/unknown_preparation")
	HostileStartForeignHandle   = hostileAction("start_foreign_handle", mustRefuse, "", "rejected/unknown_preparation")
	HostileStartStaleHandle     = hostileAction("start_stale_handle", mustRefuse, "", "rejected/unknown_preparation")
	HostileStartInvalid         = hostileAction("start_invalid", mustRefuse, "", "rejected/invalid_start")
	HostileStartWrongExecutor   = hostileAction("start_wrong_executor", mustRefuse, "", "rejected/unknown_executor")
	HostileStartReleased        = hostileAction("start_released", mustRefuse, CondExpired, "rejected/preparation_not_ready")
	HostileStartUsedRun         = hostileAction("start_used_run", mustRefuse, CondExpired, "rejected/run_conflict")
	HostileStartConflict        = hostileAction("start_conflict", mustRefuse, CondEvicted, "rejected/start_conflict")
	HostilePrepareInvalid       = hostileAction("prepare_invalid", mustRefuse, "", "rejected/invalid_configuration")
	HostilePrepareUnknownOption = hostileAction("prepare_unknown_option", mustRefuse, "", "rejected/unsupported_configuration rejected/resource_unavailable")
	HostilePrepareNoHistory     = hostileAction("prepare_no_history", mustRefuse, "", "rejected/history_unavailable rejected/resource_unavailable")
	HostilePrepareMCP           = hostileAction("prepare_mcp", mayMiss, CondTable, AnswerAny)
	HostileForeignStatus        = hostileAction("foreign_status", mustRefuse, "", AnswerIgnore)
	HostileReleaseNeverGrant    = hostileAction("release_never_granted", mustRefuse, "", "rejected/unknown_preparation")
	HostileReleaseEmpty         = hostileAction("release_empty", mustRefuse, "", "rejected/invalid_release")
	HostileReleaseOwn           = hostileAction("release_own", mustRefuse, CondEnded, wire.StateReleased)
	HostileReleaseRecord        = hostileAction("release_record", mayMiss, CondEvicted, wire.StateReleased)
	HostilePrepareOwn           = hostileAction("prepare_own", mayMiss, "", AnswerAny) // the admission attacked later
	// the same with "agent_options":{}, which means no options (§3.14): admitted, or refused only as any prepare may be
	HostilePrepareEmptyOptions = hostileAction("prepare_empty_options", mustRefuse, "",
		"preparing rejected/unsupported_configuration rejected/unsupported_preparation "+busyAnswers)
	HostilePrepareConflict       = hostileAction("prepare_conflict", mustRefuse, CondGranted, "rejected/request_conflict")
	HostilePrepareOtherConfig    = hostileAction("prepare_other_config", mayMiss, "", "rejected/configuration_conflict "+busyAnswers+" preparing")
	HostilePrepareReuseNoHistory = hostileAction("prepare_reuse_no_history", mayMiss, "", "rejected/history_unavailable "+busyAnswers+" rejected/configuration_conflict")
	HostilePrepareUndecodable    = hostileAction("prepare_undecodable", mustRefuse, "", "rejected/invalid_request")
	HostileLongID                = hostileAction("long_id", mustRefuse, "", "") // silent, or ignored where the proxy skips it
	HostileCancelUnknownRun      = hostileAction("cancel_unknown_run", mustRefuse, "", "ack/run_inactive")
	HostileSteerUnknownRun       = hostileAction("steer_unknown_run", mustRefuse, "", "ack/run_inactive")
	HostileSteerLongInputID      = hostileAction("steer_long_input_id", mustRefuse, "", "ack/invalid_input") // the id not echoed
	HostileSteerLimitInputID     = hostileAction("steer_limit_input_id", mustRefuse, "", "ack/run_inactive") // 256 bytes are valid
	HostileSteerUndecodable      = hostileAction("steer_undecodable", mustRefuse, "", "ack/invalid_input")
	HostileDecisionConflict      = hostileAction("decision_conflict", mayMiss, "", "ack/decision_conflict ack/not_pending")
	HostileDecisionRepeat        = hostileAction("decision_repeat", mayMiss, "", AnswerAny) // judged by decision_answers.go
	HostileResultImages          = hostileAction("result_images", mayMiss, "", "ack/unsupported ack/not_pending ack/decision_conflict")
	HostileWriteBodyMismatch     = hostileAction("write_body_mismatch", mayMiss, CondTransferOpen, "write/rejected/invalid_request")
	HostileSteerBlankInputID     = hostileAction("steer_blank_input_id", mayMiss, "", "ack/invalid_input")
	HostileSteerReusedInput      = hostileAction("steer_reused_input", mustRefuse, CondDone, "ack/input_conflict")

	// A rogue daemon dialling Core: Core closes at once, at the upgrade,
	// by the idle timeout, or keeps the connection.
	HostileRogueInvalidHeartbeat = hostileAction("rogue_invalid_heartbeat", mustRefuse, "", AnswerClose)
	HostileRogueWrongVersion     = hostileAction("rogue_wrong_version", mustRefuse, "", AnswerClose)
	HostileRogueNearLimit        = hostileAction("rogue_near_limit", mustRefuse, "", AnswerKeep)
	HostileRogueForeignFrame     = hostileAction("rogue_foreign_frame", mustRefuse, "", "") // kept, or ignored
	HostileRogueSilent           = hostileAction("rogue_silent", mustRefuse, "", AnswerClose)

	// A rogue Core running an admission and a Run of its own on an honest
	// connection sends, in each situation it set up, the frame wrong
	// there: an undecodable start (§3.3: the code names the frame type),
	// one whose input breaks the message rules (refused before its handle
	// is looked up), a release under another request ID (the handle
	// untouched), input once 256 were admitted, a prepare naming another
	// native session than the idle executor's.
	HostileStartUndecodable          = hostileAction("rcore_start_undecodable", mustRefuse, "", "rejected/invalid_start")
	HostileStartInvalidInput         = hostileAction("rcore_start_invalid_input", mustRefuse, "", "rejected/invalid_start")
	HostileReleaseUndecodable        = hostileAction("rcore_release_undecodable", mustRefuse, "", "rejected/invalid_release")
	HostileReleaseForeignRequest     = hostileAction("rcore_release_foreign_request", mustRefuse, "", "rejected/unknown_preparation")
	HostileCancelStarting            = hostileAction("rcore_cancel_starting", mustRefuse, CondUnresolved, "ack/not_ready")
	HostileSteerStarting             = hostileAction("rcore_steer_starting", mustRefuse, CondUnresolved, "ack/not_ready")
	HostileDecisionStarting          = hostileAction("rcore_decision_starting", mayMiss, CondUnresolved, "ack/not_ready")
	HostileSteerPastLimit            = hostileAction("rcore_steer_past_limit", mustRefuse, CondRunLive, "ack/input_limit")
	HostileSteerWriteOutstanding     = hostileAction("rcore_steer_write_outstanding", mustRefuse, CondWriteOutstanding, "ack/busy")
	HostilePrepareNativeConflict     = hostileAction("rcore_prepare_native_conflict", mustRefuse, CondOwnerOpen, "rejected/native_session_conflict "+busyAnswers)
	HostilePrepareCleanupUnconfirmed = hostileAction("rcore_prepare_cleanup_unconfirmed", mustRefuse, CondCloseFailed, "rejected/executor_cleanup_unconfirmed rejected/resource_unavailable")
	HostileResultImagesPending       = hostileAction("rcore_result_images_pending", mayMiss, "", "ack/unsupported ack/not_pending ack/decision_conflict")

	// Probes of runtime_prepare transfers and suspension fencing
	// (sim/world/hostile_environment.go), each refused before any native
	// call (wire reference §3.2, §3.12): a chunk of Core's transfer at
	// another offset than the bytes staged, one running past the begin's
	// size_bytes, one with no data, Core's chunk under another transfer's ID (the open
	// transfer untouched), a second transfer's begin on a
	// connection with a transfer open, a begin whose sha256 is upper-case
	// hex; on a fenced daemon a quiesce of another suspension, a rollback
	// resume of another suspension, an execution_prepare and a repeat of
	// the quiesce that fenced it (accepted again); and a repeat
	// of the resume that lifted a fence (its reply taken for lost), which
	// is accepted again.
	HostileChunkWrongOffset    = hostileAction("xfer_chunk_wrong_offset", mustRefuse, "", "xfer/rejected/invalid_request")
	HostileChunkPastSize       = hostileAction("xfer_chunk_past_size", mustRefuse, "", "xfer/rejected/invalid_request")
	HostileChunkEmpty          = hostileAction("xfer_chunk_empty", mustRefuse, "", "xfer/rejected/invalid_request")
	HostileChunkOtherTransfer  = hostileAction("xfer_chunk_other_transfer", mustRefuse, "", "xfer/rejected/invalid_request")
	HostileSecondBegin         = hostileAction("xfer_second_begin", mustRefuse, "", "xfer/rejected/runtime_preparation_capacity")
	HostileUpperDigest         = hostileAction("xfer_upper_digest", mustRefuse, "", "xfer/rejected/invalid_request")
	HostileQuiesceOther        = hostileAction("fence_quiesce_other", mustRefuse, CondFenced, "quiesced/refused/resource_busy")
	HostileQuiesceRepeat       = hostileAction("fence_quiesce_repeat", mustRefuse, CondFenced, "quiesced/accepted")
	HostileRollbackResumeOther = hostileAction("fence_rollback_resume_other", mustRefuse, CondFenced, "resumed/refused/not_suspended")
	HostilePrepareFenced       = hostileAction("fence_prepare_while_quiesced", mustRefuse, CondFenced, "rejected/resource_unavailable")
	HostileResumeRepeat        = hostileAction("fence_resume_repeat", mustRefuse, CondResumeRepeat, "resumed/accepted")
	// A read through a read-only profile whose release Core has sent
	// (sim/world/faults_workspace.go): the close under way admits no new
	// read (resource_unavailable; read_capacity when the connection's
	// reads are at their bound), and no native read happens.
	HostileReadReleasing = hostileAction("read_releasing_profile", mustRefuse, "",
		"read/rejected/resource_unavailable read/rejected/read_capacity")
)

// busyAnswers come first from a busy or uncertain executor, a full
// executor table, or a kind gone unavailable.
const busyAnswers = "rejected/preparation_capacity rejected/executor_capacity rejected/executor_cleanup_unconfirmed rejected/resource_unavailable"

// Whether every campaign must see an action refused.
const (
	mustRefuse = true
	mayMiss    = false
)

type hostileRule struct {
	name, cond string
	expected   bool
	want       []string
}

var hostileRules []hostileRule

// hostileAction registers an action with its space-separated answers.
func hostileAction(name string, expected bool, cond, want string) string {
	hostileRules = append(hostileRules, hostileRule{name, cond, expected, strings.Fields(want)})
	return name
}

// hostileExpectedMarks: every campaign sees each mustRefuse action
// refused, and every proxy mutation happen.
func hostileExpectedMarks() []Mark {
	out := []Mark{MarkHostileDuplicate, MarkHostileReplay, MarkHostileNearLimit, MarkHostileOversize}
	for _, r := range hostileRules {
		if r.expected {
			out = append(out, HostileMark(r.name))
		}
	}
	return out
}

// Expected answers of a HostileProbe (Want).
const (
	AnswerClose  = "close"  // the attacked end closes the connection
	AnswerKeep   = "keep"   // it keeps the connection open
	AnswerIgnore = "ignore" // it neither closes nor changes anything
	AnswerSilent = "silent" // it sends nothing naming the frame
	AnswerAny    = "any"    // any answer (a probe that only orders the answers)
)

// HostileProbe is one forged frame (the bytes as sent; the probe arms
// when they are delivered) the world expects Target to refuse. Want lists
// the acceptable answers (answerOf's form, or an Answer constant); nil
// takes the action's documented answers. The answer carries ReplyID;
// Delivery and Input, when set, must match its delivery or input ID.
// Cond changes Want from the wire when the answer arrives
// (hostile_answers.go), reading Run (else ReplyID) and Executor. Deadline bounds
// an AnswerClose (else the close comes in the delivery step).
type HostileProbe struct {
	Conn     uint64
	Target   string
	Action   string
	Frame    []byte
	ReplyID  string
	Want     []string
	Deadline int64
	Delivery string
	Run      string
	Input    string
	Cond     string
	Executor string
	Suspend  string // a fencing probe's suspension (CondResumeRepeat)
}

// hostileSlack is how long after delivery an answer may leave (a shell
// may defer the send of the delivery step's answer).
const hostileSlack = int64(1e9)

type probeState struct {
	p         HostileProbe
	delivered int64 // 0 until the forged frame arrived
	done      bool
}

type hostileState struct {
	probes     []*probeState
	rogue      map[uint64]bool
	conns      connRules
	stepOf     map[uint64]*probeState            // the probe whose frame a connection delivered last: a close then answers it
	lastStatus map[string]wire.PreparationStatus // newest status per connection and handle
	ownRuns    map[string]bool                   // Runs a rogue Core started validly
	shutdownAt map[string]int64                  // device → the world asked it to shut down
}

func (h *hostileState) init() { h.shutdownAt = map[string]int64{} }

// HostileProbe registers a forgery the world is about to put on the wire.
func (l *Ledger) HostileProbe(p HostileProbe) {
	if i := slices.IndexFunc(hostileRules, func(r hostileRule) bool { return r.name == p.Action }); p.Want == nil && i >= 0 {
		p.Want, p.Cond = slices.Clone(hostileRules[i].want), hostileRules[i].cond
	}
	l.hostile.probes = append(l.hostile.probes, &probeState{p: p})
}

// RogueConn records a rogue daemon's connection to Core, claiming device
// and protocol version in its upgrade, when Core learns it open.
func (l *Ledger) RogueConn(at int64, conn uint64, device, version string) {
	made(&l.hostile.rogue)[conn] = true
	l.hostile.conns.claim(conn, device)
	l.reconnectRogueOpened(at, conn, device, version) // reconnect_window.go
	l.UpgradeVersion(at, conn, version)
}

// UpgradeVersion records the protocol version an upgrade declared (a
// rogue's, or a device's daemon of an older build), when Core learns the
// connection open. Another version than wire.Version, byte for byte, is
// refused at the upgrade with incompatible_version, whoever dials; the
// probe is the rogue's, which states that rule.
func (l *Ledger) UpgradeVersion(at int64, conn uint64, version string) {
	if version != wire.Version {
		l.HostileProbe(HostileProbe{Conn: conn, Target: CoreNode, Action: HostileRogueWrongVersion, Deadline: at})
	}
}

// HostileDurableWrite records a write to Core's durable store made while
// Core stepped a frame it must ignore: any frame of a rogue connection, or
// a forged frame with an AnswerIgnore probe.
func (l *Ledger) HostileDurableWrite(at int64, conn uint64, what string) {
	l.violate(at, CheckHostileEffect, "Core wrote %s to its store while stepping a hostile frame on c%d", what, conn)
}

// HostileOwnRun records a Run the rogue Core starts through an admission
// of its own, granted and ready: a native Turn for it is no forgery
// obeyed. Registered when the start is sent.
func (l *Ledger) HostileOwnRun(run string) { made(&l.hostile.ownRuns)[run] = true }

// HostileMark is the mark of one hostile action refused as documented.
func HostileMark(action string) Mark { return Mark("hostile_refused_" + action) }

func (l *Ledger) refused(action string) { l.reach(HostileMark(action)) }

func (l *Ledger) observeHostile(ev WireEvent) {
	h := &l.hostile
	l.expireProbes(ev.At)
	l.hostileConns(ev)
	if ev.Kind == WireClosed && ev.From == ev.To {
		l.closedBy(ev)
		return
	}
	if ev.Kind == WireDelivered && len(ev.Raw) > 0 {
		made(&h.stepOf)[ev.Conn] = nil
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
	if h.rogue[ev.Conn] && ev.From == CoreNode {
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
	// a status naming a handle: the republish rule; the conditions of
	// probes read the connection index
	if p, ok := ev.Frame.Payload.(wire.PreparationStatus); ok && p.State != wire.StateRejected && p.Handle != "" {
		l.republishRule(ev, p)
	}
	l.matchAnswer(ev)
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

// republishRule: a status with the revision already sent for its handle
// on the connection is a republish (the answer to an identical repeat)
// and must say the same; a lower revision is never sent.
func (l *Ledger) republishRule(ev WireEvent, p wire.PreparationStatus) {
	h := &l.hostile
	k := connFrameKey(ev.Conn, p.Handle)
	last, ok := h.lastStatus[k]
	switch {
	case !ok || p.Revision > last.Revision:
		made(&h.lastStatus)[k] = p
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
		want := l.wantNow(p, ps.delivered)
		switch ack, isAck := ev.Frame.Payload.(wire.PromptSteerAck); {
		case want == nil: // condition not met: nothing to judge
		case !slices.Contains(want, ans):
			l.violate(ev.At, CheckHostileRefusal, "%s answered %s (%s on c%d) with %s, documented %s",
				ev.From, p.Action, p.ReplyID, p.Conn, ans, strings.Join(want, " or "))
		case isAck && len(ack.InputID) > wire.InputIDBytesMax:
			l.violate(ev.At, CheckHostileRefusal, "%s echoed a %d-byte input_id", ev.From, len(ack.InputID))
		default:
			l.refused(p.Action)
		}
		return
	}
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
	for _, ps := range h.probes {
		p := &ps.p
		if ps.done {
			continue
		}
		switch {
		case p.Want[0] == AnswerClose && p.Deadline != 0 && at > p.Deadline && (ps.delivered != 0 || p.Frame == nil):
			ps.done = true
			// a device's daemon declaring another version is no rogue, and
			// is named for what it did
			what := p.Action
			if p.Action == HostileRogueWrongVersion && !l.hostile.rogue[p.Conn] {
				what = "its upgrade declared another protocol version than " + wire.Version
			}
			if l.hostile.conns.openAt(p.Conn, p.Target) {
				l.violate(at, CheckHostileConnection, "%s kept c%d open after %s (deadline %s)", p.Target, p.Conn, what, vtime(p.Deadline))
			}
		case ps.delivered != 0 && (p.Want[0] == AnswerKeep || p.Want[0] == AnswerIgnore) && at > ps.delivered:
			ps.done = true
			l.refused(p.Action)
		case ps.delivered != 0 && p.Want[0] != AnswerClose && at > ps.delivered+hostileSlack:
			ps.done = true
			switch {
			case p.Want[0] == AnswerSilent:
				l.refused(p.Action)
			case p.Cond == CondWriteOutstanding && l.writeOutstandingAnswer(p, ps.delivered) == nil:
				// admitted: its first receipt waits for its native write
			case p.Cond == CondUnresolved && l.unresolvedAnswer(p, ps.delivered) == nil:
				// the start had resolved: admitted, answered when the native side is
			case l.hostile.conns.openAt(p.Conn, p.Target):
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
