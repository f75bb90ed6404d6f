package world

import (
	"bytes"
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// capabilityProfile is the seed's draw of the capability situations the
// default device declarations never make, from its own random stream (so
// every other stream keeps its draws):
//
//   - devices other than the first sometimes declare the synthetic kind
//     without tool_observations (which every Turn requires) or without
//     native_session_recovery (which a Session needs once it started a
//     Turn without learning a native session): Core must pick another
//     device for them;
//   - in a third of the seeds, up to three times, a device's kind goes
//     unavailable right behind a `preparing` status it sends, for 1–5 s:
//     the heartbeat that says so reaches Core before the preparation's
//     `ready`, so Core's final check must refuse the start.
type capabilityProfile struct {
	r       *rand.Rand
	flapsAt int // flaps left to make behind a preparing status
}

const capabilityFlapsMax = 3

func (u *universe) drawCapabilityProfile() {
	r := u.w.Rand("capability-profile")
	u.proj.capProfile = &capabilityProfile{r: r}
	if r.IntN(3) == 0 {
		u.proj.capProfile.flapsAt = capabilityFlapsMax
	}
}

// profileCaps applies the profile to device i's drawn declaration.
func (u *universe) profileCaps(i int, c wire.AgentKindCapabilities) wire.AgentKindCapabilities {
	r := u.proj.capProfile.r
	lackTools, lackRecovery := r.IntN(3) == 0, r.IntN(3) == 0 // always drawn: stable streams
	if i == 0 {
		return c
	}
	if lackTools {
		c.ToolObservations = wire.CapabilityFromBool(false)
	}
	if lackRecovery {
		c.NativeSessionRecovery = wire.CapabilityFromBool(false)
	}
	return c
}

// tapCapabilityFlaps makes a device's kind unavailable right behind a
// `preparing` status the device sends (while its preparation is still on
// its way to `ready`), and available again 1–5 s later.
func (u *universe) tapCapabilityFlaps(ev sim.TapEvent) {
	p := u.proj.capProfile
	if p == nil || p.flapsAt == 0 || ev.Kind != sim.TapSent || ev.Forged || ev.To != coreID ||
		!bytes.Contains(ev.Frame, []byte(`"preparation_status"`)) || !bytes.Contains(ev.Frame, []byte(`"state":"preparing"`)) {
		return
	}
	for _, d := range u.devices {
		if d.ID != ev.From || len(d.Daemon.Kinds) == 0 || !d.Daemon.Kinds[0].Available {
			continue
		}
		if p.r.IntN(3) != 0 {
			return
		}
		p.flapsAt--
		d.SetKindAvailable(false)
		back := time.Duration(1000+p.r.IntN(4000)) * time.Millisecond
		u.w.After(back, string(d.ID)+" kind available", func() { d.SetKindAvailable(true) })
		return
	}
}

// projectionWorld is what the world draws per seed for the oracles of
// Core's projection of what Runtimes report.
type projectionWorld struct {
	capProfile *capabilityProfile // capability_profiles.go
	capSwarm   *capabilitySwarm   // capability_swarm.go
	engine     *enginePolicies    // engine_profile.go
	flood      bool               // the preparation flood (workload_prep_flood.go)
	replay     *receiptReplay     // hostile_receipt_replay.go
}
