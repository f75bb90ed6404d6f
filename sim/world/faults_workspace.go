package world

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
	"github.com/turnstile-sim/turnstile/wire"
)

// Workspace fault kinds of the world: requests that race a Turn of the
// Environment they name, which the Runtime must refuse by the seed's
// rules (工作区操作) without touching the Turn.
//
//   - workspace_write_race: while a Turn bound to an Environment runs, a
//     write of its Session through Core's API (Core refuses it: the
//     Session is busy) and a write begin for that Environment forged on
//     the daemon's connection as from Core (the daemon excludes execution
//     while a write is received or applied, so it refuses the begin).
//   - workspace_read_forged: reads forged as from Core against a running
//     Run: one naming another Environment than the Run's frozen one
//     (refused invalid_request, or read_unsupported where the Run's kind
//     serves no workspace), and one made ambiguous (the device's Harness
//     is armed to interrupt it, or to answer it outside its bounds) followed, once it was answered unknown, by
//     another of the same owner (refused resource_unavailable).
//
// Each polls for a running Turn over its window. The workspace_runtime
// checks judge the daemon's answers from the wire; the forged frames
// carry hostile IDs, so their answers reach Core as foreign and are
// ignored.
var (
	kWriteRace  = kind{kind: "workspace_write_race", min: 2 * time.Second, max: 40 * time.Second}
	kReadForged = kind{kind: "workspace_read_forged", min: 2 * time.Second, max: 40 * time.Second}
)

// wsFaultPoll is how often a workspace fault looks for a running Turn.
const wsFaultPoll = 250 * time.Millisecond

func workspaceWorldKinds() []sim.FaultKind { return []sim.FaultKind{kWriteRace.kind, kReadForged.kind} }

func (u *universe) registerWorkspaceFaults() {
	for _, k := range []kind{kWriteRace, kReadForged} {
		k := k
		u.w.RegisterFault(sim.FaultSpec{Kind: k.kind, ForMin: k.min, ForMax: k.max}, func(w *sim.Kernel, f sim.Fault) {
			until := w.Now().Add(f.For)
			r := hostileRand(f)
			var poll func()
			poll = func() {
				if u.workspaceFault(k, r) {
					return
				}
				if w.Now().Add(wsFaultPoll).Before(until) {
					w.After(wsFaultPoll, "", poll)
					return
				}
				u.detail("no running Turn with a workspace")
			}
			poll()
		})
	}
}

// wsRun is a Run the world saw started on a Core–daemon connection.
type wsRun struct {
	conn          sim.ConnID
	device        sim.NodeID
	req, run, env string // env: "" for a Session without an Environment
	session, kind string
}

// wsFaultState is what the workspace faults read from the wire: Core's
// preparations, the Runs started and not yet ended, and the answers to
// the forged reads.
type wsFaultState struct {
	preps   map[string]wire.ExecutionPrepare // conn/request
	running []wsRun
	reads   map[string]wire.WorkspaceReadResult // conn/operation of forged reads
	// lacking: device/kind pairs whose heartbeat declares
	// workspace_read_preparation unsupported
	lacking map[string]bool
	// Core's write begins (conn/mutation → Environment), and the prepares
	// still to forge into a write in progress (prepareRaces)
	writeEnvs map[string]string
	prepRaces seedBudget
	// Core's write begins' sizes (conn/mutation), and the receipts still
	// to forge (forgeSizeReceipt)
	writeSizes map[string]int64
	sizeLies   seedBudget
	// Core's export begins (conn/export), and the stale nexts still to
	// forge (forgeStaleNext)
	exportIDs  map[string]bool
	staleNexts seedBudget
	// read-only profiles: Core's prepares (conn/request → Environment),
	// the handles made ready (conn/handle → Environment), and the reads
	// still to forge behind a release (forgeReleasingRead)
	roPreps     map[string]string
	roHandles   map[string]string
	releaseRead seedBudget
}

// seedBudget is how many of one forgery a seed makes: most in one seed in
// oneIn, none in the others, drawn from the forgery's own stream (so
// other streams keep their draws) the first time it is asked.
type seedBudget struct {
	left  int
	drawn bool
}

// has draws the budget if not yet drawn and reports whether any is left.
func (b *seedBudget) has(u *universe, stream string, oneIn, most int) bool {
	if !b.drawn {
		b.drawn = true
		if u.w.Rand(stream).IntN(oneIn) == 0 {
			b.left = most
		}
	}
	return b.left > 0
}

