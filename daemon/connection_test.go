package daemon

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestDisconnectRetiresRoutesAndSettlesNativeWork(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.recv("run1", steer("1", "a"))
	w, _ := callOf[DurableWrite](r)
	r.step(ConnClosed{Conn: 1})
	_, cop := callOf[Cancel](r)
	require.Equal(t, turn, cop.Turn, "native turn cancelled on transport loss")
	sc, _ := callOf[AwaitSettlement](r)
	r.connect()
	require.Equal(t, "heartbeat", frameTypes(r.sent()), "reconnect replays nothing")
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "old"}})
	require.Empty(t, r.sent(), "old output never reaches the successor")
	r.result(w, WriteResult{Outcome: WriteWritten})
	require.Empty(t, r.sent(), "old receipts never reach the successor")
	r.recv("run1", wire.PromptCancel{DeliveryID: "d"})
	a := cancelAcks(r)
	require.Truef(t, len(a) == 1 && a[0].ErrorCode == CodeRunInactive, "old run unknown on the new connection")
	noCall[Cancel](r)
	r.result(sc, SettleResult{Settled: true, Reusable: true})
	require.Empty(t, r.sent(), "no done on the successor")
	ex := r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].Phase == "closing", "a reusable executor of the old connection is closed, not parked: %+v", ex)
	cc, cl := callOf[CloseExecutor](r)
	require.Equal(t, "ex-1", cl.Executor, "old connection's executor closed")
	require.Empty(t, r.m.Snapshot().Turns, "turn settled")
	r.result(cc, CloseResult{})
	// The same run ID is free on the new connection, on a new executor.
	r.started("p1", "s1", "run1")
	ex = r.m.Snapshot().Executors
	require.Truef(t, len(ex) == 1 && ex[0].ID == "ex-2" && ex[0].Phase == "busy", "a new executor: %+v", ex)
}

func TestStartResultAfterDisconnect(t *testing.T) {
	r := newRig(t)
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	c, _ := callOf[StartTurn](r)
	r.step(ConnClosed{Conn: 1})
	r.result(c, StartResult{Turn: true})
	require.Empty(t, r.sent(), "nothing sent")
	callOf[Cancel](r)
	callOf[AwaitSettlement](r)
}

func TestReplacementConnectionClosesOld(t *testing.T) {
	r := newRig(t)
	r.ready("p1", "s1")
	r.connect()
	var closed []CloseConn
	for _, e := range r.out {
		if c, ok := e.(CloseConn); ok {
			closed = append(closed, c)
		}
	}
	require.Truef(t, len(closed) == 1 && closed[0].Conn == 1, "old transport closed: %s", describeAll(r.out))
	require.Empty(t, r.m.Snapshot().Admissions, "no records inherited")
	r.step(FrameReceived{Conn: 1, Frame: wire.Frame{ID: "p9", Payload: prepareFor("s9")}})
	require.Empty(t, r.out, "frames of the old connection are ignored")
	r.step(ConnOpened{Conn: 1})
	require.Empty(t, r.out, "stale generation ignored")
}

func TestFrameRejectedAnswersControlOperations(t *testing.T) {
	r := newRig(t)
	for typ, code := range map[string]string{
		wire.TypeExecutionPrepare: CodeInvalidRequest,
		wire.TypeExecutionStart:   CodeInvalidStart,
		wire.TypeExecutionRelease: CodeInvalidRelease,
	} {
		r.step(FrameRejected{Conn: 1, Type: typ, ID: "p1"})
		st := oneStatus(r)
		require.Equal(t, code, st.ErrorCode, typ)
		require.Equal(t, typ, st.Operation, "operation")
	}
	r.step(FrameRejected{Conn: 1, Type: wire.TypePromptCancel, ID: "run"})
	require.Empty(t, r.out, "other frames have no effect")
}

// TestUndecodableSteerIsRefusedAsInvalidInput: a prompt_steer whose payload
// does not decode gets an invalid_input receipt on its Run ID, with no
// input_id (nothing of the payload is trusted) and no native write; one
// without a Run ID has nothing to answer on.
func TestUndecodableSteerIsRefusedAsInvalidInput(t *testing.T) {
	r := newRig(t)
	r.step(FrameRejected{Conn: 1, Type: wire.TypePromptSteer, ID: "run", Err: errors.New("bad input")})
	require.Truef(t, len(r.out) == 1, "one receipt: %s", describeAll(r.out))
	s, ok := r.out[0].(Send)
	require.Truef(t, ok && s.Frame.ID == "run", "receipt on the Run ID: %s", describeAll(r.out))
	ack, ok := s.Frame.Payload.(wire.PromptSteerAck)
	require.Truef(t, ok && ack.ErrorCode == CodeInvalidInput && ack.InputID == "" && !ack.Accepted && !ack.Written,
		"invalid_input receipt without input_id: %s", describeAll(r.out))

	require.Empty(t, r.calls(), "no native call")
	r.step(FrameRejected{Conn: 1, Type: wire.TypePromptSteer, Err: errors.New("bad input")})
	require.Empty(t, r.out, "no Run ID: no answer")
	r.step(FrameRejected{Conn: 7, Type: wire.TypePromptSteer, ID: "run", Err: errors.New("bad input")})
	require.Empty(t, r.out, "another connection's frame: no answer")
}

