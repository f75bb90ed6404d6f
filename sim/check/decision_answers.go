package check

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: decision_repeat_answer, decision_refused_before_native,
// decision_sent_lawful, decision_unknown_kept (rules.go). Judged from the
// wire and the Harness's ground truth, with the seeds' rules written out
// again here:
//
//   - an interaction's key is its interaction ID, or "<run>/<call ID>" for
//     a function result (the Harness's key); a decision's content is its
//     payload without delivery_id (wire reference §3.6: "identical,
//     ignoring delivery_id"; §3.8: the same Run and call);
//   - a daemon remembers what it answered applied:true per process (a
//     crash forgets it) for 1024 decisions and an hour (§6.1); the oracle
//     judges a repeat only well inside both bounds;
//   - the declaration a decision is judged by is the one the daemon
//     declared for the session's kind when the Turn's execution_prepare
//     reached it (§4.2: an admitted Turn keeps it);
//   - the decision a native call applies is the oldest delivery of its key
//     the daemon had not answered when the Harness saw the call.
const (
	CheckDecisionRepeatAnswer        = "decision_repeat_answer"
	CheckDecisionRefusedBeforeNative = "decision_refused_before_native"
	CheckDecisionSentLawful          = "decision_sent_lawful"
	CheckDecisionUnknownKept         = "decision_unknown_kept"
)

// Marks of the situations these rules judge.
const (
	// an identical decision reached a daemon that had applied it
	MarkDecisionRepeatIdentical Mark = "decision_repeat_identical"
	// an identical decision reached a daemon that had applied it, once
	// the Run had ended (answered from its memory of applied decisions)
	MarkDecisionRepeatRemembered Mark = "decision_repeat_remembered"
	// an identical decision reached a daemon more than ten minutes after
	// it applied it (past the 10 minutes an idle executor lives, well
	// inside the hour of memory)
	MarkDecisionRepeatAfterTenMinutes Mark = "decision_repeat_after_ten_minutes"
	// a decision differing from the applied one reached the daemon
	MarkDecisionRepeatChanged Mark = "decision_repeat_changed"
	// a function result differing from the applied one only in success
	MarkResultSuccessChanged Mark = "result_success_changed"
	// a different decision reached a daemon while another was being applied
	MarkDecisionChangedApplying Mark = "decision_changed_applying"
	// a decision its Turn's admitted declaration does not allow reached a daemon
	MarkDecisionBeyondDeclaration Mark = "decision_beyond_declaration"
	// a user-choice decision cancelled with answers, or answering a
	// question never asked, reached a daemon
	MarkChoiceInvalidDelivered Mark = "choice_invalid_delivered"
	// a decision reached a daemon after a prompt_cancel of its Run
	MarkDecisionAfterCancel Mark = "decision_after_cancel"
	// the adapter refused a declared decision operation
	MarkDecisionAdapterRefused Mark = "decision_adapter_refused"
)

// Memory bounds of applied decisions (wire reference §6.1), and how far
// inside them the oracle judges.
const (
	appliedMemoryEntries = 1024
	appliedMemoryAge     = int64(3600e9)
	appliedMemorySlack   = int64(1e9)
	// an age the mark decision_repeat_after_ten_minutes names
	tenMinutes = int64(600e9)
)

type dxAsk struct {
	run       string
	kind      string          // permission, user_choice, function_call
	questions map[string]bool // a prompt's question IDs
}

type dxDelivery struct {
	device, key, run, kind string
	delivery, fp           string
	seq                    uint64
	acked                  bool
	// what held when it reached the daemon
	mem       *dxMemory
	invalid   string // why a user-choice decision is invalid
	lacks     string // the capability its Turn's declaration lacks
	cancelled bool   // a prompt_cancel of its Run had reached the daemon, which had started it
	natively  bool   // the key had a native call out or applied
	// the adapter refused the native call it triggered as unsupported
	refusedNatively bool
}

type dxMemory struct {
	fp    string
	at    int64
	order int
	ended bool // filled at delivery: the Run had ended when the repeat came
}

type dxCall struct {
	trigger     *dxDelivery
	answeredSeq uint64 // 0 while out
}

