package check

// CheckSubscriberStream is rule subscriber_stream (Rules), judged from
// what each subscriber saw against the durable store's events of its Turn
// at that instant, never from what Core holds.
const CheckSubscriberStream = "subscriber_stream"

// Observation errors as Core's API names them (core/errors.go): the
// texts the world passes are compared with these.
const (
	subscriberOverflowText = "core: observation lost: subscriber overflow"
	disconnectedText       = "core: observation lost: connection closed"
	eventLimitText         = "core: observation stopped: run event limit reached"
)

// MarkSubscriberOverflow: a slow subscriber overflowed and Core ended its
// stream.
const MarkSubscriberOverflow Mark = "subscriber_overflow"

type subscriberRecord struct {
	turn, closeErr     string
	received           int
	opened, closed     bool // Core answered the subscription without an error; the stream closed
	overflow           bool // the shell reported its buffer full
	openBefore, lagged bool // open when Core began stepping its overflow; reported behind the store once
}

type subscriberState struct {
	subs     map[string]*subscriberRecord
	stepping string // the subscriber whose overflow Core is stepping
}

func (l *Ledger) subscriber(id string) *subscriberRecord {
	return made(&l.subscribers.subs)[id]
}

// SubscriberOpened: the shell subscribes id to turn.
func (l *Ledger) SubscriberOpened(at int64, id, turn string) {
	if l.subscriber(id) != nil {
		l.violate(at, CheckSubscriberStream, "subscriber %s opened twice", id)
		return
	}
	l.subscribers.subs[id] = &subscriberRecord{turn: turn}
}

// SubscriberAnswered: Core answered the subscription call (err "" when it
// opened the stream).
func (l *Ledger) SubscriberAnswered(at int64, id, errText string) {
	if s := l.subscriber(id); s != nil {
		s.opened = errText == ""
	}
}

// SubscriberObserved judges one observation Core handed the shell: an
// event with sequence seq, or the closing one (closed, with errText).
// persisted is the sequence numbers of the Turn's events in the durable
// store at that instant.
func (l *Ledger) SubscriberObserved(at int64, id, turn string, seq uint64, closed bool, errText string, persisted []uint64) {
	st := &l.subscribers
	s := l.subscriber(id)
	switch {
	case s == nil:
		l.violate(at, CheckSubscriberStream, "Core observed %s to subscriber %s, which never subscribed", turn, id)
		return
	case st.stepping != "" && st.stepping != id:
		l.violate(at, CheckSubscriberStream, "stepping the overflow of %s, Core observed to subscriber %s", st.stepping, id)
	case s.turn != turn:
		l.violate(at, CheckSubscriberStream, "subscriber %s of %s got an observation of %s", id, s.turn, turn)
	case !s.opened:
		l.violate(at, CheckSubscriberStream, "subscriber %s got an observation before its subscription was answered, or after it was refused", id)
	case s.closed:
		l.violate(at, CheckSubscriberStream, "subscriber %s got an observation after its stream closed (%q)", id, s.closeErr)
		return
	}
	if !closed {
		if s.received >= len(persisted) || persisted[s.received] != seq {
			l.violate(at, CheckSubscriberStream, "subscriber %s of %s got event seq %d as its event %d; the store holds %v",
				id, turn, seq, s.received+1, persisted)
		}
		s.received++
		return
	}
	s.closed, s.closeErr = true, errText
	switch {
	case st.stepping == id:
		if errText != subscriberOverflowText {
			l.violate(at, CheckSubscriberStream, "the overflowed subscriber %s was closed with %q, not the overflow error", id, errText)
		}
	case errText == subscriberOverflowText:
		l.violate(at, CheckSubscriberStream, "subscriber %s closed with the overflow error, but its shell reported no overflow", id)
	case s.overflow:
		// closed by the Turn's end before Core stepped the overflow
	case errText != "" && errText != disconnectedText && errText != eventLimitText:
		l.violate(at, CheckSubscriberStream, "subscriber %s closed with %q, no documented observation error", id, errText)
	case s.received != len(persisted):
		l.violate(at, CheckSubscriberStream, "subscriber %s of %s closed after %d of the %d persisted events", id, turn, s.received, len(persisted))
	}
}

// SubscriberStepEnd: Core finished a step while subscriber id was open,
// and the store holds persisted events of its Turn: an open stream that
// neither closed nor overflowed has been handed every one of them.
func (l *Ledger) SubscriberStepEnd(at int64, id string, persisted int) {
	s := l.subscriber(id)
	if s == nil || !s.opened || s.closed || s.overflow || s.lagged || s.received >= persisted {
		return
	}
	s.lagged = true
	l.violate(at, CheckSubscriberStream, "subscriber %s of %s was handed %d of the %d persisted events by the end of Core's step",
		id, s.turn, s.received, persisted)
}

// SubscriberOverflowed: the shell found the subscriber's buffer full.
func (l *Ledger) SubscriberOverflowed(at int64, id string) {
	if s := l.subscriber(id); s != nil {
		s.overflow = true
	}
}

// SubscriberOverflowStepping: Core is about to step the overflow of id.
func (l *Ledger) SubscriberOverflowStepping(at int64, id string) {
	if s := l.subscriber(id); s != nil {
		s.openBefore = s.opened && !s.closed
		l.subscribers.stepping = id
	}
}

// SubscriberOverflowStepped: Core stepped the overflow of id, making
// writes durable writes meanwhile.
func (l *Ledger) SubscriberOverflowStepped(at int64, id string, writes int) {
	l.subscribers.stepping = ""
	s := l.subscriber(id)
	if s == nil {
		return
	}
	if writes != 0 {
		l.violate(at, CheckSubscriberStream, "Core made %d durable writes stepping the overflow of subscriber %s", writes, id)
	}
	if !s.openBefore {
		return
	}
	if !s.closed || s.closeErr != subscriberOverflowText {
		l.violate(at, CheckSubscriberStream, "Core did not end the overflowed subscriber %s with the overflow error in that step", id)
		return
	}
	l.reach(MarkSubscriberOverflow)
}
