package core

// Restart rebuilds a Machine after a Core crash from the durable records
// of st. Volatile state (connections, snapshots, preparations, Run routes,
// subscriptions, timers) is gone. Unclaimed Turns are queued again in
// their original order; a Turn whose execution_start was sent is never
// started again: it fails with delivery_unknown (start unconfirmed) or
// event_stream_incomplete (it was running), or cancel_unconfirmed when its
// cancel receipt was awaited (at the latest, its durable CancelDeadline
// would have ended the wait the same way). Those records are updated in st before
// Restart returns.
func Restart(cfg Config, st Store) *Machine {
	m := newMachine(cfg, st)
	for _, rec := range st.Sessions() {
		s := &session{rec: rec}
		m.addSession(s)
	}
	var interrupted []*turn
	for _, rec := range st.Turns() {
		if rec.State.Terminal() {
			continue
		}
		s := m.sessions[rec.Session]
		assert.That(s != nil, "turn %s of unknown session %s", rec.ID, rec.Session)
		t := &turn{rec: rec, inputs: st.Inputs(rec.ID)}
		m.addTurn(t)
		m.setQueue(s, append(s.queue, t))
		if rec.State != TurnQueued {
			interrupted = append(interrupted, t)
		}
	}
	for _, t := range interrupted {
		if t.rec.State == TurnStarting {
			m.countStarted(t) // the start may have run natively, cancel or not
		}
		switch {
		case t.rec.Cancel == CancelRequested:
			// The durable deadline bounded the wait; a restart ends it.
			assert.That(!t.rec.CancelDeadline.IsZero(), "turn %s cancel requested without a deadline", t.rec.ID)
			m.finish(t, TurnFailed, CodeCancelUnconfirmed, "Core restarted before the cancel receipt")
		case t.rec.State == TurnStarting:
			m.finish(t, TurnFailed, CodeDeliveryUnknown, "Core restarted before the start was confirmed")
		default:
			m.finish(t, TurnFailed, CodeEventStreamIncomplete, "Core restarted before done")
		}
	}
	m.restartFencing()
	m.restartPreparations()
	m.out = nil
	m.checkInvariants()
	return m
}
