package world

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// Seeded Environment work of the API client: Environment preparations
// (a file of seeded size, a digest that is sometimes wrong, a setup
// command that sometimes fails or outlasts Core's 195 s exchange) and
// suspension episodes (quiesce a device, then resume it, retrying with
// rollback until Core records the suspension resumed or refused). The
// client follows each preparation it started, reading it every
// envPollDelay until Core records it terminal, and is not finished before
// then: a setup that outlasts the exchange is seen to its unknown outcome
// and the Runtime's late result, not cut off by the shutdown. Draws come
// from their own stream, so the turn workload's draws are unchanged.

const (
	envRetryDelay    = 2 * time.Second
	envPollDelay     = 10 * time.Second
	envAttemptsMax   = 60
	simEnvironmentID = "6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
	simEnvSessionID  = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
)

type wEnvironment struct {
	r        *rand.Rand
	quiesces int // quiesce calls issued (suspend IDs are sus-<n>)
	resuming map[string]bool
	again    map[string]bool // resumed suspensions resumed once more
	againR   *rand.Rand      // second quiesces (quiesceAgain), a stream of its own
	// following counts preparations the client waits for: from its first
	// call until Core records it terminal or the calls give up.
	following int
}

func (wl *workload) planEnvironment(now time.Time) {
	if len(wl.u.devices) == 0 {
		return
	}
	e := &wEnvironment{r: wl.u.w.Rand("workload:environment"), resuming: map[string]bool{}, again: map[string]bool{}}
	wl.env = e
	if e.r.IntN(3) != 0 {
		at := time.Duration(200+e.r.IntN(15000)) * time.Millisecond
		e.following++
		wl.after(now, at, func(now time.Time) { wl.prepareEnvironment(now, wl.envDevice(), wl.envSteps(), 0) })
	}
	if e.r.IntN(3) != 0 {
		at := time.Duration(500+e.r.IntN(20000)) * time.Millisecond
		wl.after(now, at, func(now time.Time) { wl.quiesce(now, wl.envDevice(), 0) })
	}
}

func (wl *workload) envDevice() string {
	return string(wl.u.devices[wl.env.r.IntN(len(wl.u.devices))].ID)
}

// envSteps draws a file (one to four chunks, sometimes empty; one in six
// declares a wrong digest) and a setup command.
func (wl *workload) envSteps() []core.PrepareStep {
	r := wl.env.r
	size := 0
	if r.IntN(6) != 0 {
		size = 1 + r.IntN(4*wire.ChunkBytesMax)
	}
	body := make([]byte, size)
	for i := range body {
		body[i] = byte(r.IntN(256))
	}
	sum := sha256.Sum256(body)
	digest := hex.EncodeToString(sum[:])
	if r.IntN(6) == 0 {
		sum[0] ^= 0xff
		digest = hex.EncodeToString(sum[:])
	}
	file := core.PrepareStep{Header: wire.RuntimePrepare{Action: wire.PrepareActionFile,
		File: &wire.PrepareFile{Path: "/workspace/sim/input.bin"}, SizeBytes: int64(size), SHA256: digest}, Body: body}
	command := "make setup"
	switch r.IntN(8) {
	case 0:
		command = "exit " + strconv.Itoa(1+r.IntN(255))
	case 1:
		command = "sleep 200" // outlasts Core's 195 s exchange
	}
	setup := core.PrepareStep{Header: wire.RuntimePrepare{Action: wire.PrepareActionInitialize,
		Initialization: &wire.Initialization{Action: "setup", Command: command, Network: "disabled"}}}
	return []core.PrepareStep{file, setup}
}

