package daemon

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// KindAvailability reports that a registered Harness kind became available
// or unavailable on this device (an installation went away or came back).
// The next heartbeat declares the new availability, and one is sent at
// once on the live connection; admitted executors and Turns keep the
// declaration they were admitted under. An unregistered kind is ignored:
// availability never registers a kind.
type KindAvailability struct {
	Kind      string
	Available bool
}

func (KindAvailability) isEvent() {}

func (e KindAvailability) Describe() string {
	return fmt.Sprintf("kind-availability kind=%q available=%v", e.Kind, e.Available)
}

func (m *Machine) onKindAvailability(e KindAvailability) {
	k := m.cfg.kind(e.Kind)
	if k == nil || k.Available == e.Available {
		return
	}
	k.Available = e.Available
	if m.conn.up {
		m.send(m.conn.gen, wire.Frame{Payload: m.heartbeat()}, m.cfg.Limits.ReceiptSendBudget)
	}
}