type decisionAnswerState struct {
	seq        uint64
	coreSent   map[string]int64                      // delivery IDs of decisions Core sent
	coreAsked  map[string]map[string]bool            // ask ID → question IDs of prompts that reached Core
	asked      map[string]*dxAsk                     // device\x00key → what the daemon asked
	callRuns   map[string][]string                   // device\x00call ID → the Runs that made that function call
	prepCaps   map[string]wire.AgentKindCapabilities // conn\x00request → declaration when the prepare reached the daemon
	runCaps    map[string]wire.AgentKindCapabilities // device\x00run → the Turn's admitted declaration
	deliveries map[string]*dxDelivery                // device\x00delivery
	open       map[string][]*dxDelivery              // device\x00key → deliveries not answered yet, in order
	memory     map[string]map[string]*dxMemory       // device → key → applied content
	applied    map[string]int                        // device → applied keys remembered so far
	calls      map[string][]*dxCall                  // device\x00key → native calls
	truthSeen  map[string]bool                       // device\x00key → the Harness applied it
	coreDecl   map[string]wire.SupportedAgentKind    // conn\x00kind → the declaration Core last received
	corePrep   map[string]wire.SupportedAgentKind    // conn\x00request → Core's view when it sent execution_prepare
	coreRun    map[string]wire.AgentKindCapabilities // device\x00run → what Core's view at the prepare or at the start supported
	cancelled  map[string]bool                       // conn\x00run: a prompt_cancel reached the daemon and it refused none since
}

func fpOf(f wire.Frame) (key, kind, fp string, images bool, ok bool) {
	var p wire.Payload
	switch x := f.Payload.(type) {
	case wire.PermissionDecision:
		x.DeliveryID = ""
		p, key, kind = x, f.ID, "permission"
	case wire.UserChoiceDecision:
		x.DeliveryID = ""
		p, key, kind = x, f.ID, "user_choice"
	case wire.FunctionResult:
		images = hasImages(wire.MessageInput{{Content: x.Content}})
		x.DeliveryID = ""
		p, key, kind = x, f.ID+"/"+x.CallID, "function_call"
	default:
		return "", "", "", false, false
	}
	b, err := json.Marshal(p) // content as sent, valid or not
	if err != nil {
		return "", "", "", false, false
	}
	return key, kind, string(b), images, true
}

func questionIDs(p wire.UserChoicePrompt) map[string]bool {
	qs := map[string]bool{}
	for _, q := range p.Questions {
		qs[q.ID] = true
	}
	return qs
}

// choiceInvalid says why a user-choice decision breaks §3.6's rules
// against the questions its prompt asked (nil: not known).
func choiceInvalid(d wire.UserChoiceDecision, questions map[string]bool) string {
	if d.Cancelled && len(d.QuestionAnswers) > 0 {
		return "cancelled with answers"
	}
	seen := map[string]bool{}
	for _, a := range d.QuestionAnswers {
		id := a.QuestionID
		switch {
		case strings.TrimSpace(id) == "":
			return "a blank question ID"
		case seen[id]:
			return "question " + id + " answered twice"
		case questions != nil && !questions[id]:
			return "question " + id + " never asked"
		case a.Answers == nil:
			return "null answers"
		}
		seen[id] = true
	}
	return ""
}

func (l *Ledger) observeDecisionAnswers(ev WireEvent) {
	if !ev.HasFrame() {
		return
	}
	s := &l.dx
	s.seq++
	f := ev.Frame
	switch {
	case ev.Kind == WireSent && ev.From == CoreNode && !ev.Forged:
		l.dxCoreSent(ev)
	case ev.Kind == WireDelivered && ev.To == CoreNode:
		if hb, ok := f.Payload.(wire.Heartbeat); ok { // a forged one is Core's view too
			for _, k := range hb.SupportedAgentKinds {
				made(&s.coreDecl)[connFrameKey(ev.Conn, k.Kind)] = k
			}
		}
		if p, ok := f.Payload.(wire.UserChoicePrompt); ok && !ev.Forged {
			keepFirst(made(&s.coreAsked), p.AskID, questionIDs(p))
		}
	case ev.Kind == WireSent && ev.From != CoreNode && !ev.Forged && ev.From != RogueNode:
		l.dxDaemonSent(ev)
	case ev.Kind == WireDelivered && ev.To != CoreNode && ev.To != RogueNode && ev.From != RogueNode:
		l.dxDaemonReached(ev)
	}
}