func (wl *workload) prepareEnvironment(now time.Time, device string, steps []core.PrepareStep, attempt int) {
	if attempt >= envAttemptsMax {
		wl.env.following--
		return
	}
	retry := func(now time.Time) {
		wl.after(now, envRetryDelay, func(now time.Time) { wl.prepareEnvironment(now, device, steps, attempt+1) })
	}
	ev := core.PrepareEnvironment{Device: device, EnvironmentID: simEnvironmentID, SessionID: simEnvSessionID, Steps: steps}
	wl.call(now, ev, func(now time.Time, r core.APIResult) {
		switch {
		case errors.Is(r.Err, core.ErrDeviceNotConnected), errors.Is(r.Err, core.ErrTransferBusy), errors.Is(r.Err, core.ErrDeviceFenced):
			retry(now)
		case r.Err != nil:
			panic(fmt.Sprintf("world: Core refused a drawn Environment preparation: %v", r.Err))
		default:
			wl.followPreparation(now, r.Value.(core.PreparationStarted).Preparation)
		}
	}, retry)
}

// followPreparation reads preparation id every envPollDelay until Core
// records it terminal. Core's exchange bound, a lost connection and a
// restart each end a running preparation, so the reads end; one that never
// does keeps the workload unfinished, which the liveness check reports.
func (wl *workload) followPreparation(now time.Time, id string) {
	wl.after(now, envPollDelay, func(now time.Time) {
		wl.call(now, core.ReadPreparation{ID: id}, func(now time.Time, r core.APIResult) {
			if r.Err != nil {
				panic(fmt.Sprintf("world: Core cannot read preparation %s it started: %v", id, r.Err))
			}
			if r.Value.(*core.EnvironmentPreparationRecord).State.Terminal() {
				wl.env.following--
				return
			}
			wl.followPreparation(now, id)
		}, func(now time.Time) { wl.followPreparation(now, id) })
	})
}

func (wl *workload) quiesce(now time.Time, device string, attempt int) {
	if attempt >= envAttemptsMax {
		return
	}
	e := wl.env
	e.quiesces++
	env := "env-" + device
	retry := func(now time.Time) {
		wl.after(now, envRetryDelay, func(now time.Time) { wl.quiesce(now, device, attempt+1) })
	}
	wl.u.led.QuiesceCalled(device)
	wl.call(now, core.QuiesceEnvironment{Device: device, EnvironmentID: env}, func(now time.Time, r core.APIResult) {
		if r.Err != nil {
			retry(now)
			return
		}
		hold := time.Duration(1000+e.r.IntN(9000)) * time.Millisecond
		wl.after(now, hold, func(now time.Time) { wl.resume(now, r.Value.(core.SuspendRef).Suspend, false, 0) })
		wl.quiesceAgain(now, device)
	}, func(now time.Time) {
		// Core may have minted the suspension: resume every candidate.
		for i := 1; i <= e.quiesces; i++ {
			wl.resume(now, "sus-"+strconv.Itoa(i), true, 0)
		}
	})
}

// resume resumes suspend until Core records it resumed or refused (or
// never knew it), retrying with rollback after an unknown or refused
// attempt.
func (wl *workload) resume(now time.Time, suspend string, rollback bool, attempt int) {
	e := wl.env
	if attempt == 0 {
		if e.resuming[suspend] {
			return
		}
		e.resuming[suspend] = true
	}
	if attempt >= envAttemptsMax {
		return
	}
	again := func(now time.Time) {
		wl.after(now, envRetryDelay, func(now time.Time) { wl.resumeCheck(now, suspend, attempt+1) })
	}
	wl.call(now, core.ResumeEnvironment{SuspendID: suspend, Rollback: rollback}, func(now time.Time, r core.APIResult) {
		switch {
		case errors.Is(r.Err, core.ErrUnknownSuspension), errors.Is(r.Err, core.ErrSuspensionTerminal):
			return
		default:
			again(now)
		}
	}, again)
}

