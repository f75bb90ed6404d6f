package runner

import (
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/internal/wiretrace"
)

// apply executes one effect without blocking.
func (l *loop) apply(ef daemon.Effect) {
	switch e := ef.(type) {
	case daemon.Send:
		gen := uint64(e.Conn)
		c := l.conns[gen]
		if c == nil {
			return // that connection is gone: dropped, never redirected
		}
		f, span := l.trace.sending(gen, e.Frame)
		b, err := wiretrace.Encode(f, e.Frame.Trace)
		if err != nil {
			l.d.log.Error("machine frame does not encode; not sent", "frame", daemon.DescribeFrame(e.Frame), "err", err.Error())
			l.trace.sent(f, span)
			return
		}
		c.Send(b, e.Budget)
		l.trace.sent(f, span)
		l.d.cfg.Metrics.sent(e.Frame)
	case daemon.CloseConn:
		gen := uint64(e.Conn)
		if c := l.conns[gen]; c != nil {
			c.Close(e.Reason)
			delete(l.conns, gen)
		}
		l.queue = append(l.queue, daemon.ConnClosed{Conn: e.Conn})
		l.trace.disconnected(gen)
	case daemon.SetTimer:
		l.setTimer(e)
	case daemon.CancelTimer:
		if arm := l.timers[e.Timer]; arm != nil {
			arm.t.Stop()
			delete(l.timers, e.Timer)
		}
	case daemon.NativeCall:
		l.native.Run(e)
	case daemon.Report:
		l.onReport(e)
	}
}

func (l *loop) setTimer(e daemon.SetTimer) {
	if old := l.timers[e.Timer]; old != nil {
		old.t.Stop()
	}
	id, at := e.Timer, e.At
	arm := &timerArm{at: at}
	arm.t = l.d.clk.AfterFunc(max(at.Sub(l.d.clk.Now()), 0), func() { l.d.push(timerDue{id: id, at: at}) })
	l.timers[id] = arm
}

// onReport follows the machine's shutdown: the first report starts the
// grace period, a complete one ends the daemon.
func (l *loop) onReport(r daemon.Report) {
	first := l.report == nil
	l.report = &r
	if l.d.cfg.OnReport != nil {
		l.d.cfg.OnReport(r)
	}
	if first {
		if l.reason == "" {
			l.reason = "shutdown requested"
		}
		l.d.log.Info("shutting down", "reason", l.reason, "owned", describeOwned(r.Owned))
		l.grace = l.d.clk.AfterFunc(l.d.cfg.Grace, func() { l.d.push(graceOver{}) })
	}
	if r.Complete {
		l.finish(true)
	}
}

func (l *loop) finish(complete bool) {
	if l.finished {
		return
	}
	l.finished = true
	var owned []daemon.Resource
	if l.report != nil {
		owned = l.report.Owned
	}
	l.result = Result{Complete: complete, Owned: owned, Reason: l.reason}
	if complete {
		l.d.log.Info("shutdown complete", "reason", l.reason)
		return
	}
	l.d.log.Error("shutdown grace ran out; still owned", "grace", l.d.cfg.Grace.String(), "owned", describeOwned(owned))
}