func (l *Ledger) dxDaemonSent(ev WireEvent) {
	s := &l.dx
	dev := ev.From
	switch p := ev.Frame.Payload.(type) {
	case wire.PermissionRequest:
		keepFirst(made(&s.asked), pairKey(dev, p.RequestID), &dxAsk{run: ev.Frame.ID, kind: "permission"})
	case wire.UserChoicePrompt:
		keepFirst(made(&s.asked), pairKey(dev, p.AskID), &dxAsk{run: ev.Frame.ID, kind: "user_choice", questions: questionIDs(p)})
	case wire.FunctionCall:
		keepFirst(made(&s.asked), pairKey(dev, ev.Frame.ID+"/"+p.CallID), &dxAsk{run: ev.Frame.ID, kind: "function_call"})
		if runs := s.callRuns[pairKey(dev, p.CallID)]; !slices.Contains(runs, ev.Frame.ID) {
			made(&s.callRuns)[pairKey(dev, p.CallID)] = append(runs, ev.Frame.ID)
		}
	case wire.InteractionDecisionAck:
		if _, ok := l.conn(ev.Conn).cancelled[p.DeliveryID]; ok && !p.Applied {
			delete(s.cancelled, connFrameKey(ev.Conn, ev.Frame.ID)) // the cancel was not taken: the Run goes on
		}
		d := s.deliveries[pairKey(dev, p.DeliveryID)]
		if d == nil || d.acked {
			return
		}
		d.acked = true
		k := pairKey(dev, d.key)
		s.open[k] = slices.DeleteFunc(s.open[k], func(o *dxDelivery) bool { return o == d })
		l.dxJudgeAck(ev, d, p)
		if p.Applied {
			mem := inner(made(&s.memory), dev)
			if mem[d.key] == nil {
				made(&s.applied)[dev]++
				mem[d.key] = &dxMemory{fp: d.fp, at: ev.At, order: s.applied[dev]}
			}
		}
	}
}

func (l *Ledger) dxDaemonReached(ev WireEvent) {
	s := &l.dx
	c := l.conn(ev.Conn)
	dev := c.device
	if dev == "" {
		return
	}
	switch p := ev.Frame.Payload.(type) {
	case wire.PromptCancel:
		if !ev.Forged {
			made(&s.cancelled)[connFrameKey(ev.Conn, ev.Frame.ID)] = true
		}
		return
	case wire.ExecutionPrepare:
		if k, ok := c.declared[p.Configuration.AgentKind]; ok {
			keepFirst(made(&s.prepCaps), connFrameKey(ev.Conn, ev.Frame.ID), k.Capabilities)
		}
		return
	case wire.ExecutionStart:
		if caps, ok := s.prepCaps[connFrameKey(ev.Conn, ev.Frame.ID)]; ok && !ev.Forged && p.RunID != "" {
			keepFirst(made(&s.runCaps), pairKey(dev, p.RunID), caps)
		}
		return
	}
	key, kind, fp, images, ok := fpOf(ev.Frame)
	if !ok {
		return
	}
	delivery, _, _ := decisionOf(ev.Frame)
	made(&l.ix.reached)[delivery] = true // its receipt is no cancel receipt
	ask := s.asked[pairKey(dev, key)]
	if delivery == "" || ask == nil || ask.kind != kind || s.deliveries[pairKey(dev, delivery)] != nil {
		return // judged only for an interaction this daemon asked
	}
	d := &dxDelivery{device: dev, key: key, run: ask.run, kind: kind, delivery: delivery, fp: fp, seq: s.seq}
	if m := s.memory[dev][key]; m != nil && ev.At-m.at < appliedMemoryAge-appliedMemorySlack && s.applied[dev]-m.order < appliedMemoryEntries-1 {
		cp := *m
		cp.ended = c.run(ask.run).ended
		d.mem = &cp
	}
	if u, ok := ev.Frame.Payload.(wire.UserChoiceDecision); ok {
		d.invalid = choiceInvalid(u, ask.questions)
	}
	if caps, ok := s.runCaps[pairKey(dev, ask.run)]; ok {
		switch {
		case kind != "function_call" && !caps.Permissions.IsSupported():
			d.lacks = "permissions"
		case kind == "function_call" && !caps.FunctionTools.IsSupported():
			d.lacks = "function_tools"
		case kind == "function_call" && images && !caps.FunctionResultImages.IsSupported():
			d.lacks = "function_result_images"
		}
	}
	l.dxSnapshot(ev, d)
	l.dxMarks(ev, d)
}

