package world

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// Decisions a peer in the middle sends a daemon again, or sends where the
// Turn's declaration forbids them, drawn from the "decision-repeats"
// stream apart from every other draw, in half the seeds with faults:
//
//   - when a daemon's applied receipt for one of Core's decisions or
//     function results passes (two times in three, at most
//     decisionRepeatsMax a seed), the same decision under a fresh delivery
//     ID, or a different one (the opposite approval or other updated
//     input, a cancelled choice or the same questions answered with other
//     values, the opposite success or other content of a result), within 5 ms, 2–20 s later (the
//     Turn has often ended), 61–200 s later (past a minute of memory)
//     or 10–25 min later (well inside the hour of memory, past the 10
//     minutes an idle executor lives), on the device's open connection
//     to Core; the deployment stays up for a repeat still to come that
//     falls well inside the liveness deadline, as a daemon stays
//     connected long after its last Turn (repeatsHoldShutdown);
//   - when a daemon forwards a permission request, user-choice prompt or
//     function call its kind's declaration does not allow answering
//     (permissions, function_tools; function_result_images for a result
//     with an image), an answer within 5 ms; and for a user-choice
//     prompt, now and then, an answer cancelled with answers, naming a
//     question the prompt did not ask, or answering one question twice;
//     and right behind such a prompt or request, now and then, a
//     heartbeat claiming permissions (claimPermissions).
//
// decision_repeat_answer and decision_refused_before_native
// (sim/check/decision_answers.go) judge the answers.
type decisionRepeats struct {
	r     *rand.Rand // nil: not in this seed
	left  int
	sent  map[string]wire.Frame // conn/delivery → a decision Core sent
	extra int                   // answers beyond a declaration or invalid, left
	hb    map[sim.ConnID]wire.Heartbeat
	hbs   int // heartbeats claiming permissions left
	// due is when each repeat not sent yet is due; lastSent is when the
	// latest one was sent.
	due      []time.Time
	lastSent time.Time
}

// The deployment stays up for a repeat due up to repeatHoldMargin before
// the least liveness deadline, and repeatAnswerWait after the last one
// sent (Core's decision_ack_wait is 15 s), so that its daemon answers it
// before it is asked to shut down.
const (
	repeatHoldMargin = 3 * time.Minute
	repeatAnswerWait = 20 * time.Second
)

const decisionRepeatsMax = 8

func (u *universe) initDecisionRepeats() {
	r := u.w.Rand("decision-repeats")
	if r.IntN(2) == 0 && !u.faultFree() {
		u.decisionRepeats = decisionRepeats{r: r, left: decisionRepeatsMax, extra: decisionRepeatsMax, sent: map[string]wire.Frame{},
			hb: map[sim.ConnID]wire.Heartbeat{}, hbs: decisionRepeatsMax}
	}
}

// watchDecisionRepeats reads one honest frame sent on conn.
func (u *universe) watchDecisionRepeats(conn sim.ConnID, from sim.NodeID, f wire.Frame) {
	s := &u.decisionRepeats
	if s.r == nil {
		return
	}
	switch p := f.Payload.(type) {
	case wire.PermissionDecision:
		if from == coreID {
			s.sent[statusKey(conn, p.DeliveryID)] = f
		}
	case wire.UserChoiceDecision:
		if from == coreID {
			s.sent[statusKey(conn, p.DeliveryID)] = f
		}
	case wire.FunctionResult:
		if from == coreID {
			s.sent[statusKey(conn, p.DeliveryID)] = f
		}
	case wire.InteractionDecisionAck:
		sent, ok := s.sent[statusKey(conn, p.DeliveryID)]
		if from == coreID || !ok {
			return
		}
		delete(s.sent, statusKey(conn, p.DeliveryID))
		if p.Applied && s.left > 0 && s.r.IntN(3) != 0 {
			s.left--
			u.repeatDecision(from, sent)
		}
	case wire.Heartbeat:
		if from != coreID {
			s.hb[conn] = p
		}
	case wire.PermissionRequest, wire.UserChoicePrompt, wire.FunctionCall:
		if from == coreID {
			return
		}
		if _, fc := p.(wire.FunctionCall); !fc {
			u.claimPermissions(conn, from)
		}
		if s.extra > 0 {
			u.answerBeyond(conn, from, f)
		}
	}
}

