package core

// subscriber is one SubscribeDurable subscription of an unfinished Turn.
type subscriber struct {
	id   CallID
	turn string
	t    *turn  // the unfinished Turn named turn, as subscribed
	key  CallID // its key in Machine.subs (addSub)
	slot int    // its index in Machine.subList (addSub, dropSub)
}

// addSub enters sub in m.subs under its ID and at the end of m.subList.
func (m *Machine) addSub(sub *subscriber) {
	sub.key, sub.slot = sub.id, len(m.subList)
	m.subs[sub.key] = sub
	m.subList = append(m.subList, sub)
}

// dropSub deletes sub from m.subs and m.subList, moving the last
// subscriber of the list into sub's slot.
func (m *Machine) dropSub(sub *subscriber) {
	delete(m.subs, sub.key)
	if i, n := sub.slot, len(m.subList)-1; i >= 0 && i <= n && m.subList[i] == sub {
		last := m.subList[n]
		m.subList[i], last.slot = last, i
		m.subList[n] = nil
		m.subList = m.subList[:n]
	}
	sub.slot = -1
}

// onSubscribe answers the call, replays every persisted event in order,
// then either closes (terminal Turn) or stays open for live events.
func (m *Machine) onSubscribe(e Subscribe) {
	rec, ok := m.lookupTurn(e.Turn)
	t := m.turns[e.Turn]
	switch {
	case !ok:
		m.result(APIResult{Call: e.Call, Err: ErrUnknownTurn})
		return
	case m.subs[e.Call] != nil:
		m.result(APIResult{Call: e.Call, Err: ErrDuplicateSubscriber})
		return
	case t != nil && len(t.subs) >= m.cfg.SubscribersPerTurnMax:
		m.result(APIResult{Call: e.Call, Err: ErrSubscriberLimit})
		return
	}
	m.result(APIResult{Call: e.Call})
	for _, ev := range m.st.Events(e.Turn) {
		m.emit(Observation{Subscriber: e.Call, Turn: e.Turn, Event: &ev})
	}
	if t == nil {
		m.emit(Observation{Subscriber: e.Call, Turn: e.Turn, Closed: true, Err: closeErrFor(rec)})
		return
	}
	sub := &subscriber{id: e.Call, turn: e.Turn, t: t}
	m.addSub(sub)
	t.subs = append(t.subs, sub)
}

// closeErrFor is the observation error a late subscriber of a terminal
// Turn sees: explicit when the Run's observation was lost.
func closeErrFor(rec TurnRecord) error {
	switch rec.ErrorCode {
	case CodeDeliveryUnknown, CodeEventStreamIncomplete:
		return ErrDisconnected
	case CodeEventPersistenceFailed:
		return ErrEventLimit
	}
	return nil
}

// observe hands a persisted event to every subscriber of the Turn.
func (m *Machine) observe(t *turn, ev RunEvent) {
	for _, sub := range t.subs {
		e := ev
		m.emit(Observation{Subscriber: sub.id, Turn: t.rec.ID, Event: &e})
	}
}

func (m *Machine) onSubscriberOverflow(e SubscriberOverflow) {
	sub := m.subs[e.Subscriber]
	if sub == nil {
		return
	}
	m.dropSub(sub) // under e.Subscriber
	if t := m.turns[sub.turn]; t != nil {
		for i, s := range t.subs {
			if s == sub {
				t.subs = append(t.subs[:i:i], t.subs[i+1:]...)
				break
			}
		}
	}
	m.emit(Observation{Subscriber: e.Subscriber, Turn: sub.turn, Closed: true, Err: ErrSubscriberOverflow})
}