// dxSnapshot completes what held when d reached the daemon and files it.
func (l *Ledger) dxSnapshot(ev WireEvent, d *dxDelivery) {
	s := &l.dx
	dev, key, delivery := d.device, d.key, d.delivery
	r := l.conn(ev.Conn).run(d.run)
	d.natively = s.truthSeen[pairKey(dev, key)] || len(s.open[pairKey(dev, key)]) > 0 || s.outCall(dev, key) != nil
	d.cancelled = s.cancelled[connFrameKey(ev.Conn, d.run)] && r.started && !r.ended
	made(&s.deliveries)[pairKey(dev, delivery)] = d
	made(&s.open)[pairKey(dev, key)] = append(s.open[pairKey(dev, key)], d)
}

func (l *Ledger) dxMarks(ev WireEvent, d *dxDelivery) {
	switch {
	case d.invalid != "":
		l.reach(MarkChoiceInvalidDelivered)
	case d.lacks != "":
		l.reach(MarkDecisionBeyondDeclaration)
	}
	if d.mem != nil {
		if d.mem.fp == d.fp {
			l.reach(MarkDecisionRepeatIdentical)
			if d.mem.ended {
				l.reach(MarkDecisionRepeatRemembered)
			}
			if ev.At-d.mem.at > tenMinutes {
				l.reach(MarkDecisionRepeatAfterTenMinutes)
			}
		} else {
			l.reach(MarkDecisionRepeatChanged)
			if r, ok := ev.Frame.Payload.(wire.FunctionResult); ok && d.mem.fp == flippedFP(ev.Frame.ID, r) {
				l.reach(MarkResultSuccessChanged)
			}
		}
	}
	if d.cancelled && d.mem == nil && !d.natively && d.invalid == "" && d.lacks == "" {
		l.reach(MarkDecisionAfterCancel)
	}
}

// flippedFP is the content of r with the opposite success.
func flippedFP(run string, r wire.FunctionResult) string {
	r.Success = !r.Success
	_, _, fp, _, _ := fpOf(wire.Frame{ID: run, Payload: r})
	return fp
}

// applyingOther is a native call of d's key, made for another content,
// that was out when d reached the daemon.
func (s *decisionAnswerState) applyingOther(d *dxDelivery) *dxCall {
	for _, c := range s.calls[pairKey(d.device, d.key)] {
		if c.trigger != nil && c.trigger.seq < d.seq && (c.answeredSeq == 0 || c.answeredSeq > d.seq) && c.trigger.fp != d.fp {
			return c
		}
	}
	return nil
}

func ackText(a wire.InteractionDecisionAck) string {
	if a.Applied {
		return "applied:true"
	}
	return "refused " + a.ErrorCode
}

// dxJudgeAck judges a daemon's first answer to a decision it received.
func (l *Ledger) dxJudgeAck(ev WireEvent, d *dxDelivery, a wire.InteractionDecisionAck) {
	s := &l.dx
	what := d.kind + " decision " + d.delivery + " for " + d.key
	switch {
	case d.refusedNatively:
		if a.Applied || a.ErrorCode != wire.AckContractViolation {
			l.violate(ev.At, CheckDecisionRefusedBeforeNative, "%s answered %s, which the adapter refused as unsupported although the kind declares it, %s; want %s",
				ev.From, what, ackText(a), wire.AckContractViolation)
		}
	case d.invalid != "":
		if a.Applied {
			l.violate(ev.At, CheckDecisionRefusedBeforeNative, "%s answered %s (%s) applied:true", ev.From, what, d.invalid)
		}
	case d.lacks != "":
		if a.Applied || !slices.Contains([]string{wire.AckUnsupported, wire.AckNotPending, wire.AckDecisionConflict}, a.ErrorCode) {
			l.violate(ev.At, CheckDecisionRefusedBeforeNative, "%s answered %s, whose Turn was admitted without %s, %s; want %s",
				ev.From, what, d.lacks, ackText(a), wire.AckUnsupported)
		}
	case d.mem != nil && d.mem.fp == d.fp:
		if !a.Applied {
			l.violate(ev.At, CheckDecisionRepeatAnswer, "%s answered an identical repeat %s of a decision it applied (run ended: %t) %s; want applied:true",
				ev.From, what, d.mem.ended, ackText(a))
		}
	case d.mem != nil:
		if a.Applied || a.ErrorCode != wire.AckDecisionConflict {
			l.violate(ev.At, CheckDecisionRepeatAnswer, "%s answered %s, which differs from the decision it applied (run ended: %t), %s; want %s",
				ev.From, what, d.mem.ended, ackText(a), wire.AckDecisionConflict)
		}
	case s.applyingOther(d) != nil:
		l.reach(MarkDecisionChangedApplying)
		if a.Applied || a.ErrorCode != wire.AckDecisionConflict {
			l.violate(ev.At, CheckDecisionRepeatAnswer, "%s answered %s, which reached it while a different decision for it was being applied, %s; want %s",
				ev.From, what, ackText(a), wire.AckDecisionConflict)
		}
	case d.cancelled && !d.natively:
		if a.Applied || a.ErrorCode != wire.AckNotPending {
			l.violate(ev.At, CheckDecisionRefusedBeforeNative, "%s answered %s, which reached it after a prompt_cancel of run %s, %s; want %s",
				ev.From, what, d.run, ackText(a), wire.AckNotPending)
		}
	}
}