func TestShutdownClosesEverythingAndReports(t *testing.T) {
	r := newRig(t)
	idle := r.ready("pa", "sa")
	r.recv("pa", wire.ExecutionRelease{Handle: idle.Handle})
	ready := r.ready("pb", "sb")
	turn := r.started("pc", "sc", "runC")
	r.step(ShutdownRequested{Reason: "stop"})
	sts := statuses(r)
	require.Truef(t, len(sts) == 1 && sts[0].State == wire.StateReleased && sts[0].Handle == ready.Handle, "ready admission released: %s", describeAll(r.out))
	var closes []string
	for _, c := range r.calls() {
		if op, ok := c.Op.(CloseExecutor); ok {
			closes = append(closes, op.Executor)
		}
	}
	require.Truef(t, len(closes) == 2, "idle executors closed: %v", closes)
	cc, _ := callOf[Cancel](r)
	sc, _ := callOf[AwaitSettlement](r)
	var rep *Report
	for _, e := range r.out {
		if v, ok := e.(Report); ok {
			rep = &v
		}
	}
	require.Truef(t, rep != nil && !rep.Complete && len(rep.Owned) > 0, "report of owned resources")
	r.recv("pd", prepareFor("sd"))
	require.Equal(t, CodeResourceUnavailable, oneStatus(r).ErrorCode, "no admission while shutting down")
	// Fail one close; the target is kept and retried serially.
	var closeCalls []CallID
	for _, e := range r.all {
		if c, ok := e.(NativeCall); ok {
			if _, ok := c.Op.(CloseExecutor); ok {
				closeCalls = append(closeCalls, c.Call)
			}
		}
	}
	r.result(closeCalls[0], CloseResult{Err: "busy"})
	r.result(closeCalls[1], CloseResult{})
	r.result(cc, CancelResult{})
	r.result(sc, SettleResult{Settled: true, Reusable: true})
	require.Equal(t, "error,done", frameTypes(r.sent()), "the interrupted turn ends with error then done, never a plain done")
	last, _ := callOf[CloseExecutor](r) // finished executor closed, not parked
	r.result(last, CloseResult{})
	owned := r.m.Owned()
	require.Truef(t, len(owned) == 1 && owned[0].Kind == "executor" && owned[0].State == "closing,close-failed", "failed target kept: %v", owned)
	r.fire(closeRetryTimer(owned[0].ID))
	c, _ := callOf[CloseExecutor](r)
	r.result(c, CloseResult{})
	var final Report
	for _, e := range r.out {
		if v, ok := e.(Report); ok {
			final = v
		}
	}
	require.Truef(t, final.Complete && len(final.Owned) == 0, "complete report: %+v", final)
	_ = turn
}

func TestTimeMustNotGoBackwards(t *testing.T) {
	r := newRig(t)
	defer func() {
		require.Truef(t, recover() != nil, "assertion panics")
	}()
	r.m.Step(t0.Add(-1), ConnOpened{Conn: 9})
}

func TestConfigValidate(t *testing.T) {
	cfg := testConfig()
	require.Truef(t, cfg.Validate() == nil, "default config valid")
	bad := testConfig()
	bad.Kinds[0].Capabilities.Usage = wire.CapabilityUnspecified
	require.Truef(t, bad.Validate() != nil, "incomplete capabilities rejected")
	dup := testConfig()
	dup.Kinds = append(dup.Kinds, dup.Kinds[0])
	require.Truef(t, dup.Validate() != nil, "duplicate kind rejected")
	small := testConfig()
	small.Limits.ExecutorsMax = 2
	require.Truef(t, small.Validate() != nil, "executors below active rejected")
	d := testConfig().WithDefaults().Limits
	require.Equal(t, DefaultLimits(), d, "defaults")
}

func TestMismatchedNativeResultPanics(t *testing.T) {
	r := newRig(t)
	r.recv("p1", prepareFor("s1"))
	c, _ := callOf[Prepare](r)
	defer func() {
		require.Truef(t, recover() != nil, "a start result for a prepare call must not read as success")
	}()
	r.result(c, StartResult{Turn: true})
}

func TestUnknownNativeResultIgnored(t *testing.T) {
	r := newRig(t)
	r.result("c-99", CloseResult{})
	require.Empty(t, r.out, "no effect")
}
