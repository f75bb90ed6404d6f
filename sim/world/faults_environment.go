package world

import (
	"fmt"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// Core-side faults of suspension fencing and runtime_prepare: each arms
// Core's next matching frame, and a forged frame is put on its connection
// just ahead of it (as a stale request of an earlier Core incarnation, or
// a peer racing Core, would arrive).
//
//   - fence_stray_resume: ahead of Core's next environment_resume, a
//     resume of the same Environment naming another suspension. A fenced
//     Runtime must refuse it (not_suspended) and stay fenced.
//   - fence_work_races_resume: ahead of Core's next environment_resume
//     without rollback, a runtime_prepare begin and commit of a setup
//     step, and a workspace_write begin and commit (no body). The
//     quiesced Runtime must refuse both begins (resource_unavailable):
//     new work may not race the resume.
//   - transfer_early_commit: ahead of Core's next runtime_prepare chunk,
//     a commit of the same transfer. The Runtime must refuse it
//     (invalid_request) before anything reaches its installer.
var (
	kStrayResume     = kind{kind: "fence_stray_resume"}
	kWorkRacesResume = kind{kind: "fence_work_races_resume"}
	kEarlyCommit     = kind{kind: "transfer_early_commit"}
)

// environmentArmedMax bounds the armed faults of each kind.
const environmentArmedMax = 3

type environmentFaults struct {
	armed  map[sim.FaultKind]int
	forged int // forged frames so far, for their IDs
}

func environmentWorldKinds() []sim.FaultKind {
	return []sim.FaultKind{kStrayResume.kind, kWorkRacesResume.kind, kEarlyCommit.kind}
}

func (u *universe) registerEnvironmentFaults() {
	for _, k := range environmentWorldKinds() {
		u.w.RegisterFault(sim.FaultSpec{Kind: k, Targets: []sim.NodeID{coreID}}, func(w *sim.Kernel, f sim.Fault) {
			e := &u.envFaults
			if e.armed == nil {
				e.armed = map[sim.FaultKind]int{}
			}
			if e.armed[k] >= environmentArmedMax {
				u.noVictim(f, "ignored: already armed")
				return
			}
			e.armed[k]++
			u.detail(fmt.Sprintf("armed=%d", e.armed[k]))
		})
	}
}

func (e *environmentFaults) take(k sim.FaultKind) bool {
	if e.armed[k] == 0 {
		return false
	}
	e.armed[k]--
	return true
}

// forgeAheadOfEnvironment puts the armed forged frames ahead of a frame
// Core is about to send.
func (u *universe) forgeAheadOfEnvironment(e core.Send) {
	u.probeEnvironment(e)
	ef := &u.envFaults
	if len(ef.armed) == 0 {
		return
	}
	conn := sim.ConnID(e.Conn)
	switch p := e.Frame.Payload.(type) {
	case wire.EnvironmentResume:
		if ef.take(kStrayResume.kind) {
			id := ef.nextID("stray")
			u.w.Forge(conn, coreID, encodeFrame(id, wire.EnvironmentResume{EnvironmentID: p.EnvironmentID, SuspendID: id}))
		}
		if !p.Rollback && ef.take(kWorkRacesResume.kind) {
			id := ef.nextID("race")
			begin := wire.RuntimePrepare{Step: wire.StepBegin, EnvironmentID: simEnvironmentID, SessionID: simEnvSessionID,
				Action:         wire.PrepareActionInitialize,
				Initialization: &wire.Initialization{Action: "setup", Command: "true", Network: "disabled"}}
			u.w.Forge(conn, coreID, encodeFrame(id, begin))
			u.w.Forge(conn, coreID, encodeFrame(id, wire.RuntimePrepare{Step: wire.StepCommit}))
			// and a workspace write of the Environment: the quiesced
			// Runtime must refuse its begin the same way (its commit,
			// without the body, never installs anything: a Runtime that
			// is not fenced drops the incomplete transfer)
			body := []byte("raced")
			wid := ef.nextID("race-write")
			u.w.Forge(conn, coreID, encodeFrame(wid, wire.WorkspaceWrite{Step: wire.StepBegin,
				EnvironmentID: simEnvironmentID, SessionID: simEnvSessionID, Path: "raced.txt",
				SizeBytes: int64(len(body)), SHA256: wire.SHA256Hex(body)}))
			u.w.Forge(conn, coreID, encodeFrame(wid, wire.WorkspaceWrite{Step: wire.StepCommit}))
		}
	case wire.RuntimePrepare:
		if p.Step == wire.StepChunk && ef.take(kEarlyCommit.kind) {
			u.w.Forge(conn, coreID, encodeFrame(e.Frame.ID, wire.RuntimePrepare{Step: wire.StepCommit}))
		}
	}
}

func (e *environmentFaults) nextID(what string) string {
	e.forged++
	return check.HostileIDPrefix + what + "-" + strconv.Itoa(e.forged)
}