// dxNativeCalled: the Harness got a native decision call for key.
func (l *Ledger) dxNativeCalled(at int64, device, key string) {
	s := &l.dx
	s.seq++
	var trigger *dxDelivery
	if open := s.open[pairKey(device, key)]; len(open) > 0 {
		trigger = open[0]
	}
	made(&s.calls)[pairKey(device, key)] = append(s.calls[pairKey(device, key)], &dxCall{trigger: trigger})
	if trigger == nil {
		return
	}
	switch {
	case trigger.invalid != "":
		l.violate(at, CheckDecisionRefusedBeforeNative, "%s made a native call for user-choice decision %s for %s, which is %s", device, trigger.delivery, key, trigger.invalid)
	case trigger.lacks != "":
		l.violate(at, CheckDecisionRefusedBeforeNative, "%s made a native call for %s decision %s for %s, whose Turn was admitted without %s", device, trigger.kind, trigger.delivery, key, trigger.lacks)
	case trigger.cancelled && !trigger.natively && trigger.mem == nil:
		l.violate(at, CheckDecisionRefusedBeforeNative, "%s made a native call for %s decision %s for %s, which reached it after a prompt_cancel of run %s", device, trigger.kind, trigger.delivery, key, trigger.run)
	}
}

// DecisionRefusedUnsupported records the adapter refusing the native
// decision call for key that is out, although the kind declares it.
func (l *Ledger) DecisionRefusedUnsupported(at int64, device, run, key string) {
	if c := l.dx.outCall(device, key); c != nil && c.trigger != nil {
		c.trigger.refusedNatively = true
		l.reach(MarkDecisionAdapterRefused)
	}
}

// outCall is the oldest native call for key still out on device, or nil.
func (s *decisionAnswerState) outCall(device, key string) *dxCall {
	for _, c := range s.calls[pairKey(device, key)] {
		if c.answeredSeq == 0 {
			return c
		}
	}
	return nil
}

// dxNativeAnswered: the native call for key returned.
func (l *Ledger) dxNativeAnswered(device, key string, applied bool) {
	s := &l.dx
	s.seq++
	if c := s.outCall(device, key); c != nil {
		c.answeredSeq = s.seq
	}
	if applied {
		made(&s.truthSeen)[pairKey(device, key)] = true
	}
}

// dxDaemonCrashed: a daemon process died and its memory with it.
func (l *Ledger) dxDaemonCrashed(device string) {
	s := &l.dx
	delete(s.memory, device)
	for k, c := range s.calls { //tidy:sorted each entry is closed alike
		if strings.HasPrefix(k, device+"\x00") {
			for _, x := range c {
				if x.answeredSeq == 0 {
					s.seq++
					x.answeredSeq = s.seq
				}
			}
		}
	}
	for k := range s.open { //tidy:sorted each entry is dropped alike
		if strings.HasPrefix(k, device+"\x00") {
			delete(s.open, k)
		}
	}
}