// releaseReadsMax bounds the reads forged behind a release in one seed.
const releaseReadsMax = 3

// forgeReleasingRead: in half the seeds (drawn from its own stream),
// right behind Core's release of a read-only profile, a read through it
// is forged as from Core. It reaches the daemon after the release, whose
// close is under way: the daemon must refuse it resource_unavailable and
// read nothing.
func (u *universe) forgeReleasingRead(conn sim.ConnID, handle, env string) {
	s := &u.wsFaults
	if !s.releaseRead.has(u, "workspace-read-releasing", 2, releaseReadsMax) {
		return
	}
	s.releaseRead.left--
	u.w.After(time.Millisecond, "", func() { // behind the release on the connection
		if _, open := u.w.OpenConn(conn); !open {
			return
		}
		id := u.hostile.mint("rr")
		u.forge(conn, coreID, encodeFrame(id, wire.WorkspaceRead{Handle: handle, EnvironmentID: env, Path: harness.WorkspaceFiles[0], MaxBytes: 64}),
			&check.HostileProbe{Action: check.HostileReadReleasing, ReplyID: id})
	})
}

// staleNextsMax bounds the stale nexts forged in one seed.
const staleNextsMax = 2

// forgeStaleNext: in a third of the seeds (drawn from its own stream),
// right behind a chunk a daemon sends for one of Core's exports, a next
// carrying that chunk's own offset (not the bytes sent so far) is forged
// as from Core. It reaches the daemon before Core's own next; the pull is
// ordered, so the daemon must refuse it invalid_request
// (workspace_export_order), and Core answers the export unavailable.
func (u *universe) forgeStaleNext(conn sim.ConnID, id string, offset int64) {
	s := &u.wsFaults
	if !s.staleNexts.has(u, "workspace-export-stale", 3, staleNextsMax) || !s.exportIDs[statusKey(conn, id)] {
		return
	}
	s.staleNexts.left--
	u.detail("forging a stale next for export " + id)
	u.forge(conn, coreID, encodeFrame(id, wire.WorkspaceExport{Step: wire.StepNext, Offset: offset}), nil)
}

// sizeLiesMax bounds the receipts forged with a wrong size in one seed.
const sizeLiesMax = 2

// forgeSizeReceipt: in a third of the seeds (drawn from its own stream),
// right behind one of Core's write commits, a completed receipt whose
// size_bytes is not the begin's is forged from the daemon. It reaches
// Core before the installer's receipt; the shared validator refuses it
// (completed needs size_bytes = the total), so Core leaves the write
// unknown until the exact receipt arrives (workspace_write_settlement
// counts only receipts the daemon sent).
func (u *universe) forgeSizeReceipt(conn sim.ConnID, id string) {
	s := &u.wsFaults
	lies := s.sizeLies.has(u, "workspace-receipt-size", 3, sizeLiesMax)
	size, ok := s.writeSizes[statusKey(conn, id)]
	dev := u.peerOf(conn, coreID)
	if !ok || !lies || dev == "" {
		return
	}
	s.sizeLies.left--
	u.detail("forging a completed receipt with size_bytes " + strconv.FormatInt(size+1, 10) + " for write " + id)
	frame := encodeFrame(id, wire.WorkspaceWriteResult{Outcome: wire.OutcomeCompleted, SizeBytes: size + 1})
	u.w.After(time.Millisecond, "", func() {
		if _, open := u.w.OpenConn(conn); open {
			u.forge(conn, dev, frame, nil)
		}
	})
}

// prepareRacesMax bounds the prepares forged into writes in progress in
// one seed.
const prepareRacesMax = 3

// raceWritePrepare: in half the seeds (drawn from its own stream, so
// other streams keep their draws), right after a daemon answered one of
// Core's write begins ready, an execution_prepare bound to the write's
// Environment (a copy of one of Core's prepares for it, under a hostile
// request ID) is forged on that connection as from Core. The daemon
// excludes execution while it receives or applies a write, so it must
// refuse it resource_unavailable before any native call
// (workspace_write_exclusion judges the answer).
func (u *universe) raceWritePrepare(conn sim.ConnID, id string) {
	s := &u.wsFaults
	races := s.prepRaces.has(u, "workspace-prepare-race", 2, prepareRacesMax)
	env, ok := s.writeEnvs[statusKey(conn, id)]
	if !ok || !races {
		return
	}
	var cfg *wire.ExecutionPrepare
	for _, k := range slices.Sorted(maps.Keys(s.preps)) {
		if p := s.preps[k]; p.Configuration.LocalEnvironment != nil && p.Configuration.LocalEnvironment.ID == env {
			cfg = &p
			break
		}
	}
	if cfg == nil {
		return
	}
	s.prepRaces.left--
	frame := encodeFrame(u.hostile.mint("p"), *cfg)
	u.detail("forging a prepare into write " + id + " on " + connName(conn))
	u.w.After(time.Millisecond, "", func() {
		if _, open := u.w.OpenConn(conn); open {
			u.forge(conn, coreID, frame, nil)
		}
	})
}

