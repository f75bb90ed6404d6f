package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"go.opentelemetry.io/otel/trace"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// Conn is the loop's handle on one Runtime connection. Both methods must
// return at once: Send only queues (false when the connection's bounded
// queue is full or the connection is closed), Close starts an asynchronous
// close with a WebSocket close code and a reason. budget is the machine's
// Send.Budget: zero for an ordinary frame (the connection's own write
// limit; a failed write closes it), above zero for a best-effort frame,
// which the connection writes only if it can within budget of this call
// and otherwise drops, leaving the connection open.
type Conn interface {
	Send(frame []byte, budget time.Duration) bool
	Close(code int, reason string)
}

// WebSocket close codes the loop uses.
const (
	CloseNormal      = 1000
	CloseGoingAway   = 1001
	ClosePolicy      = 1008
	CloseTryAgain    = 1013
	CloseRetired     = 4001 // the device record was revoked or deleted
	reasonOverflow   = "outbound queue full"
	reasonShutdown   = "core shutting down"
	reasonRevoked    = "runtime retired"
	reasonEncodeFail = "frame encoding failed"
)

// Options configure a Server. Zero fields take defaults.
type Options struct {
	Config core.Config
	Clock  clock.Clock // clock.New() when nil
	Logger *slog.Logger
	// BatchMax bounds the inputs drained into one batch (one Commit).
	BatchMax int
	// InboxMax is the capacity of the loop's input queue; producers block
	// when it is full (backpressure on readers and callers).
	InboxMax int
	// SubscriptionMax bounds the Observations buffered for one subscriber;
	// beyond it the subscription closes with ErrSubscriberOverflow.
	SubscriptionMax int
	// RevocationPoll is how often the loop re-reads device records to close
	// connections of devices revoked by another process (0: 5 s).
	RevocationPoll time.Duration
	// Fatal is called, on the loop goroutine, when Commit fails; it must
	// not return (the default logs and panics). Tests replace it.
	Fatal func(error)
	// Metrics receives counters; nil records nothing.
	Metrics *Metrics
	// PrepareFrame, when set, rewrites each outgoing frame just before it
	// is encoded, on the loop: a shell substitutes there the secrets the
	// machine keeps only as references (a Vault credential ID as an MCP
	// server's bearer token), so they never reach the store. It must not
	// change the frame it is given. An error closes the connection like a
	// frame that does not encode; its text is logged, so it must name no
	// secret.
	PrepareFrame func(wire.Frame) (wire.Frame, error)
	// Tracer, when set, records OpenTelemetry spans per Turn, per
	// preparation and per frame sent or received, and stamps outgoing
	// frames with their send span's traceparent (tracing.go). Nil: no
	// spans and no trace field, at no cost.
	Tracer trace.Tracer
}

// ErrStopped is returned to callers once the loop has stopped.
var ErrStopped = errors.New("server: core loop stopped")

// Server runs one core.Machine on one goroutine (Run). Every other
// goroutine talks to it through the inbox.
type Server struct {
	opt   Options
	clk   clock.Clock
	log   *slog.Logger
	back  Backend
	m     *core.Machine
	inbox chan item
	stop  chan struct{} // closed when Run returns
	once  sync.Once

	nextConn atomic.Uint64
	nextCall atomic.Uint64

	// Loop-owned state.
	conns   map[core.ConnID]*connState
	timers  map[core.TimerID]*clock.Timer
	calls   map[core.CallID]chan<- core.APIResult
	streams map[core.CallID]chan<- []byte // StreamCall chunks (stream.go)
	subs    map[core.CallID]*Subscription
	effects []core.Effect
	posts   []func()
	pending []core.Event
	idem    map[string][]byte // idempotency answers put in this batch
	stepped bool              // the batch stepped the machine
	steps   int               // Steps since the last commit
	now     time.Time         // the last Step's instant: the clock's, never before it
	obs     *turnObserver     // Turn transitions, reported after their commit
	watches []func(View) bool // Watch functions, in registration order
	tracing *tracing          // nil unless Options.Tracer is set

	changedMu sync.Mutex
	changed   chan struct{} // closed after the next commit of a stepped batch
}

type connState struct {
	device    string
	conn      Conn
	heartbeat *HeartbeatInfo
}

// HeartbeatInfo is the last valid heartbeat of a connection.
type HeartbeatInfo struct {
	At            time.Time
	TS            int64
	DaemonVersion string
	Active        int
	Kinds         []wire.SupportedAgentKind
}

// item is one unit of loop work; it runs on the loop goroutine and may
// call step. Its returned function, if any, runs after the batch commits.
type item func() (post func())

