package check

import (
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: workspace_read_environment, workspace_read_after_unknown,
// workspace_read_unsupported, workspace_write_exclusion,
// workspace_declaration (rules.go), from
// the frames reaching a daemon (Core's and forged ones alike: the daemon
// answers both by the same rules), its answers, and the Harness's truth of
// when a Turn settled. Each rule allows the refusals the daemon gives
// before it (resource_unavailable for an owner that is gone,
// read_capacity, and for a write every earlier refusal), never data or
// another code.
const (
	CheckReadEnvironment      = "workspace_read_environment"
	CheckReadAfterUnknown     = "workspace_read_after_unknown"
	CheckReadUnsupported      = "workspace_read_unsupported"
	CheckWriteExclusion       = "workspace_write_exclusion"
	CheckWorkspaceDeclaration = "workspace_declaration"
)

// Marks: a refusal each rule demanded.
const (
	MarkWriteRefusedDuringRun     Mark = "workspace_write_refused_during_run"     // a begin for a running Turn's Environment refused
	MarkReadForeignEnvRefused     Mark = "workspace_read_foreign_env_refused"     // a read naming a foreign Environment refused
	MarkReadBlockedAfterUnknown   Mark = "workspace_read_blocked_after_unknown"   // a read of an owner refused after its unknown read
	MarkReadUnsupportedRefused    Mark = "workspace_read_unsupported_refused"     // a read of a kind serving no workspace refused
	MarkPrepareRefusedDuringWrite Mark = "workspace_prepare_refused_during_write" // a prepare bound to an Environment being written or exported refused
	MarkExportUnsupportedRefused  Mark = "workspace_export_unsupported_refused"   // an export of a kind declaring no workspace_output_export refused
)

// rtPrep is a preparation a daemon received, with what its statuses said.
type rtPrep struct {
	device, env      string
	kind             string
	readOnly         bool
	declared         bool // its kind's declaration was known when it arrived
	lacking          bool // its kind's declaration then: workspace_read_preparation unsupported
	exportLacking    bool // and workspace_output_export unsupported
	handle, executor string
	run              string // the Run its start created (status run_id)
	started          bool   // the daemon said started
}

// rtRead is a read a daemon received, awaiting its answer.
type rtRead struct {
	owner                          string
	declared                       bool
	lacking, foreignEnv, afterUnkn bool
}

type wsRuntimeState struct {
	preps    map[string]*rtPrep // conn\x00request
	byHandle map[string]*rtPrep // conn\x00handle
	byRun    map[string]*rtPrep // conn\x00run
	caps     map[string]wire.AgentKindCapabilities
	reads    map[string]*rtRead // conn\x00operation
	unknown  map[string]bool    // owners with a read answered unknown
	begins   map[string]string  // conn\x00mutation → the Environment executing at its begin
	exports  map[string]*rtPrep // conn\x00export → its owner, until its first answer
	// busy: conn\x00ID → device\x00Environment of a write the daemon
	// answered ready or an export it sent a chunk of, until it ended
	busy map[string]string
	// exclusion: conn\x00request → the Environment of a prepare that
	// reached its daemon while a write or export of it was in progress
	exclusion  map[string]string
	writeEnvs  map[string]string // conn\x00mutation → its begin's Environment
	exportEnvs map[string]string // conn\x00export → its owner's Environment
	envPrep    envPrepState      // prepare_during_environment_preparation.go
}

func (l *Ledger) observeWorkspaceRuntime(ev WireEvent) {
	if ev.Kind == WireClosed || ev.Kind == WireLost {
		deleteUnder(l.wsRuntime.busy, connKey(ev.Conn)+"\x00") // the daemon drops a transfer or export with its connection
		deleteUnder(l.wsRuntime.envPrep.busy, connKey(ev.Conn)+"\x00")
	}
	if !ev.HasFrame() || ev.From == RogueNode || ev.To == RogueNode {
		return
	}
	switch {
	case ev.Kind == WireSent && ev.From == CoreNode && !ev.Forged:
		if p, ok := ev.Frame.Payload.(wire.WorkspaceExport); ok {
			l.coreExportSent(ev, p)
		}
	case ev.Kind == WireDelivered && ev.To != CoreNode:
		l.runtimeReceived(ev)
	case ev.Kind == WireSent && ev.From != CoreNode && !ev.Forged:
		l.runtimeSent(ev)
	}
}

func (l *Ledger) runtimeReceived(ev WireEvent) {
	s := &l.wsRuntime
	c := connKey(ev.Conn)
	switch p := ev.Frame.Payload.(type) {
	case wire.ExecutionPrepare:
		if s.preps[pairKey(c, ev.Frame.ID)] == nil {
			cfg := p.Configuration
			pr := &rtPrep{device: ev.To, kind: cfg.AgentKind, readOnly: cfg.WorkspaceReadOnly}
			if caps, ok := s.caps[pairKey(ev.To, cfg.AgentKind)]; ok {
				pr.declared = true
				pr.lacking = !caps.WorkspaceReadPreparation.IsSupported()
				pr.exportLacking = !caps.WorkspaceOutputExport.IsSupported()
			}
			if cfg.LocalEnvironment != nil {
				pr.env = cfg.LocalEnvironment.ID
			}
			made(&s.preps)[pairKey(c, ev.Frame.ID)] = pr
			if pr.env != "" && l.workspaceBusy(ev.To, pr.env) {
				made(&s.exclusion)[pairKey(c, ev.Frame.ID)] = pr.env
			}
			l.prepareDuringEnvPrep(c, ev.Frame.ID, pr.env)
		}
	case wire.RuntimePrepare:
		l.envPrepReceived(c, ev.Frame.ID, p)
	case wire.WorkspaceRead:
		l.readReceived(ev, c, p)
	case wire.WorkspaceExport:
		k := pairKey(c, ev.Frame.ID)
		if pr := s.byHandle[pairKey(c, p.Handle)]; p.Step == wire.StepBegin && pr != nil && s.exports[k] == nil {
			made(&s.exports)[k] = pr
			made(&s.exportEnvs)[k] = pr.env
		}
		if p.Step == wire.StepCancel {
			delete(s.busy, k)
		}
	case wire.WorkspaceWrite:
		if p.Step == wire.StepBegin {
			made(&s.writeEnvs)[pairKey(c, ev.Frame.ID)] = p.EnvironmentID
		}
		if p.Step == wire.StepBegin && l.environmentRunning(ev.To, p.EnvironmentID) {
			made(&s.begins)[pairKey(c, ev.Frame.ID)] = p.EnvironmentID
		}
	}
}

// readReceived notes what the answer to a read must respect.
func (l *Ledger) readReceived(ev WireEvent, c string, p wire.WorkspaceRead) {
	s := &l.wsRuntime
	k := pairKey(c, ev.Frame.ID)
	if ev.Frame.ID == "" || s.reads[k] != nil || p.Validate() != nil {
		return // uncorrelated, a duplicate of a pending read, or refused as invalid first
	}
	pr := s.byHandle[pairKey(c, p.Handle)]
	if p.RunID != "" {
		pr = s.byRun[pairKey(c, p.RunID)]
	}
	if pr == nil {
		return // an owner the wire does not name: resource_unavailable's business
	}
	r := &rtRead{owner: readOwnerKey(c, pr), declared: pr.declared, lacking: pr.lacking, foreignEnv: p.EnvironmentID != pr.env}
	r.afterUnkn = s.unknown[r.owner]
	made(&s.reads)[k] = r
}

// readOwnerKey names whose later reads an unknown read stops: a
// read-only profile (its handle) or an executor.
func readOwnerKey(conn string, pr *rtPrep) string {
	if pr.readOnly || pr.executor == "" {
		return "profile\x00" + conn + "\x00" + pr.handle
	}
	return "executor\x00" + pr.device + "\x00" + pr.executor
}

// environmentRunning: a Turn bound to env runs on device — the daemon
// said started and the Harness has not settled it.
func (l *Ledger) environmentRunning(device, env string) bool {
	return countIf(l.wsRuntime.byRun, func(pr *rtPrep) bool {
		t := l.harness.turns[pr.run]
		return pr.device == device && pr.env == env && pr.started && !pr.readOnly && (t == nil || t.settled == "")
	}) > 0
}

func (l *Ledger) runtimeSent(ev WireEvent) {
	s := &l.wsRuntime
	c := connKey(ev.Conn)
	k := pairKey(c, ev.Frame.ID)
	switch p := ev.Frame.Payload.(type) {
	case wire.Heartbeat:
		for _, kd := range p.SupportedAgentKinds {
			made(&s.caps)[pairKey(ev.From, kd.Kind)] = kd.Capabilities
		}
	case wire.PreparationStatus:
		if env, ok := s.exclusion[k]; ok {
			delete(s.exclusion, k)
			l.judgePrepareExcluded(ev, p, env, CheckWriteExclusion, MarkPrepareRefusedDuringWrite, "a write or export of it")
		}
		if env, ok := s.envPrep.judged[k]; ok {
			delete(s.envPrep.judged, k)
			l.judgePrepareExcluded(ev, p, env, CheckPrepareDuringEnvPrep, MarkPrepareRefusedDuringEnvPrep, "a runtime preparation of it")
		}
		pr := s.preps[k]
		if pr != nil && p.Handle != "" && pr.handle == "" {
			pr.handle, pr.executor = p.Handle, p.ExecutorID
			made(&s.byHandle)[pairKey(c, p.Handle)] = pr
		}
		if pr != nil && p.RunID != "" && pr.run == "" {
			pr.run = p.RunID
			made(&s.byRun)[pairKey(c, p.RunID)] = pr
		}
		if pr != nil && p.State == wire.StateStarted {
			pr.started = true
		}
	case wire.RuntimePrepareResult:
		l.envPrepResultSent(c, k, p)
	case wire.WorkspaceReadResult:
		if r := s.reads[k]; r != nil {
			delete(s.reads, k)
			l.judgeRead(ev, r, p)
		}
	case wire.WorkspaceExportResult:
		l.exportBusy(ev, k, p)
		if pr := s.exports[k]; pr != nil {
			delete(s.exports, k)
			l.judgeExportDeclaration(ev, pr, p)
		}
	case wire.WorkspaceWriteResult:
		l.writeBusy(ev, k, p)
		l.writeReceiptSent(ev, p)
		env, ok := s.begins[k]
		delete(s.begins, k)
		switch {
		case ok && p.Outcome == wire.OutcomeReady:
			l.violate(ev.At, CheckWriteExclusion, "%s accepted write %s (ready) for Environment %s while a Turn bound to it ran",
				ev.From, ev.Frame.ID, env)
		case ok && p.ErrorCode == wire.WriteResourceUnavail:
			l.reach(MarkWriteRefusedDuringRun)
		}
	}
}

// judgeRead holds a read's answer to the rules that applied at its
// arrival, most specific first (the daemon's own order).
func (l *Ledger) judgeRead(ev WireEvent, r *rtRead, p wire.WorkspaceReadResult) {
	answer := p.Outcome
	if p.ErrorCode != "" {
		answer += " " + p.ErrorCode
	}
	refusedWith := func(codes ...string) bool {
		return p.Outcome == wire.OutcomeRejected && slices.Contains(codes, p.ErrorCode)
	}
	switch {
	case r.lacking && refusedWith(wire.ReadUnsupported):
		l.reach(MarkReadUnsupportedRefused)
	case r.foreignEnv && refusedWith(wire.ReadInvalidRequest):
		l.reach(MarkReadForeignEnvRefused)
	case r.afterUnkn && refusedWith(wire.ReadResourceUnavail):
		l.reach(MarkReadBlockedAfterUnknown)
	}
	switch {
	case r.lacking && !refusedWith(wire.ReadUnsupported, wire.ReadResourceUnavail, wire.ReadCapacity):
		l.violate(ev.At, CheckReadUnsupported, "%s answered read %s of an owner whose kind serves no workspace %s, want rejected %s",
			ev.From, ev.Frame.ID, answer, wire.ReadUnsupported)
	case !r.lacking && r.foreignEnv && !refusedWith(wire.ReadInvalidRequest, wire.ReadResourceUnavail, wire.ReadCapacity):
		l.violate(ev.At, CheckReadEnvironment, "%s answered read %s naming another Environment than its owner's frozen one %s, want rejected %s",
			ev.From, ev.Frame.ID, answer, wire.ReadInvalidRequest)
	case !r.lacking && !r.foreignEnv && r.afterUnkn && !refusedWith(wire.ReadResourceUnavail, wire.ReadCapacity):
		l.violate(ev.At, CheckReadAfterUnknown, "%s answered read %s %s, though an earlier read of its owner was answered unknown",
			ev.From, ev.Frame.ID, answer)
	}
	if r.declared && !r.lacking && refusedWith(wire.ReadUnsupported) {
		l.violate(ev.At, CheckWorkspaceDeclaration, "%s refused read %s read_unsupported, though its owner's kind declares workspace_read_preparation",
			ev.From, ev.Frame.ID)
	}
	if p.Outcome == wire.OutcomeUnknown {
		made(&l.wsRuntime.unknown)[r.owner] = true
	}
}

// judgeExportDeclaration holds an export begin's first answer to its
// owner's declaration of workspace_output_export (workspace_declaration).
func (l *Ledger) judgeExportDeclaration(ev WireEvent, pr *rtPrep, p wire.WorkspaceExportResult) {
	unsupported := p.Outcome == wire.OutcomeRejected && p.ErrorCode == wire.ReadUnsupported
	switch {
	case !pr.declared:
	case pr.exportLacking && unsupported:
		l.reach(MarkExportUnsupportedRefused)
	case pr.exportLacking && (p.Outcome == wire.OutcomeChunk || p.Outcome == wire.OutcomeCompleted):
		l.violate(ev.At, CheckWorkspaceDeclaration, "%s answered export %s %s, though its owner's kind declares workspace_output_export unsupported",
			ev.From, ev.Frame.ID, p.Outcome)
	case !pr.exportLacking && unsupported:
		l.violate(ev.At, CheckWorkspaceDeclaration, "%s refused export %s read_unsupported, though its owner's kind declares workspace_output_export",
			ev.From, ev.Frame.ID)
	}
}

// coreExportSent: Core begins an export only on a connection whose
// declaration of the owner's kind, as Core last received it, supports
// workspace_output_export (workspace_declaration).
func (l *Ledger) coreExportSent(ev WireEvent, p wire.WorkspaceExport) {
	pr := l.wsRuntime.byHandle[pairKey(connKey(ev.Conn), p.Handle)]
	c := l.frames.conns[ev.Conn]
	if p.Step != wire.StepBegin || pr == nil || c == nil || c.opaque || !c.known {
		return
	}
	if k, ok := c.kinds[pr.kind]; ok && !k.Capabilities.WorkspaceOutputExport.IsSupported() {
		l.violate(ev.At, CheckWorkspaceDeclaration, "Core began export %s on %s, whose declaration of kind %q lacks workspace_output_export",
			ev.Frame.ID, c.device, pr.kind)
	}
}

// wsRuntimeNodeDown: a restarted daemon mints executor IDs afresh, so an
// executor blocked before is not one after.
func (l *Ledger) wsRuntimeNodeDown(node string) {
	deleteUnder(l.wsRuntime.unknown, "executor\x00"+node+"\x00")
}

// writeBusy: a write is in progress at its daemon from the ready it sent
// until its receipt or refusal.
func (l *Ledger) writeBusy(ev WireEvent, k string, p wire.WorkspaceWriteResult) {
	s := &l.wsRuntime
	switch env, ok := s.writeEnvs[k]; {
	case !ok:
	case p.Outcome == wire.OutcomeReady:
		made(&s.busy)[k] = pairKey(ev.From, env)
	case p.Outcome != wire.OutcomeReceived:
		delete(s.busy, k)
		delete(s.writeEnvs, k)
	}
}

// exportBusy: an export is in progress at its daemon from the first
// chunk it sent until it ended.
func (l *Ledger) exportBusy(ev WireEvent, k string, p wire.WorkspaceExportResult) {
	s := &l.wsRuntime
	switch env, ok := s.exportEnvs[k]; {
	case !ok || env == "":
	case p.Outcome == wire.OutcomeChunk:
		made(&s.busy)[k] = pairKey(ev.From, env)
	default:
		delete(s.busy, k)
		delete(s.exportEnvs, k)
	}
}

// workspaceBusy: a write or export of env is in progress at device.
func (l *Ledger) workspaceBusy(device, env string) bool {
	return countIf(l.wsRuntime.busy, func(v string) bool { return v == pairKey(device, env) }) > 0
}

// prepareValidationCodes are the refusals a daemon gives a prepare before
// it looks at the workspace (its configuration or declaration; a
// read-only profile's too).
var prepareValidationCodes = []string{wire.PrepInvalidConfiguration, wire.PrepUnsupportedPreparation, wire.PrepUnsupportedConfiguration,
	wire.PrepUnsupportedReadPreparation}