// repeatDecision schedules the same or a different decision for device.
func (u *universe) repeatDecision(device sim.NodeID, f wire.Frame) {
	s := &u.decisionRepeats
	same := s.r.IntN(2) == 0
	var wait time.Duration
	switch s.r.IntN(4) {
	case 0:
		wait = time.Duration(s.r.Int64N(int64(5 * time.Millisecond)))
	case 1:
		wait = time.Duration(2000+s.r.IntN(18000)) * time.Millisecond
	case 2:
		wait = time.Duration(61+s.r.IntN(140)) * time.Second
	default:
		wait = time.Duration(600+s.r.IntN(900)) * time.Second
	}
	delivery := u.hostile.mint("d")
	var p wire.Payload
	switch x := f.Payload.(type) {
	case wire.PermissionDecision:
		x.DeliveryID = delivery
		switch {
		case same:
		case s.r.IntN(2) == 0: // the same approval with other updated input
			x.UpdatedInput = []byte(`{"changed":true}`)
		default:
			x.Approved = !x.Approved
		}
		p = x
	case wire.UserChoiceDecision:
		x.DeliveryID = delivery
		switch {
		case same:
		case x.Cancelled:
			x = wire.UserChoiceDecision{DeliveryID: delivery, QuestionAnswers: []wire.QuestionAnswer{}}
		case s.r.IntN(2) == 0 && answerValues(x.QuestionAnswers) > 0:
			// the same questions, as many answers each, other values
			qa := make([]wire.QuestionAnswer, len(x.QuestionAnswers))
			for i, q := range x.QuestionAnswers {
				qa[i] = wire.QuestionAnswer{QuestionID: q.QuestionID, Answers: make([]string, len(q.Answers))}
				for j, v := range q.Answers {
					qa[i].Answers[j] = v + "-changed"
				}
			}
			x.QuestionAnswers = qa
		default:
			x = wire.UserChoiceDecision{DeliveryID: delivery, Cancelled: true, Reason: "changed mind"}
		}
		p = x
	case wire.FunctionResult:
		x.DeliveryID = delivery
		switch {
		case same:
		case s.r.IntN(2) == 0: // the same success with other content
			x.Content = []wire.InputContent{wire.TextPart("other result")}
		default:
			x.Success = !x.Success
		}
		p = x
	}
	due := u.w.Now().Add(wait)
	s.due = append(s.due, due)
	u.w.After(wait, "", func() {
		if i := slices.Index(s.due, due); i >= 0 {
			s.due = slices.Delete(s.due, i, i+1)
		}
		s.lastSent = u.w.Now()
		conn, ok := u.deviceCoreConn(device)
		if !ok {
			return
		}
		u.forge(conn, coreID, encodeFrame(f.ID, p),
			&check.HostileProbe{Action: check.HostileDecisionRepeat, ReplyID: f.ID, Delivery: delivery, Target: string(device)})
	})
}

// repeatsHoldShutdown says whether the daemons must stay up for the
// middle's repeats: one is still due well inside the liveness deadline,
// or the last one sent may still be answered. A real daemon stays
// connected long after its last Turn, so a repeat 10–25 minutes after
// the decision it repeats reaches a daemon that is still up, as the
// hour of applied-decision memory (wire reference §6.1) is meant for.
func (u *universe) repeatsHoldShutdown() bool {
	s := &u.decisionRepeats
	latest := u.healedAt.Add(u.livenessFloor - repeatHoldMargin)
	for _, at := range s.due {
		if !at.After(latest) {
			return true
		}
	}
	return !s.lastSent.IsZero() && u.w.Now().Before(s.lastSent.Add(repeatAnswerWait))
}

