package core

import "github.com/turnstile-sim/turnstile/wire"

// Planted bug RedeliverUnknownInput (see Bugs). Nothing here runs unless
// the switch is set.

// redelivery is an input whose outcome became unknown, waiting to be sent
// again to the device that had it.
type redelivery struct {
	device string
	run    string
	input  InputRecord
}

// plantRedelivery remembers input i of t, just made unknown, for
// redelivery instead of leaving it unknown for good.
func (m *Machine) plantRedelivery(t *turn, i int) {
	m.redeliveries = append(m.redeliveries, redelivery{device: t.rec.Device, run: t.rec.RunID, input: t.inputs[i]})
}

// redeliverUnknown sends each remembered input again, with its Run ID and
// input ID, on its device's current connection: the same one after a
// written timeout, the next one after the connection was lost (or Core
// restarted). Inputs of a device without a connection wait for one.
func (m *Machine) redeliverUnknown() {
	kept := m.redeliveries[:0]
	for _, r := range m.redeliveries {
		d := m.devices[r.device]
		if d == nil || m.conns[d.conn] == nil {
			kept = append(kept, r)
			continue
		}
		m.send(d.conn, r.run, wire.PromptSteer{InputID: r.input.ID, Input: r.input.Input, DurableReceipt: true})
	}
	m.redeliveries = kept
}
