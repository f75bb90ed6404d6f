package world

import (
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// The preparation flood: in some seeds with faults and a single device,
// floodSessions extra Sessions each submit one Turn in a burst while the
// device→Core direction of the connection stalls (for less than the
// daemon's 5 s receipt send budget), so every preparation Core opens there
// gets no status until the stall ends and stays open: Core reaches its
// limit of 64 open preparations on one connection and must hold the
// remaining Turns queued (the preparations_per_connection oracle). Drawn
// from its own stream, so every other stream keeps its draws.
const (
	floodSessions = 70
	floodAt       = 4 * time.Second // the burst, after the device's first connection
	floodStall    = 4 * time.Second
	floodTurnWait = 12 * time.Second // liveness added per flood Turn
)

// drawPreparationFlood decides the seed's flood once the devices are
// known (Setup).
func (u *universe) drawPreparationFlood() {
	r := u.w.Rand("preparation-flood")
	if r.IntN(5) != 0 || len(u.devices) != 1 || u.faultFree() {
		return
	}
	u.proj.flood = true
	turns := u.shape.turns(u.w.Workload()) + floodSessions
	u.w.AtLeastLiveness(LivenessTimeout(turns) + u.shape.livenessExtra(turns) + floodTurnWait*floodSessions)
}

// planFlood adds the flood's Sessions and Turns to the plan.
func (wl *workload) planFlood(now time.Time) {
	if !wl.u.proj.flood {
		return
	}
	wl.total += floodSessions
	for i := range floodSessions {
		s := &wSession{agent: core.AgentConfig{Kind: agentKind, Model: "sim-flood", SystemPrompt: "be brief",
			Environment: core.EnvNone}}
		wl.sessions = append(wl.sessions, s)
		wl.createSession(now, s)
		t := &wTurn{sess: s, input: wire.TextInput("flood " + strconv.Itoa(i))}
		wl.turns = append(wl.turns, t)
		at := floodAt + time.Duration(i%10)*30*time.Millisecond
		wl.arrivals = append(wl.arrivals, at)
		wl.after(now, at, func(now time.Time) { wl.submit(now, t) })
	}
	wl.after(now, floodAt-50*time.Millisecond, func(time.Time) { wl.u.stallDeviceToCore(floodStall) })
}

// stallDeviceToCore stalls the device→Core direction of every open
// Core–device connection for d.
func (u *universe) stallDeviceToCore(d time.Duration) {
	for _, c := range u.w.OpenConns() {
		for _, dev := range u.devices {
			if (c.Dialer == dev.ID && c.Acceptor == coreID) || (c.Acceptor == dev.ID && c.Dialer == coreID) {
				u.w.Stall(c.ID, dev.ID, d)
			}
		}
	}
}