// deviceCoreConn is the device's open connection to Core, if any.
func (u *universe) deviceCoreConn(device sim.NodeID) (sim.ConnID, bool) {
	for _, c := range u.w.OpenConns() {
		if c.Acceptor == coreID && c.Dialer == device {
			return c.ID, true
		}
	}
	return 0, false
}

// claimPermissions: right behind a permission request or prompt of a
// device whose kind lacks permissions, now and then, a heartbeat on its
// connection repeating its last one but declaring permissions. Core must
// keep judging answers by the declaration the Turn was admitted with;
// permissions decides nothing else at Core, so no admission changes.
func (u *universe) claimPermissions(conn sim.ConnID, device sim.NodeID) {
	s := &u.decisionRepeats
	hb, ok := s.hb[conn]
	if s.hbs == 0 || !ok || s.r.IntN(2) == 0 {
		return
	}
	claimed := false
	kinds := slices.Clone(hb.SupportedAgentKinds)
	for i := range kinds {
		if !kinds[i].Capabilities.Permissions.IsSupported() {
			kinds[i].Capabilities.Permissions, claimed = wire.CapabilityFromBool(true), true
		}
	}
	if !claimed {
		return
	}
	s.hbs--
	hb.SupportedAgentKinds = kinds
	u.w.Forge(conn, device, encodeFrame("", hb))
}

// answerBeyond answers an interaction the device's declaration does not
// let Core answer, or a prompt with an invalid answer.
func (u *universe) answerBeyond(conn sim.ConnID, device sim.NodeID, f wire.Frame) {
	s := &u.decisionRepeats
	d := u.deviceByID(device)
	if d == nil || len(d.Daemon.Kinds) == 0 {
		return
	}
	caps := d.Daemon.Kinds[0].Capabilities
	roll := s.r.IntN(4) // always drawn
	delivery := u.hostile.mint("d")
	var id string
	var p wire.Payload
	switch x := f.Payload.(type) {
	case wire.PermissionRequest:
		if caps.Permissions.IsSupported() {
			return
		}
		id, p = x.RequestID, wire.PermissionDecision{DeliveryID: delivery, Approved: true, Message: "beyond"}
	case wire.UserChoicePrompt:
		c := wire.UserChoiceDecision{DeliveryID: delivery, QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q-never", Answers: []string{"s"}}}}
		switch {
		case !caps.Permissions.IsSupported() && len(x.Questions) > 0:
			c.QuestionAnswers[0].QuestionID = x.Questions[0].ID
		case roll == 0 && len(x.Questions) > 0:
			c.QuestionAnswers[0].QuestionID, c.Cancelled = x.Questions[0].ID, true
		case roll == 1:
		case roll == 2 && len(x.Questions) > 0: // one question answered twice
			q := wire.QuestionAnswer{QuestionID: x.Questions[0].ID, Answers: []string{"s"}}
			c.QuestionAnswers = []wire.QuestionAnswer{q, q}
		default:
			return
		}
		id, p = x.AskID, c
	case wire.FunctionCall:
		r := wire.FunctionResult{DeliveryID: delivery, CallID: x.CallID, Success: true, Content: []wire.InputContent{wire.TextPart("beyond")}}
		switch {
		case !caps.FunctionTools.IsSupported():
		case !caps.FunctionResultImages.IsSupported() && roll < 2:
			r.Content = append(r.Content, wire.ImagePart("https://example.com/beyond.png"))
		default:
			return
		}
		id, p = f.ID, r
	}
	s.extra--
	wait := time.Duration(s.r.Int64N(int64(5 * time.Millisecond)))
	u.w.After(wait, "", func() {
		u.forge(conn, coreID, encodeFrame(id, p),
			&check.HostileProbe{Action: check.HostileDecisionRepeat, ReplyID: id, Delivery: delivery, Target: string(device)})
	})
}

// answerValues counts the answer values of a user-choice decision.
func answerValues(qa []wire.QuestionAnswer) int {
	n := 0
	for _, q := range qa {
		n += len(q.Answers)
	}
	return n
}
