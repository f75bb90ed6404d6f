package check

// CheckCapacityProbe is rule capacity_gate_probe (Rules) of the capacity
// gate (capacity_gate.go): a refusal of the probe starts the next wait, a
// status the Runtime took opens the gate step by step. Two preparations
// sent after the wait, with the probe unanswered and the gate neither
// opened nor uncertain (capGate), are a violation; judged only after a
// refusal Core certainly counted (fails > 0).
const CheckCapacityProbe = "capacity_gate_probe"

// capGateProbeSent judges a Turn's execution_prepare id that Core sent on
// conn at at while g's probe may be out; capGateSent calls it before it
// takes id as the probe.
func (l *Ledger) capGateProbeSent(g *capGate, conn uint64, at int64, id, session string) {
	if g.fails == 0 || g.uncertain || g.opened || g.probe == "" || g.probe == id || at < g.until {
		return
	}
	l.violate(at, CheckCapacityProbe, "Core sent execution_prepare %s of session %s on conn c%d at %s while its capacity probe %s was unanswered (%d consecutive preparation_capacity refusals)",
		id, session, conn, vtime(at), g.probe, g.fails)
}