// dxCoreSent judges a decision or function result Core sends.
func (l *Ledger) dxCoreSent(ev WireEvent) {
	s := &l.dx
	f := ev.Frame
	switch p := f.Payload.(type) {
	case wire.ExecutionPrepare:
		if k, ok := s.coreDecl[connFrameKey(ev.Conn, p.Configuration.AgentKind)]; ok {
			keepFirst(made(&s.corePrep), connFrameKey(ev.Conn, f.ID), k)
		}
		return
	case wire.ExecutionStart:
		prep, ok := s.corePrep[connFrameKey(ev.Conn, f.ID)]
		now, ok2 := s.coreDecl[connFrameKey(ev.Conn, prep.Kind)]
		if ok && ok2 && p.RunID != "" {
			// judged where Core's view lacked it both at the prepare and at the start
			caps, v := prep.Capabilities, now.Capabilities
			caps.Permissions = wire.CapabilityFromBool(caps.Permissions.IsSupported() || v.Permissions.IsSupported())
			caps.FunctionTools = wire.CapabilityFromBool(caps.FunctionTools.IsSupported() || v.FunctionTools.IsSupported())
			caps.FunctionResultImages = wire.CapabilityFromBool(caps.FunctionResultImages.IsSupported() || v.FunctionResultImages.IsSupported())
			keepFirst(made(&s.coreRun), pairKey(l.conn(ev.Conn).device, p.RunID), caps)
		}
		return
	case wire.UserChoiceDecision:
		if why := choiceInvalid(p, s.coreAsked[f.ID]); why != "" {
			l.violate(ev.At, CheckDecisionSentLawful, "Core sent a user-choice decision %s for %s that is %s", p.DeliveryID, f.ID, why)
		}
	case wire.FunctionResult:
		l.engineResultImagesSent(ev.At, f.ID, p)
		// its Envelope ID is the Run ID of the Run that made the call (§3.8)
		if runs := s.callRuns[pairKey(l.conn(ev.Conn).device, p.CallID)]; len(runs) > 0 && !slices.Contains(runs, f.ID) {
			l.violate(ev.At, CheckDecisionSentLawful, "Core sent the function result for call %s under Envelope ID %q, not the Run ID of the Run that made the call (%s)",
				p.CallID, f.ID, strings.Join(runs, ", "))
		}
	}
	delivery, _, ok := decisionOf(f)
	if !ok {
		return
	}
	// a copy in the same instant is the network's duplicate, not an attempt
	if at, ok := s.coreSent[delivery]; ok && at != ev.At {
		l.violate(ev.At, CheckDecisionSentLawful, "Core sent %s for %s under delivery ID %q, which an earlier attempt carried", f.Payload.MessageType(), f.ID, delivery)
	}
	made(&s.coreSent)[delivery] = ev.At
	dev := l.conn(ev.Conn).device
	key, kind, _, images, _ := fpOf(f)
	run := f.ID
	if ask := s.asked[pairKey(dev, key)]; ask != nil {
		run = ask.run
	}
	caps, ok := s.coreRun[pairKey(dev, run)]
	if !ok {
		return
	}
	switch {
	case kind != "function_call" && !caps.Permissions.IsSupported():
		l.violate(ev.At, CheckDecisionSentLawful, "Core sent a %s decision for %s to a Turn admitted without permissions", kind, key)
	case kind == "function_call" && !caps.FunctionTools.IsSupported():
		l.violate(ev.At, CheckDecisionSentLawful, "Core sent a function result for %s to a Turn admitted without function_tools", key)
	case kind == "function_call" && images && !caps.FunctionResultImages.IsSupported():
		l.violate(ev.At, CheckDecisionSentLawful, "Core sent a function result with images for %s to a Turn admitted without function_result_images", key)
	}
}

// dxCoreStatus judges Core's record of an interaction leaving delivering:
// without a receipt for its latest delivery, its outcome is unknown.
func (l *Ledger) dxCoreStatus(at int64, turn, id, prev, status, delivery string) {
	if prev != "delivering" || status == "delivering" || status == "unknown" || status == "applied" || status == "withdrawn" {
		return
	}
	if att := l.ix.byDelivery[delivery]; att != nil && att.answered >= 0 {
		return // a receipt reached Core
	}
	l.violate(at, CheckDecisionUnknownKept, "Core recorded interaction %s of turn %s %s while its decision %s awaited a receipt; want unknown", id, turn, status, delivery)
}