// New builds the machine over back: core.New on an empty store, otherwise
// core.Restart, whose recovery writes are committed before New returns.
func New(back Backend, opt Options) (*Server, error) {
	if opt.Clock == nil {
		opt.Clock = clock.New()
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.BatchMax <= 0 {
		opt.BatchMax = 256
	}
	if opt.InboxMax <= 0 {
		opt.InboxMax = 1024
	}
	if opt.SubscriptionMax <= 0 {
		opt.SubscriptionMax = 1<<16 + 64
	}
	if opt.RevocationPoll <= 0 {
		opt.RevocationPoll = 5 * time.Second
	}
	if opt.Config.Devices == nil {
		pool, err := enrolledPool(back, opt.Config.DevicesMax)
		if err != nil {
			return nil, err
		}
		opt.Config.Devices = pool
	}
	if err := opt.Config.Validate(); err != nil {
		return nil, err
	}
	s := &Server{
		opt: opt, clk: opt.Clock, log: opt.Logger, back: back,
		inbox: make(chan item, opt.InboxMax), stop: make(chan struct{}),
		conns: map[core.ConnID]*connState{}, timers: map[core.TimerID]*clock.Timer{},
		calls: map[core.CallID]chan<- core.APIResult{}, subs: map[core.CallID]*Subscription{},
		tracing: newTracing(opt.Tracer),
	}
	if opt.Fatal == nil {
		s.opt.Fatal = func(err error) {
			s.log.Error("store commit failed; stopping", "err", err)
			panic(fmt.Sprintf("server: store commit failed: %v", err))
		}
	}
	s.obs = newTurnObserver(opt.Clock, s.log, opt.Metrics)
	opt.Metrics.attach(s)
	if !hasRecords(back) {
		s.m = core.New(opt.Config, observe(back, s.obs))
	} else {
		s.m = core.Restart(opt.Config, observe(back, s.obs))
		s.log.Info("core restarted from the store", "sessions", len(back.Sessions()), "turns", len(back.Turns()))
	}
	if err := back.Commit(); err != nil {
		return nil, fmt.Errorf("server: commit after restart: %w", err)
	}
	s.obs.committed()
	return s, nil
}

// enrolledPool is the machine's device pool (core.Config.Devices): the
// devices enrolled and not revoked, in ID order, at most limit (the
// machine's DevicesMax, its default when zero). A queued Turn never fails
// for a lacking capability while one of them may still connect and serve
// it (a Core restart leaves every device reconnecting).
func enrolledPool(back Credentials, limit int) ([]string, error) {
	ds, err := back.Devices()
	if err != nil {
		return nil, fmt.Errorf("server: list devices: %w", err)
	}
	if limit <= 0 {
		limit = core.DefaultConfig().DevicesMax
	}
	pool := []string{}
	for _, d := range ds {
		if !d.Revoked && len(pool) < limit {
			pool = append(pool, d.ID)
		}
	}
	slices.Sort(pool)
	return pool, nil
}

// hasRecords reports whether back holds anything core.Restart recovers:
// Sessions, Turns, suspensions or Environment preparations.
func hasRecords(back Backend) bool {
	if len(back.Sessions()) > 0 || len(back.Turns()) > 0 {
		return true
	}
	if st, ok := back.(core.SuspensionStore); ok && len(st.Suspensions()) > 0 {
		return true
	}
	st, ok := back.(core.PreparationStore)
	return ok && len(st.EnvironmentPreparations()) > 0
}

// Changed returns a channel closed once a batch that stepped the machine
// has committed after the call: a reader that took the channel before
// reading the loop's state sees every later change (a batch of queries
// only changes nothing and closes nothing).
func (s *Server) Changed() <-chan struct{} {
	s.changedMu.Lock()
	defer s.changedMu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

// Watch runs fn on the loop with a View of the committed state: once
// after the next commit, then after every commit of a batch that stepped the machine, until
// fn returns false or ctx ends (fn is not called again then). It is how
// a reader follows committed changes without a round trip through the
// inbox per change; fn must be quick and must not block or call the
// Server.
func (s *Server) Watch(ctx context.Context, fn func(View) bool) error {
	w := func(v View) bool { return ctx.Err() == nil && fn(v) }
	done := make(chan struct{})
	err := s.submit(ctx, func() func() {
		return func() { // after the batch's commit: fn sees committed state only
			if w(View{s}) {
				s.watches = append(s.watches, w)
			}
			close(done)
		}
	})
	if err != nil {
		return err
	}
	select {
	case <-done:
		return nil
	case <-s.stop:
		return ErrStopped
	}
}

// Clock returns the server's clock.
func (s *Server) Clock() clock.Clock { return s.clk }

// Done is closed when Run has returned.
func (s *Server) Done() <-chan struct{} { return s.stop }

// submit queues work for the loop; it fails once the loop stopped.
func (s *Server) submit(ctx context.Context, it item) error {
	select {
	case <-s.stop:
		return ErrStopped
	default:
	}
	select {
	case s.inbox <- it:
		return nil
	case <-s.stop:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run owns the machine until ctx ends, then closes every connection and
// subscription and commits. It returns nil after a clean stop.
func (s *Server) Run(ctx context.Context) error {
	defer s.once.Do(func() { close(s.stop) })
	poll := s.clk.Ticker(s.opt.RevocationPoll)
	defer poll.Stop()
	for {
		var first item
		if len(s.pending) == 0 {
			select {
			case <-ctx.Done():
				return s.shutdown()
			case first = <-s.inbox:
			case <-poll.C:
				first = s.pollRevoked
			}
		}
		s.batch(first)
	}
}

// batch runs first and whatever else is queued (up to BatchMax), commits
// once, then applies the effects in order.
func (s *Server) batch(first item) {
	s.idem = nil
	if first != nil {
		s.run(first)
	}
	for n := 1; n < s.opt.BatchMax; n++ {
		if len(s.pending) > 0 {
			ev := s.pending[0]
			s.pending = s.pending[1:]
			s.step(ev)
			continue
		}
		select {
		case it := <-s.inbox:
			s.run(it)
			continue
		default:
		}
		break
	}
	start := s.clk.Now()
	if err := s.back.Commit(); err != nil {
		s.opt.Fatal(err)
		return
	}
	s.opt.Metrics.commit(s.clk.Since(start), s.steps)
	s.steps = 0
	s.obs.committed()
	if s.stepped {
		s.stepped = false
		s.changedMu.Lock()
		if s.changed != nil {
			close(s.changed)
			s.changed = nil
		}
		s.changedMu.Unlock()
		s.watches = slices.DeleteFunc(s.watches, func(w func(View) bool) bool { return !w(View{s}) })
	}
	effects, posts := s.effects, s.posts
	s.effects, s.posts = nil, nil
	for _, e := range effects {
		s.apply(e)
	}
	for _, p := range posts {
		p()
	}
	s.tracing.settle(s.back)
	// The next batch reuses the slices (emptied, so they hold nothing).
	if s.effects == nil && s.posts == nil {
		clear(effects)
		clear(posts)
		s.effects, s.posts = effects[:0], posts[:0]
	}
	s.opt.Metrics.connections(len(s.conns))
}

func (s *Server) run(it item) {
	if post := it(); post != nil {
		s.posts = append(s.posts, post)
	}
}

// step feeds one event to the machine and keeps its effects for the batch.
func (s *Server) step(ev core.Event) []core.Effect {
	s.stepped = true
	s.steps++
	if now := s.clk.Now(); now.After(s.now) {
		s.now = now
	}
	effs := s.m.Step(s.now, ev)
	s.effects = append(s.effects, effs...)
	if s.tracing != nil {
		s.tracing.stepped(ev, effs)
		if c, ok := ev.(core.ConnClosed); ok {
			s.tracing.closed(c.Conn, c.Reason)
		}
	}
	return effs
}

func (s *Server) shutdown() error {
	for id, c := range s.conns {
		c.conn.Close(CloseGoingAway, reasonShutdown)
		s.step(core.ConnClosed{Conn: id, Reason: reasonShutdown})
	}
	for id, sub := range s.subs {
		sub.finish(ErrStopped)
		delete(s.subs, id)
	}
	for id, t := range s.timers {
		t.Stop()
		delete(s.timers, id)
	}
	err := s.back.Commit()
	if err == nil {
		s.obs.committed()
		// The watches read the last commit (Turns the closed connections
		// failed), so a stream still open sends their terminal events
		// before Done closes.
		s.watches = slices.DeleteFunc(s.watches, func(w func(View) bool) bool { return !w(View{s}) })
	}
	s.tracing.settle(s.back)
	s.tracing.stopped()
	s.effects = nil
	for call, ch := range s.calls {
		ch <- core.APIResult{Call: call, Err: ErrStopped}
		delete(s.calls, call)
	}
	return err
}

// pollRevoked closes live connections of revoked devices with 4001.
func (s *Server) pollRevoked() func() {
	for id, c := range s.conns {
		d, ok, err := s.back.Device(c.device)
		if err != nil || (ok && !d.Revoked) {
			continue
		}
		s.retire(id, c)
	}
	return nil
}

func (s *Server) retire(id core.ConnID, c *connState) {
	c.conn.Close(CloseRetired, reasonRevoked)
	delete(s.conns, id)
	s.step(core.ConnClosed{Conn: id, Reason: reasonRevoked})
}
