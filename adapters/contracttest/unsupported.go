package contracttest

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// canary is submitted content that must never appear in a refusal reason;
// canaryAlt is the second content the fixed-reason comparison submits.
const (
	canary    = "contract-canary-5e1d"
	canaryAlt = "contract-canary-other-91b3"
)

// CheckUnsupported checks every extension interface (Contracts) on the
// Executor, on a Turn and, with Fixture.Preparations or a factory that
// also prepares, on a Prepared owner: each must be implemented explicitly;
// an operation the declaration leaves unsupported answers
// ErrUnsupportedOperation; a declared one never does; a refusal's reason
// is fixed (the same for other content), non-empty and never echoes the
// submitted content; a refusal has no native effect (Fixture.Effects); the
// Turn stays healthy and the required DurableSteerer is never refused as
// unsupported.
func CheckUnsupported(f agent.ExecutorFactory, fx Fixture) *Report {
	fx = fx.withDefaults()
	rep := newReport()
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return rep
	}
	checkOwner(rep, fx, OwnerExecutor, ex, "")
	if fx.Hold != nil {
		fx.Hold()
	}
	r := start(rep, fx, ex, "unsupported-1", fx.Input)
	if !r.started() {
		rep.fail(ClauseUnsupported, r.runID, "Turn did not start: %v", r.startErr)
		closeExecutor(rep, fx, ex)
		return rep
	}
	checkOwner(rep, fx, OwnerTurn, r.turn, r.runID)
	_, err := steer(fx, r, "durable-1", "steer")
	switch {
	case errors.Is(err, agent.ErrUnsupportedOperation):
		rep.fail(ClauseUnsupported, r.runID, "required DurableSteerer answered Unsupported")
	case err != nil && fx.Hold != nil:
		rep.fail(ClauseUnsupported, r.runID, "held Turn refused a durable input after the refusals: %v", err)
	}
	if fx.Hold != nil {
		cancelTurn(rep, fx, r)
	}
	settle(rep, fx, r)
	checkStream(rep, r, false)
	closeExecutor(rep, fx, ex)
	checkPrepared(rep, fx, f)
	return rep
}

func checkPrepared(rep *Report, fx Fixture, f agent.ExecutorFactory) {
	pf := fx.Preparations
	if pf == nil {
		pf, _ = f.(agent.PreparationFactory)
	}
	if pf == nil {
		return
	}
	cfg, done := withWorkspace(fx.Config)
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	p, err := pf.Prepare(ctx, cfg)
	cancel()
	if err != nil || p == nil {
		rep.fail(ClauseFixture, "Prepare", "%v", err)
		return
	}
	checkOwner(rep, fx, OwnerPrepared, p, "")
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
		err := p.Release(ctx)
		cancel()
		rep.exercise(ClauseClose)
		if err != nil {
			rep.fail(ClauseClose, "Prepared.Release", "%v (Release is idempotent after success)", err)
		}
	}
}

// checkOwner calls every extension the owner must implement.
func checkOwner(rep *Report, fx Fixture, owner Owner, v any, runID string) {
	for _, c := range ownedBy(owner, true) {
		step := string(owner) + "." + c.Interface
		rep.exercise(ClauseUnsupported)
		if !c.Implemented(v) {
			rep.fail(ClauseUnsupported, step, "%s does not implement agent.%s: implement it or refuse it explicitly", owner, c.Interface)
			continue
		}
		declared := wire.CapabilityUnspecified
		if c.Capability != nil {
			declared = c.Capability(fx.Capabilities)
		}
		before := effects(fx)
		err := call(fx, c, v, runID, canary)
		if !errors.Is(err, agent.ErrUnsupportedOperation) {
			if declared == wire.CapabilityUnsupported {
				rep.fail(ClauseUnsupported, step, "the declaration leaves it unsupported but it answered %v, not ErrUnsupportedOperation", err)
			}
			if declared.IsSupported() && c.Identity && owner == OwnerTurn {
				checkUnknownIdentity(rep, step, err)
			}
			continue
		}
		if declared.IsSupported() {
			rep.fail(ClauseDeclaration, step, "declared supported but answered Unsupported")
		}
		msg := err.Error()
		if strings.Contains(msg, canary) {
			rep.fail(ClauseUnsupported, step, "refusal reason echoes submitted content")
		}
		if strings.TrimSpace(strings.TrimPrefix(msg, agent.ErrUnsupportedOperation.Error())) == "" {
			rep.fail(ClauseUnsupported, step, "refusal carries no reason")
		}
		if effects(fx) != before {
			rep.fail(ClauseUnsupported, step, "answered Unsupported but had a native effect")
		}
		if again := call(fx, c, v, runID, canaryAlt); again == nil || again.Error() != msg {
			rep.fail(ClauseUnsupported, step, "refusal reason is not fixed: other content gave %v", again)
		}
	}
}

// call runs one extension operation, then lets any effect it had land
// before the next fingerprint.
func call(fx Fixture, c Contract, v any, runID, content string) error {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	err := c.Call(ctx, v, runID, content)
	cancel()
	timer := time.NewTimer(fx.Window)
	<-timer.C
	return err
}

// checkUnknownIdentity: a declared operation named a call or interaction
// this fresh Turn never emitted; only ErrNotPending is right.
func checkUnknownIdentity(rep *Report, step string, err error) {
	rep.exercise(ClauseFreshTurnState)
	switch {
	case err == nil:
		rep.fail(ClauseFreshTurnState, step, "accepted an answer for an identity this Turn never emitted (state of another Turn, or an invented identity)")
	case !errors.Is(err, agent.ErrNotPending):
		rep.fail(ClauseFreshTurnState, step, "an identity this Turn never emitted answered %v, want ErrNotPending", err)
	}
}