// resumeCheck reads the suspension and resumes it again while it is not
// resolved.
func (wl *workload) resumeCheck(now time.Time, suspend string, attempt int) {
	wl.call(now, core.ReadSuspension{SuspendID: suspend}, func(now time.Time, r core.APIResult) {
		v, _ := r.Value.(*core.SuspensionRecord)
		switch {
		case v == nil:
			return // unknown to Core
		case v.State == core.SuspensionResumed:
			wl.resumeAgain(now, suspend)
			return
		case v.State.Terminal():
			return
		case v.State == core.SuspensionQuiescing || v.State == core.SuspensionResuming:
			wl.after(now, envRetryDelay, func(now time.Time) { wl.resumeCheck(now, suspend, attempt+1) })
		case v.State == core.SuspensionQuiesceUnknown || v.State == core.SuspensionResumeUnknown:
			wl.resume(now, suspend, wl.explicitRollback(), attempt)
		default:
			wl.resume(now, suspend, true, attempt)
		}
	}, func(now time.Time) {
		wl.after(now, envRetryDelay, func(now time.Time) { wl.resumeCheck(now, suspend, attempt+1) })
	})
}

// resumeAgain: an operator repeating the resume of a suspension Core
// recorded resumed (a retry after a lost API reply), in a third of them,
// once. Core must refuse it (ErrSuspensionTerminal) and send nothing: a
// resume on the wire would be a double resume.
func (wl *workload) resumeAgain(now time.Time, suspend string) {
	e := wl.env
	if e.again[suspend] || e.r.IntN(3) != 0 {
		return
	}
	e.again[suspend] = true
	wl.call(now, core.ResumeEnvironment{SuspendID: suspend}, func(time.Time, core.APIResult) {}, func(time.Time) {})
}

// environmentCall stamps the Core call ID on an Environment API event,
// or returns nil for any other event.
func environmentCall(ev core.Event, call core.CallID) core.Event {
	switch x := ev.(type) {
	case core.PrepareEnvironment:
		x.Call = call
		return x
	case core.QuiesceEnvironment:
		x.Call = call
		return x
	case core.ResumeEnvironment:
		x.Call = call
		return x
	case core.ReadSuspension:
		x.Call = call
		return x
	case core.ReadPreparation:
		x.Call = call
		return x
	}
	return nil
}

// quiesceAgain: in a third of the suspensions an operator quiesces the
// same Environment again while the first suspension is unresolved. Core
// must refuse it (ErrSuspensionConflict: one unresolved suspension per
// Environment) and send nothing; one it opened anyway is resumed.
func (wl *workload) quiesceAgain(now time.Time, device string) {
	e := wl.env
	if e.againRand(wl.u).IntN(3) != 0 {
		return
	}
	wl.call(now, core.QuiesceEnvironment{Device: device, EnvironmentID: "env-" + device}, func(now time.Time, r core.APIResult) {
		switch {
		case errors.Is(r.Err, core.ErrSuspensionConflict):
			wl.u.led.SuspensionConflictRefused()
		case r.Err == nil:
			wl.after(now, envRetryDelay, func(now time.Time) { wl.resume(now, r.Value.(core.SuspendRef).Suspend, false, 0) })
		}
	}, func(time.Time) {})
}

// prepareAgain: the operator prepares device again (a setup step) right
// after Core recorded a transfer there unknown.
func (wl *workload) prepareAgain(now time.Time, device string) {
	setup := core.PrepareStep{Header: wire.RuntimePrepare{Action: wire.PrepareActionInitialize,
		Initialization: &wire.Initialization{Action: "setup", Command: "make setup", Network: "disabled"}}}
	wl.prepareEnvironment(now, device, []core.PrepareStep{setup}, 0)
}

// explicitRollback: whether the operator passes rollback on a resume
// after an attempt whose outcome is unknown. In half of them it does not, and
// Core must add it itself (a quiesce or resume outcome unknown implies
// rollback, wire reference §3.12).
func (wl *workload) explicitRollback() bool {
	return wl.env.againRand(wl.u).IntN(2) == 0
}

// againRand is the stream of the operator's repeated and rollback-free
// calls (its own, so the episode draws keep theirs).
func (e *wEnvironment) againRand(u *universe) *rand.Rand {
	if e.againR == nil {
		e.againR = u.w.Rand("workload:environment-again")
	}
	return e.againR
}
