package harness

import (
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
)

// Asks before the start returns. A native engine may stream a turn's
// first events, a permission request among them, before its start call
// returns to the daemon, which holds them until the start resolves. A
// peer that names such a request while the start is unresolved must be
// told not_ready. ArmAskBeforeStart makes the device's next StartTurn
// answer after 1–3 s and ask one permission 50–150 ms after the call;
// AskedBeforeStart lists what it asked, by Run, for the peer that armed
// it (the world's rogue Core).

// ArmAskBeforeStart arms the device's next StartTurn to ask first.
func (d *Device) ArmAskBeforeStart() { d.askBeforeStart++ }

// AskedBeforeStart returns the permission requests the native side asked
// for run before its start returned, in asking order.
func (d *Device) AskedBeforeStart(run string) []string {
	return slices.Clone(d.askedEarly[run])
}

// askBeforeStart applies an armed ask-before-start to a start call: it
// returns the start's latency, and asks through a provisional turn that
// the answered start's turn takes over (asks are kept by Turn ID).
func (h *Harness) askBeforeStart(now time.Time, op daemon.StartTurn, lat time.Duration) time.Duration {
	d := h.dev
	if d.askBeforeStart == 0 {
		return lat
	}
	d.askBeforeStart--
	early := &hTurn{id: op.Turn, run: op.Run, exec: op.Executor}
	h.after(now, h.ms(50, 100), func(now time.Time) {
		if h.turns[op.Turn] != nil {
			return // the start already returned
		}
		h.ask(now, early, AskPermission)
		asks := h.asks().byTurn[op.Turn]
		if d.askedEarly == nil {
			d.askedEarly = map[string][]string{}
		}
		d.askedEarly[op.Run] = append(d.askedEarly[op.Run], asks[len(asks)-1].id)
	})
	return h.ms(1000, 2000)
}
