package adaptertest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	dmachine "github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/daemon/transport"
)

// seedFlag replays a reported seed: go test -run TestAgainstSimulatedCore -adaptertest.seed=N
var seedFlag = flag.Uint64("adaptertest.seed", 0, "replay this seed in RunAgainstSimulatedCore (0: Options.Seed, else a fresh one)")

// Options shape one run against the simulated Core. Zero fields take
// defaults.
type Options struct {
	// Seed draws the workload and the faults; 0 draws a fresh seed (the
	// run prints it either way).
	Seed uint64
	// Steps is the number of workload steps (default 40).
	Steps int
	// Sessions is the number of Sessions the workload drives (default 2).
	Sessions int
	// Profile is handed to the declaration's Discover.
	Profile map[string]string
	// Model is the Sessions' model (default "simulated-model").
	Model string
	// NoFaults turns connection cuts and Core restarts off.
	NoFaults bool
	// BeforeTurn, when set, is called with the workload's source before
	// each Turn is submitted, to script the native fixture (for example a
	// slow or held Turn). It must draw only from r to keep the seed
	// meaningful.
	BeforeTurn func(r *rand.Rand)
	// Deadline bounds the wait for every Turn to end after the workload
	// (default 5 minutes of virtual time).
	Deadline time.Duration
	// Log, when set, receives the daemon's and Core's logs.
	Log io.Writer
	// NotApplicable marks clauses, by check name (the Check constants
	// and the sim/check names of the clause table), that cannot apply to
	// this adapter, each with the reason the report prints. Every other
	// clause exercised zero times fails: a run that started no Run, or
	// never steered, proves nothing about those clauses.
	NotApplicable map[string]string
	// Policy is the Core qualification the simulated Core uses (default:
	// an open test profile qualifying the declaration's kind, so the run
	// tests the adapter, not the service qualification). Set it to hold
	// the adapter against a real Core profile.
	Policy *engine.Policy
}

func (o Options) withDefaults() Options {
	if *seedFlag != 0 {
		o.Seed = *seedFlag
	}
	if o.Seed == 0 {
		o.Seed = rand.Uint64() | 1
	}
	if o.Steps <= 0 {
		o.Steps = 40
	}
	if o.Sessions <= 0 {
		o.Sessions = 2
	}
	if o.Model == "" {
		o.Model = "simulated-model"
	}
	if o.Deadline <= 0 {
		o.Deadline = 5 * time.Minute
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// RunAgainstSimulatedCore runs the real daemon shell (daemon/runner over
// daemon/transport) with the declaration's adapter against the simulated
// Core, inside a testing/synctest bubble, and fails t with one line per
// failing clause. It logs the seed first and the per-clause report last.
func RunAgainstSimulatedCore(t *testing.T, d agent.Declaration, opts Options) *Report {
	t.Helper()
	var rep *Report
	synctest.Test(t, func(t *testing.T) {
		var err error
		rep, err = Simulate(d, opts, t.Logf)
		if err != nil {
			t.Errorf("adaptertest: %v", err)
		}
		if rep == nil {
			return
		}
		if rep.Failed() {
			hint := ""
			if len(rep.Unexercised()) > 0 {
				hint = "a clause that cannot apply to this adapter is marked in Options.NotApplicable with a reason\n"
			}
			t.Errorf("adaptertest: seed %d (replay: -adaptertest.seed=%d) broke clauses:\n%s%s\nper clause:\n%s",
				rep.Seed, rep.Seed, rep.Failures(), hint, rep)
			return
		}
		t.Logf("adaptertest: per clause:\n%s", rep)
	})
	return rep
}

// Simulate is RunAgainstSimulatedCore without the testing.T: it must be
// called inside a testing/synctest bubble. logf (may be nil) sees the seed
// before anything runs. The error reports a run that could not be set up
// or torn down; clause failures are in the Report.
func Simulate(d agent.Declaration, opts Options, logf func(string, ...any)) (*Report, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	logf("adaptertest: seed %d (replay with -adaptertest.seed=%d or Options.Seed)", opts.Seed, opts.Seed)
	const device = "adaptertest-device"
	rep := &Report{Seed: opts.Seed}
	rec := newRecorder(device, rep)
	reg, kinds, err := runner.Install(context.Background(), []agent.Declaration{observedDeclaration(d, rec)},
		nil, opts.Profile, opts.Log)
	if err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	rec.installed = reg.Kinds()
	// By default the simulated Core qualifies the adapter's kind with the
	// open profile: this kit tests the adapter, not the service
	// qualification.
	policy := opts.Policy
	if policy == nil {
		policy = enginetest.OpenPolicy(d.Kind)
	}
	c, err := newSimCore(device, policy)
	if err != nil {
		return nil, err
	}
	relayNet := &pipeNet{}
	rl := newRelay(c.net, rec.wire)
	rs := serve(relayNet, rl)
	log := slog.New(slog.NewTextHandler(opts.Log, nil))
	dm := runner.New(runner.Config{
		Machine:   dmachine.Config{Kinds: kinds, DaemonVersion: "adaptertest"},
		Executors: reg,
		Client:    &transport.Client{CoreURL: coreURL, DeviceID: device, Credential: credential, HTTP: relayNet.client()},
		Bootstrap: &transport.Bootstrap{DeviceID: device, WSURL: "ws://core.adaptertest/api/v1/agent-daemon/ws", HeartbeatSeconds: 15},
		Policy:    transport.Policy{Base: 500 * time.Millisecond, Max: 4 * time.Second},
		Rand:      rand.New(rand.NewPCG(opts.Seed, 2)),
		Log:       log,
		OnReport:  func(r dmachine.Report) { rec.shutdownReported(r.Complete, len(r.Owned)) },
	})
	ended := make(chan runEnd, 1)
	go func() {
		r, err := dm.Run(context.Background())
		ended <- runEnd{r, err}
	}()
	w := &workload{opts: opts, r: rand.New(rand.NewPCG(opts.Seed, 1)), core: c, relay: rl, rec: rec, last: map[string]string{}}
	werr := w.run()
	rep.Steps = opts.Steps
	dm.Shutdown("adaptertest finished")
	end := <-ended
	rec.judgeShutdown(end.result, end.err)
	rl.cut()
	_ = rs.Close()
	rl.wait()
	cerr := c.shutdown()
	rec.mu.Lock()
	rep.judgeExercised(opts.NotApplicable)
	rec.mu.Unlock()
	return rep, errors.Join(werr, cerr)
}

// ErrOptions is wrapped by Simulate's error for invalid Options.
var ErrOptions = errors.New("adaptertest: invalid options")

// validate rejects a NotApplicable mark naming no clause or giving no
// reason.
func (o Options) validate() error {
	for _, chk := range sortedKeys(o.NotApplicable) {
		if !judged(chk) {
			return fmt.Errorf("%w: NotApplicable names %q, which is not a clause of this kit", ErrOptions, chk)
		}
		if strings.TrimSpace(o.NotApplicable[chk]) == "" {
			return fmt.Errorf("%w: NotApplicable marks %q without a reason", ErrOptions, chk)
		}
	}
	return nil
}

type runEnd struct {
	result runner.Result
	err    error
}
