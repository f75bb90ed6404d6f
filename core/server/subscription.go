package server

import (
	"context"
	"sync"

	"github.com/turnstile-sim/turnstile/core"
)

// Subscription is a SubscribeDurable subscription: persisted events of a
// Turn in order, then one closing Observation. It buffers at most
// SubscriptionMax observations; a reader that falls further behind loses
// the subscription with core.ErrSubscriberOverflow.
type Subscription struct {
	ID   core.CallID
	Turn string
	s    *Server

	mu     sync.Mutex
	q      []core.Observation
	max    int
	broken bool
	done   bool
	err    error
	notify chan struct{}
}

// Subscribe opens a subscription on turn. The error is the machine's named
// error (core.ErrUnknownTurn, core.ErrSubscriberLimit) or ErrStopped.
func (s *Server) Subscribe(ctx context.Context, turn string) (*Subscription, error) {
	call := s.mintCall("sub")
	sub := &Subscription{ID: call, Turn: turn, s: s, max: s.opt.SubscriptionMax, notify: make(chan struct{}, 1)}
	ch := make(chan core.APIResult, 1)
	err := s.submit(ctx, func() func() {
		s.calls[call] = ch
		s.subs[call] = sub
		for _, e := range s.step(core.Subscribe{Call: call, Turn: turn}) {
			if r, ok := e.(core.APIResult); ok && r.Call == call && r.Err != nil {
				delete(s.subs, call)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return sub, nil
	case <-s.stop:
		return nil, ErrStopped
	}
}

func (sub *Subscription) push(o core.Observation) bool {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.broken || sub.done {
		return true
	}
	if len(sub.q) >= sub.max {
		sub.broken = true
		return false
	}
	sub.q = append(sub.q, o)
	sub.signal()
	return true
}

func (sub *Subscription) finish(err error) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.done {
		return
	}
	if err == nil && sub.broken {
		// events were dropped before the machine closed the stream in the
		// same step: the end is an overflow, never a clean close
		err = core.ErrSubscriberOverflow
	}
	sub.done, sub.err = true, err
	sub.signal()
}

func (sub *Subscription) signal() {
	select {
	case sub.notify <- struct{}{}:
	default:
	}
}

// Next returns the next observation. After the closing one (Closed true,
// Err the observation error or nil) it keeps returning it. The error is
// ctx's.
func (sub *Subscription) Next(ctx context.Context) (core.Observation, error) {
	for {
		sub.mu.Lock()
		if len(sub.q) > 0 {
			o := sub.q[0]
			sub.q[0] = core.Observation{}
			sub.q = sub.q[1:]
			sub.mu.Unlock()
			return o, nil
		}
		if sub.done {
			o := core.Observation{Subscriber: sub.ID, Turn: sub.Turn, Closed: true, Err: sub.err}
			sub.mu.Unlock()
			return o, nil
		}
		sub.mu.Unlock()
		select {
		case <-sub.notify:
		case <-ctx.Done():
			return core.Observation{}, ctx.Err()
		}
	}
}

// Close ends the subscription early (the reader went away). The machine
// has no unsubscribe event; it is told the subscriber can take no more,
// which closes it there.
func (sub *Subscription) Close() {
	sub.mu.Lock()
	done := sub.done
	sub.mu.Unlock()
	if done {
		return
	}
	_ = sub.s.submit(context.Background(), func() func() {
		if sub.s.subs[sub.ID] != nil {
			sub.s.step(core.SubscriberOverflow{Subscriber: sub.ID})
		}
		return nil
	})
}
