package world

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
)

// Durable event subscribers. Core's shell hands each SubscribeDurable
// subscription its observations through a bounded buffer; a reader that
// falls further behind loses its subscription: the shell steps
// core.SubscriberOverflow and the machine closes that stream with
// core.ErrSubscriberOverflow (core/server does the same). Here the Core
// node plays that shell. Per seed, a swarm draw decides how many
// submitted Turns get subscribers and how many of those also get a
// hostile slow one: a reader with a buffer of one to six observations
// that never reads, so it overflows on any Turn with enough events. The
// honest subscribers read at once (their buffer never fills). Some
// subscribe late, after the Turn may have ended. The ledger judges every
// stream against the durable store (check/subscribers.go).

// subscriberPlan is the seed's swarm draw.
type subscriberPlan struct {
	rate, slow float64 // share of Turns subscribed; share of those with a slow reader
}

// subscriberShell is the Core node's subscriptions, volatile like Core's.
type subscriberShell struct {
	seq  int
	subs map[core.CallID]*subscription
	// open is subs sorted by call ID; nil once subs changed.
	open []*subscription
	// opens are subscriptions waiting for their timer.
	opens map[string]*subscription
}

type subscription struct {
	call     core.CallID
	turn     string
	capacity int // observations buffered before an overflow; 0: unbounded
	buffered int
	broken   bool
	// judged is the store's event count of turn the ledger last judged
	// this stream against at the end of a Core step; -1 after any other
	// ledger record about it, when the next step end must be judged again
	// (subscribersStepped).
	judged int
}

const subPrefix = "sub/"

func (u *universe) subscriberPlan() subscriberPlan {
	if u.subPlan == nil {
		r := u.w.Rand("subscribers")
		rates := [...]float64{0, 0.25, 0.6, 1}
		u.subPlan = &subscriberPlan{rate: rates[r.IntN(len(rates))], slow: 0.2 + 0.6*r.Float64()}
	}
	return *u.subPlan
}

func (n *coreNode) subscribers() *subscriberShell {
	if n.subs == nil {
		n.subs = &subscriberShell{subs: map[core.CallID]*subscription{}, opens: map[string]*subscription{}}
	}
	return n.subs
}

// planSubscribers arms the subscriptions of a Turn Core just accepted.
func (n *coreNode) planSubscribers(now time.Time, r core.APIResult) []sim.Effect {
	plan := n.u.subscriberPlan()
	rnd := n.u.w.Rand("subscribers")
	v, _ := r.Value.(core.TurnSubmitted)
	if v.Turn == "" || plan.rate == 0 || rnd.Float64() >= plan.rate {
		return nil
	}
	s := n.subscribers()
	var out []sim.Effect
	arm := func(capacity int) {
		s.seq++
		key := strconv.Itoa(s.seq)
		sub := &subscription{call: core.CallID(subPrefix + v.Turn + "/" + key), turn: v.Turn, capacity: capacity, judged: -1}
		s.opens[key] = sub
		// most subscribe while the Turn runs, some after it may have ended
		delay := time.Duration(rnd.IntN(2000)) * time.Millisecond
		if rnd.IntN(5) == 0 {
			delay = time.Duration(10+rnd.IntN(50)) * time.Second
		}
		out = append(out, sim.SetTimer{Timer: sim.TimerID(subPrefix + "open/" + key), At: now.Add(delay)})
	}
	arm(0)
	if rnd.IntN(2) == 0 {
		arm(0)
	}
	if rnd.Float64() < plan.slow {
		arm(1 + rnd.IntN(6))
	}
	return out
}

