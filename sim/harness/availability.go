package harness

import (
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
)

// Commands that flip the availability of the device's first declared kind
// (an installation going away and coming back). The device keeps the new
// availability for later daemon processes too.
const (
	CmdKindUnavailable sim.TimerID = "cmd/kind_unavailable"
	CmdKindAvailable   sim.TimerID = "cmd/kind_available"
)

// SetKindAvailable flips the first declared kind's availability through a
// command to the running daemon, or in the configuration alone when the
// process is down (the next one starts with it).
func (d *Device) SetKindAvailable(available bool) {
	if len(d.Daemon.Kinds) == 0 {
		return
	}
	if !d.w.Up(d.ID) {
		d.Daemon.Kinds[0].Available = available
		return
	}
	cmd := CmdKindUnavailable
	if available {
		cmd = CmdKindAvailable
	}
	d.Command(cmd)
}

// kindAvailability carries an availability command to the machine.
func (n *Daemon) kindAvailability(now time.Time, available bool) {
	k := &n.d.Daemon.Kinds[0]
	k.Available = available
	n.Feed(now, daemon.KindAvailability{Kind: k.Kind, Available: available})
}