// watchWorkspace follows one frame for the workspace faults.
func (u *universe) watchWorkspace(conn sim.ConnID, from sim.NodeID, f wire.Frame) {
	s := &u.wsFaults
	if s.preps == nil {
		s.preps, s.reads = map[string]wire.ExecutionPrepare{}, map[string]wire.WorkspaceReadResult{}
		s.lacking = map[string]bool{}
	}
	k := statusKey(conn, f.ID)
	switch p := f.Payload.(type) {
	case wire.Heartbeat:
		for _, kd := range p.SupportedAgentKinds {
			s.lacking[string(from)+"/"+kd.Kind] = !kd.Capabilities.WorkspaceReadPreparation.IsSupported()
		}
	case wire.ExecutionPrepare:
		if from == coreID && !p.Configuration.WorkspaceReadOnly {
			s.preps[k] = p
		}
		if from == coreID && p.Configuration.WorkspaceReadOnly && p.Configuration.LocalEnvironment != nil {
			if s.roPreps == nil {
				s.roPreps = map[string]string{}
			}
			s.roPreps[k] = p.Configuration.LocalEnvironment.ID
		}
	case wire.ExecutionRelease:
		if env, ok := s.roHandles[statusKey(conn, p.Handle)]; ok && from == coreID {
			u.forgeReleasingRead(conn, p.Handle, env)
		}
	case wire.PreparationStatus:
		if env, ok := s.roPreps[k]; ok && from != coreID && p.State == wire.StateReady && p.Handle != "" {
			if s.roHandles == nil {
				s.roHandles = map[string]string{}
			}
			s.roHandles[statusKey(conn, p.Handle)] = env
		}
		pr, ok := s.preps[k]
		if from != coreID && ok && p.State == wire.StateStarted && p.RunID != "" {
			x := wsRun{conn: conn, device: from, req: f.ID, run: p.RunID, session: pr.SessionID, kind: pr.Configuration.AgentKind}
			if pr.Configuration.LocalEnvironment != nil {
				x.env = pr.Configuration.LocalEnvironment.ID
			}
			s.running = append(s.running, x)
		}
	case wire.Done, wire.RunError:
		s.running = dropRun(s.running, conn, f.ID)
	case wire.WorkspaceReadResult:
		s.reads[k] = p
	case wire.WorkspaceWrite:
		if from == coreID && p.Step == wire.StepBegin {
			if s.writeEnvs == nil {
				s.writeEnvs = map[string]string{}
			}
			s.writeEnvs[k] = p.EnvironmentID
			if s.writeSizes == nil {
				s.writeSizes = map[string]int64{}
			}
			s.writeSizes[k] = p.SizeBytes
		}
		if from == coreID && p.Step == wire.StepCommit {
			u.forgeSizeReceipt(conn, f.ID)
		}
	case wire.WorkspaceExport:
		if from == coreID && p.Step == wire.StepBegin {
			if s.exportIDs == nil {
				s.exportIDs = map[string]bool{}
			}
			s.exportIDs[k] = true
		}
	case wire.WorkspaceExportResult:
		if from != coreID && p.Outcome == wire.OutcomeChunk {
			u.forgeStaleNext(conn, f.ID, p.Offset)
		}
	case wire.WorkspaceWriteResult:
		if from != coreID && p.Outcome == wire.OutcomeReady {
			u.raceWritePrepare(conn, f.ID)
		}
	}
}

func dropRun(rs []wsRun, conn sim.ConnID, run string) []wsRun {
	out := rs[:0]
	for _, r := range rs {
		if r.conn != conn || r.run != run {
			out = append(out, r)
		}
	}
	return out
}