// subscriberTimer opens a planned subscription, or steps the overflow of
// one whose buffer filled.
func (n *coreNode) subscriberTimer(now time.Time, id string) []sim.Effect {
	s := n.subscribers()
	what, key, _ := strings.Cut(id, "/")
	switch what {
	case "open":
		sub := s.opens[key]
		if sub == nil {
			return nil
		}
		delete(s.opens, key)
		s.subs[sub.call] = sub
		s.open = nil
		n.u.led.SubscriberOpened(n.u.lt(now), string(sub.call), sub.turn)
		return n.step(now, core.Subscribe{Call: sub.call, Turn: sub.turn})
	case "overflow":
		sub := s.subs[core.CallID(key)]
		if sub == nil {
			return nil
		}
		before := n.u.store.writes
		sub.judged = -1
		n.u.led.SubscriberOverflowStepping(n.u.lt(now), string(sub.call))
		out := n.step(now, core.SubscriberOverflow{Subscriber: sub.call})
		n.u.led.SubscriberOverflowStepped(n.u.lt(now), string(sub.call), n.u.store.writes-before)
		sub.judged = -1
		return out
	}
	return nil
}

// subscriberResult takes the answer to a subscription call; it reports
// false for any other call.
func (n *coreNode) subscriberResult(now time.Time, r core.APIResult) bool {
	if !strings.HasPrefix(string(r.Call), subPrefix) {
		return false
	}
	s := n.subscribers()
	if sub := s.subs[r.Call]; sub != nil {
		sub.judged = -1
		errText := ""
		if r.Err != nil {
			errText = r.Err.Error()
			delete(s.subs, r.Call)
			s.open = nil
		}
		n.u.led.SubscriberAnswered(n.u.lt(now), string(r.Call), errText)
	}
	return true
}

// observed hands one observation to its subscription's buffer; a full
// buffer breaks the subscription and schedules the overflow at once.
func (n *coreNode) observed(now time.Time, o core.Observation) []sim.Effect {
	s := n.subscribers()
	sub := s.subs[o.Subscriber]
	errText := ""
	if o.Err != nil {
		errText = o.Err.Error()
	}
	var seq uint64
	if o.Event != nil {
		seq = o.Event.Seq
	}
	events := n.u.store.Memory.Events(o.Turn)
	persisted := make([]uint64, len(events))
	for i, ev := range events {
		persisted[i] = ev.Seq
	}
	n.u.led.SubscriberObserved(n.u.lt(now), string(o.Subscriber), o.Turn, seq, o.Closed, errText, persisted)
	if sub == nil {
		return nil
	}
	sub.judged = -1
	if o.Closed {
		delete(s.subs, o.Subscriber)
		s.open = nil
		return nil
	}
	if sub.broken || sub.capacity == 0 {
		return nil
	}
	if sub.buffered++; sub.buffered <= sub.capacity {
		return nil
	}
	sub.broken = true
	sub.judged = -1
	n.u.led.SubscriberOverflowed(n.u.lt(now), string(sub.call))
	return []sim.Effect{sim.SetTimer{Timer: sim.TimerID(subPrefix + "overflow/" + string(sub.call)), At: now}}
}

// subscribersStepped tells the ledger, after each Core step, how many
// events the store holds for each open subscription's Turn.
func (n *coreNode) subscribersStepped(now time.Time) {
	if n.subs == nil || len(n.subs.subs) == 0 {
		return
	}
	if n.subs.open == nil {
		open := make([]*subscription, 0, len(n.subs.subs))
		for _, sub := range n.subs.subs { //tidy:sorted sorted below
			open = append(open, sub)
		}
		slices.SortFunc(open, func(a, b *subscription) int { return strings.Compare(string(a.call), string(b.call)) })
		n.subs.open = open
	}
	// The ledger's verdict on a stream depends only on what it was told
	// about the stream and on the store's event count: with neither
	// changed since its last step end, it would judge the same again.
	at := n.u.lt(now)
	for _, sub := range n.subs.open {
		if persisted := n.u.store.Memory.EventCount(sub.turn); persisted != sub.judged {
			sub.judged = persisted
			n.u.led.SubscriberStepEnd(at, string(sub.call), persisted)
		}
	}
}
