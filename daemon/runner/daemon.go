package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"go.opentelemetry.io/otel/trace"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/transport"
	"github.com/turnstile-sim/turnstile/wire"
)

// ShutdownGrace is how long a shutdown waits for the machine to release
// everything it owns before the daemon exits with what is still owned.
const ShutdownGrace = 10 * time.Second

// closeWaitMax bounds the wait for the last frames and the close
// handshake once the daemon stops.
const closeWaitMax = 5 * time.Second

// Config is everything a Daemon needs.
type Config struct {
	// Machine is the machine's configuration; HeartbeatInterval is taken
	// from Bootstrap when zero.
	Machine daemon.Config
	// Executors holds the installed adapters.
	Executors Executors
	// Workspaces binds Environments to local workspace directories (nil:
	// none; workspace operations then fail as unbound).
	Workspaces Workspaces
	// Client reaches Core; Bootstrap, when set, skips the bootstrap request.
	Client    *transport.Client
	Bootstrap *transport.Bootstrap
	Policy    transport.Policy
	// Rand draws the reconnect jitter (seed it; nil: a random seed).
	Rand  *rand.Rand
	Clock clock.Clock // nil: the real clock
	Log   *slog.Logger
	// Grace overrides ShutdownGrace.
	Grace time.Duration
	// Installer stages and installs runtime_prepare transfers; nil fails
	// every transfer's staging and installation.
	Installer *Installer
	// OnReport, when set, sees every shutdown report as it is emitted.
	OnReport func(daemon.Report)
	// Tracer, when set, records OpenTelemetry spans per frame, per
	// preparation and per Turn, continuing the trace Core's frames carry
	// and stamping the frames sent with their send span (tracing.go).
	// Nil: no spans and no trace field, at no cost.
	Tracer trace.Tracer
	// Metrics receives the daemon's counters; nil records nothing.
	Metrics *Metrics
}

// Result is how a Daemon ended.
type Result struct {
	// Complete is set when shutdown released everything; Owned lists what
	// was still owned when the grace period ran out.
	Complete bool
	Owned    []daemon.Resource
	// Reason is what started the shutdown.
	Reason string
}

// Daemon runs a daemon.Machine against Core and real adapters: one loop
// goroutine steps the machine and executes its effects; the transport,
// the native runner and timers feed it events through one inbox. No
// effect blocks the loop: frames are queued to the connection's writer,
// native calls run on their own goroutines, timers are clock timers.
type Daemon struct {
	cfg        Config
	clk        clock.Clock
	log        *slog.Logger
	inbox      chan any
	done       chan struct{} // closed when the loop stopped
	once       sync.Once
	stop       chan struct{} // closed by the first Shutdown
	stopOnce   sync.Once
	stopReason string          // written before stop closes
	lnk        *transport.Link // made by the first link(): bootstrap and Run share its Core URL rotation
	looping    atomic.Bool     // the loop runs (it answers queries)
	ready      atomic.Bool     // connected to Core and not shutting down
}

