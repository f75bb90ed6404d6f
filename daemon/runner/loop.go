package runner

import (
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/transport"
	"github.com/turnstile-sim/turnstile/wire"
)

// loop is the one goroutine that owns the machine.
type loop struct {
	d      *Daemon
	m      *daemon.Machine
	native *Native
	trace  *tracing // nil unless Config.Tracer is set
	conns  map[uint64]*transport.Conn
	timers map[daemon.TimerID]*timerArm
	queue  []daemon.Event
	now    time.Time

	reason    string // what started the shutdown
	report    *daemon.Report
	grace     *clock.Timer
	permanent error
	finished  bool
	result    Result
	connects  int // connections established
}

// timerArm is one arming of a machine timer; a fire of an older arming
// of the same ID is recognised by identity and dropped.
type timerArm struct {
	at time.Time
	t  *clock.Timer
}

func newLoop(d *Daemon, m *daemon.Machine) *loop {
	return &loop{d: d, m: m, trace: newTracing(d.cfg.Tracer), conns: map[uint64]*transport.Conn{},
		timers: map[daemon.TimerID]*timerArm{}}
}

func (l *loop) run(ctx context.Context, b transport.Bootstrap) (Result, error) {
	d := l.d
	nativeCtx, cancelNative := context.WithCancel(ctx)
	defer cancelNative()
	l.native = NewNative(nativeCtx, d.cfg.Executors, d.log, func(ev daemon.Event) { d.push(ev) })
	l.native.SetWorkspaces(d.cfg.Workspaces)
	l.native.Installer = d.cfg.Installer
	l.native.Metrics, l.native.Now = d.cfg.Metrics, d.clk.Now
	d.looping.Store(true)
	linkCtx, cancelLink := context.WithCancel(ctx)
	defer cancelLink()
	var linkWG sync.WaitGroup
	linkWG.Add(1)
	go func() {
		defer linkWG.Done()
		err := d.link().Run(linkCtx, b, handler{d})
		d.push(linkEnded{err: err})
	}()
	var hard error
	stop := d.stop
	for !l.finished && hard == nil {
		select {
		case v := <-d.inbox:
			l.handle(v)
		case <-stop:
			stop = nil // handled once
			l.beginShutdown(d.stopReason)
		case <-ctx.Done():
			hard = ctx.Err()
		}
	}
	l.stop(cancelLink, &linkWG, cancelNative)
	l.trace.stopped()
	if hard != nil {
		return Result{}, hard
	}
	return l.result, l.permanent
}

// stop ends the loop: timers stop, the last frames and the close
// handshake get a bounded wait, the link and the native calls are
// cancelled and their goroutines awaited (native ones within a bound: an
// adapter that ignores cancellation is reported, not waited for).
func (l *loop) stop(cancelLink func(), linkWG *sync.WaitGroup, cancelNative func()) {
	d := l.d
	d.ready.Store(false)
	d.once.Do(func() { close(d.done) })
	for id, arm := range l.timers {
		arm.t.Stop()
		delete(l.timers, id)
	}
	if l.grace != nil {
		l.grace.Stop()
	}
	for gen, c := range l.conns {
		c.Close("daemon stopped")
		l.waitBounded(c.Done())
		delete(l.conns, gen)
	}
	cancelLink()
	linkWG.Wait()
	cancelNative()
	nativeDone := make(chan struct{})
	go func() { l.native.Wait(); close(nativeDone) }()
	if !l.waitBounded(nativeDone) {
		d.log.Error("adapter calls still running at exit; they ignored cancellation")
	}
}

func (l *loop) waitBounded(ch <-chan struct{}) bool {
	t := l.d.clk.Timer(closeWaitMax)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

func (l *loop) handle(v any) {
	defer l.noteReady()
	switch e := v.(type) {
	case connUp:
		l.conns[e.gen] = e.conn
		l.d.cfg.Metrics.connected(l.connects == 0)
		l.connects++
		l.noteReady()
		if l.d.ready.Load() {
			l.d.log.Info("daemon ready: connected and registered", "gen", e.gen)
		}
		l.feed(daemon.ConnOpened{Conn: daemon.ConnID(e.gen)})
	case connDown:
		delete(l.conns, e.gen)
		l.feed(daemon.ConnClosed{Conn: daemon.ConnID(e.gen)})
		l.trace.disconnected(e.gen)
	case linkEnded:
		if e.err != nil && !l.finished {
			l.permanent = e.err
			l.d.log.Error("cannot stay connected to Core", "err", e.err.Error())
			l.beginShutdown("transport: " + e.err.Error())
		}
	case timerDue:
		arm := l.timers[e.id]
		if arm == nil || arm.at != e.at {
			return // cancelled or re-armed since
		}
		delete(l.timers, e.id)
		if e.at.After(l.now) {
			l.now = e.at // a timer is never delivered before its instant
		}
		l.feed(daemon.TimerFired{Timer: e.id})
	case graceOver:
		l.finish(false)
	case ownedQuery:
		e.reply <- l.m.Owned()
	case phaseQuery:
		counts := map[string]int{}
		for _, ex := range l.m.Snapshot().Executors {
			counts[ex.Phase]++
		}
		e.reply <- counts
	case daemon.Event:
		if f, ok := e.(daemon.FrameReceived); ok {
			if _, ok := f.Frame.Payload.(wire.DeviceShutdown); ok && l.reason == "" {
				l.reason = "device_shutdown from Core"
			}
			if span := l.trace.received(uint64(f.Conn), f.Frame); span != nil {
				defer span.End()
			}
		}
		l.feed(e)
	}
}

// noteReady publishes whether the daemon is connected and not shutting
// down (Ready, and the connected gauge).
func (l *loop) noteReady() {
	up := len(l.conns) > 0
	l.d.ready.Store(up && l.reason == "" && !l.finished)
	l.d.cfg.Metrics.setConnected(up)
}

func (l *loop) beginShutdown(reason string) {
	if l.reason == "" {
		l.reason = reason
	}
	l.feed(daemon.ShutdownRequested{Reason: reason})
}

// tick is the instant of the next Step: the clock's, never before the
// last one (nor before a timer being delivered: see handle).
func (l *loop) tick() time.Time {
	if now := l.d.clk.Now(); now.After(l.now) {
		l.now = now
	}
	return l.now
}

// feed steps the machine with ev and every event its effects cause at
// once (a closed transport is reported as ConnClosed).
func (l *loop) feed(ev daemon.Event) {
	l.queue = append(l.queue, ev)
	for len(l.queue) > 0 && !l.finished {
		next := l.queue[0]
		l.queue = l.queue[1:]
		for _, ef := range l.m.Step(l.tick(), next) {
			l.apply(ef)
		}
	}
}