// runningTurn picks a Run still running on an open connection, bound to
// an Environment for a write race; for forged reads preferably one whose
// kind serves no workspace (the rarer rule).
func (u *universe) runningTurn(k kind, r *rand.Rand) (wsRun, bool) {
	var live, lacking []wsRun
	for _, x := range u.wsFaults.running {
		if k == kWriteRace && x.env == "" {
			continue
		}
		if _, open := u.w.OpenConn(x.conn); open {
			live = append(live, x)
			if u.wsFaults.lacking[string(x.device)+"/"+x.kind] {
				lacking = append(lacking, x)
			}
		}
	}
	if k == kReadForged && len(lacking) > 0 {
		live = lacking
	}
	if len(live) == 0 {
		return wsRun{}, false
	}
	return live[r.IntN(len(live))], true
}

// workspaceFault acts once a Turn with a workspace runs; false to poll on.
func (u *universe) workspaceFault(k kind, r *rand.Rand) bool {
	x, ok := u.runningTurn(k, r)
	if !ok {
		return false
	}
	u.detail("racing run " + x.run + " on " + connName(x.conn))
	switch k {
	case kWriteRace:
		u.raceWrite(x)
	case kReadForged:
		u.forgeReads(x)
	}
	return true
}

// raceWrite writes through Core's API into the Session of running Run x,
// and forges a begin for its Environment on x's connection.
func (u *universe) raceWrite(x wsRun) {
	for _, s := range u.wl.sessions {
		if s.id == x.session {
			u.wl.now(func(now time.Time) { u.wl.workspaceWrite(now, s, harness.WorkspaceFiles[0], "race-"+x.run) })
		}
	}
	h := &u.hostile
	data := []byte("raced")
	u.forge(x.conn, coreID, encodeFrame(h.mint("w"), wire.WorkspaceWrite{Step: wire.StepBegin,
		EnvironmentID: x.env, SessionID: hostileUUID(h), Path: "raced.txt",
		SizeBytes: int64(len(data)), SHA256: wire.SHA256Hex(data)}), nil)
}

// forgeReads reads Run x with a foreign Environment, then with its own
// under an armed interruption and, once that one was answered unknown,
// once more; and, behind the interrupted read, a read of two bytes
// followed by a request for 64 under the same ID while it is pending.
func (u *universe) forgeReads(x wsRun) {
	h := &u.hostile
	read := func(env string) string {
		id := h.mint("r")
		u.forge(x.conn, coreID, encodeFrame(id, wire.WorkspaceRead{RunID: x.run, EnvironmentID: env,
			Path: harness.WorkspaceFiles[0], MaxBytes: 64}), nil)
		return id
	}
	read(hostileUUID(h))
	if x.env == "" {
		return // no Environment to read with its own identity
	}
	// the ambiguous read: interrupted, or (drawn from its own stream, so
	// other streams keep their draws) answered by the native reader
	// outside its bounds, which the daemon must answer unknown too
	ambiguous := harness.ReadInterrupted
	if u.w.Rand("workspace-read-bounds").IntN(2) == 0 {
		ambiguous = harness.ReadOutOfBounds
	}
	if d := u.deviceByID(x.device); d != nil {
		d.Arm(ambiguous)
	}
	first := read(x.env)
	// a read of two bytes, then another request under its ID asking 64:
	// the pending read answers the ID, within its own two bytes
	short := h.mint("r")
	for _, max := range []int{2, 64} {
		u.forge(x.conn, coreID, encodeFrame(short, wire.WorkspaceRead{RunID: x.run, EnvironmentID: x.env,
			Path: harness.WorkspaceFiles[0], MaxBytes: max}), nil)
	}
	since := u.w.Now()
	var poll func()
	poll = func() {
		res, ok := u.wsFaults.reads[statusKey(x.conn, first)]
		switch {
		case ok && res.Outcome == wire.OutcomeUnknown:
			u.detail("forged read " + first + " unknown: reading its owner again")
			read(x.env)
		case !ok && u.w.Now().Sub(since) < 30*time.Second:
			u.w.After(wsFaultPoll, "", poll)
		}
	}
	u.w.After(wsFaultPoll, "", poll)
}

// now runs fn in the workload's next step at the current instant (its
// calls leave from the workload node, as its own do).
func (wl *workload) now(fn func(now time.Time)) {
	wl.seq++
	id := sim.TimerID("w/" + strconv.Itoa(int(wl.seq)))
	wl.actions[id] = fn
	wl.u.w.Inject(workloadID, sim.TimerFired{Timer: id})
}