// New returns a Daemon for cfg.
func New(cfg Config) *Daemon {
	d := &Daemon{cfg: cfg, clk: cfg.Clock, log: cfg.Log, inbox: make(chan any, 256),
		done: make(chan struct{}), stop: make(chan struct{})}
	if d.clk == nil {
		d.clk = clock.New()
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.cfg.Grace <= 0 {
		d.cfg.Grace = ShutdownGrace
	}
	if d.cfg.Rand == nil {
		d.cfg.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	d.cfg.Metrics.attach(d)
	return d
}

// Ready reports whether the daemon holds an open connection to Core (its
// device registered: the credential and version were accepted) and is
// not shutting down.
func (d *Daemon) Ready() bool { return d.ready.Load() }

// ExecutorPhases counts the machine's executors by phase (the names of
// ExecutorPhases), read on the loop; before the loop runs (bootstrap
// still retrying) there are none.
func (d *Daemon) ExecutorPhases(ctx context.Context) (map[string]int, error) {
	if !d.looping.Load() {
		return map[string]int{}, nil
	}
	q := phaseQuery{reply: make(chan map[string]int, 1)}
	select {
	case d.inbox <- q:
	case <-d.done:
		return nil, ErrStopped
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-q.reply:
		return r, nil
	case <-d.done:
		return nil, ErrStopped
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Shutdown asks the machine to release everything and stop; safe from
// any goroutine, before or during Run, and a repeated call does nothing
// more. Before the first connection (bootstrap still retrying) it ends
// Run at once: nothing is owned yet.
func (d *Daemon) Shutdown(reason string) {
	d.stopOnce.Do(func() {
		d.stopReason = reason
		close(d.stop)
	})
}

// ErrStopped is returned by Owned once the loop has stopped.
var ErrStopped = errors.New("runner: daemon stopped")

// Owned returns what the machine owns now (executors, Turns, outstanding
// native calls), read on the loop.
func (d *Daemon) Owned(ctx context.Context) ([]daemon.Resource, error) {
	q := ownedQuery{reply: make(chan []daemon.Resource, 1)}
	select {
	case d.inbox <- q:
	case <-d.done:
		return nil, ErrStopped
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-q.reply:
		return r, nil
	case <-d.done:
		return nil, ErrStopped
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// push hands an event to the loop; it returns at once after the loop
// stopped.
func (d *Daemon) push(v any) {
	select {
	case d.inbox <- v:
	case <-d.done:
	}
}

// Inbox items besides daemon.Event.
type (
	connUp struct {
		gen  uint64
		conn *transport.Conn
	}
	connDown struct {
		gen uint64
		err error
	}
	linkEnded struct{ err error }
	timerDue  struct {
		id daemon.TimerID
		at time.Time
	}
	graceOver  struct{}
	ownedQuery struct{ reply chan []daemon.Resource }
	phaseQuery struct{ reply chan map[string]int }
)

// Run bootstraps, validates the machine's configuration, connects and
// runs until shutdown completes or its grace runs out (Result), a
// permanent transport failure stops it (a *transport.PermanentError,
// after the shutdown path released what it could), or ctx ends (a hard
// stop: ctx's error).
func (d *Daemon) Run(ctx context.Context) (Result, error) {
	bctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-d.stop:
			cancel()
		case <-bctx.Done():
		}
	}()
	b, err := d.bootstrap(bctx)
	cancel()
	if err != nil {
		select {
		case <-d.stop:
			if ctx.Err() == nil {
				return Result{Complete: true, Reason: d.stopReason}, nil
			}
		default:
		}
		return Result{}, err
	}
	mc := d.cfg.Machine
	if mc.HeartbeatInterval == 0 {
		mc.HeartbeatInterval = b.HeartbeatInterval()
	}
	if err := mc.Validate(); err != nil {
		return Result{}, err
	}
	offered := d.cfg.Client.Version
	if offered == "" {
		offered = wire.Version
	}
	if b.ProtocolVersion != "" && b.ProtocolVersion != offered {
		d.log.Warn("Core announces another protocol version; the upgrade will tell", "core", b.ProtocolVersion, "daemon", offered)
	}
	l := newLoop(d, daemon.New(mc))
	return l.run(ctx, b)
}

func (d *Daemon) bootstrap(ctx context.Context) (transport.Bootstrap, error) {
	if d.cfg.Bootstrap != nil {
		return *d.cfg.Bootstrap, nil
	}
	link := d.link()
	return link.Bootstrap(ctx)
}

// link is the daemon's one Link: the bootstrap and the connection loop
// (which run one after the other) share it, so a Core URL the bootstrap
// rotated to is where the loop starts.
func (d *Daemon) link() *transport.Link {
	if d.lnk != nil {
		return d.lnk
	}
	client := *d.cfg.Client
	if client.Clock == nil {
		client.Clock = d.clk // one clock for every timeout of the daemon
	}
	d.lnk = &transport.Link{Client: &client, Policy: d.cfg.Policy, Rand: d.cfg.Rand, Clock: d.clk, Log: d.log}
	return d.lnk
}

// handler adapts the link's callbacks to inbox items.
type handler struct{ d *Daemon }

func (h handler) Connected(gen uint64, c *transport.Conn) { h.d.push(connUp{gen: gen, conn: c}) }
func (h handler) Disconnected(gen uint64, err error)      { h.d.push(connDown{gen: gen, err: err}) }
func (h handler) Received(gen uint64, b []byte)           { h.d.push(decode(gen, b)) }

// decode turns one inbound frame into the machine's event.
func decode(gen uint64, b []byte) daemon.Event {
	f, err := wire.Decode(b)
	if err != nil {
		rej := daemon.FrameRejected{Conn: daemon.ConnID(gen), Err: err}
		var de *wire.DecodeError
		if errors.As(err, &de) {
			rej.Type, rej.ID = de.Type, de.ID
		}
		return rej
	}
	return daemon.FrameReceived{Conn: daemon.ConnID(gen), Frame: f}
}

func describeOwned(owned []daemon.Resource) string {
	if len(owned) == 0 {
		return "nothing"
	}
	s := ""
	for i, r := range owned {
		if i > 0 {
			s += " "
		}
		s += r.String()
	}
	return fmt.Sprintf("%d: %s", len(owned), s)
}
