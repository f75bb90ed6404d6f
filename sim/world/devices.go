package world

import (
	"fmt"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
	"github.com/turnstile-sim/turnstile/wire"
)

// newDevice builds device i: its daemon configuration and the shared
// Harness's behaviour, with the world's observer and ground-truth recorder.
func (u *universe) newDevice(i int, cfg daemon.Config, hcfg harness.Config) *harness.Device {
	d := harness.NewDevice(u.w, deviceID(i), coreID, cfg, hcfg)
	o := &devObserver{u: u, d: d}
	d.Observer, d.Recorder = o, ledgerRecorder{u: u}
	if u.native == nil {
		u.native = harness.NewNativeHistory()
	}
	d.Native = u.native
	if u.workspaces == nil {
		u.workspaces = harness.NewWorkspaces(u.w)
	}
	d.Workspaces = u.workspaces
	d.Decode, d.Encode = u.decodeDelivered, u.encodeDaemonFrame
	return d
}

// devObserver feeds the ledger from one device's daemon machine.
type devObserver struct {
	u *universe
	d *harness.Device
	// usageSeen: native Turns that emitted a usage snapshot (looked up,
	// never ranged).
	usageSeen map[daemon.TurnID]bool
}

func (o *devObserver) DaemonEvent(now time.Time, ev daemon.Event) { o.observeNative(now, ev) }

func (o *devObserver) DaemonEffect(now time.Time, e daemon.Effect) {
	switch e := e.(type) {
	case daemon.Send:
		o.observeBudget(now, e)
		o.observeSend(now, e)
	case daemon.Report:
		o.observeReport(now, e)
	}
}

func (o *devObserver) ShellError(_ time.Time, msg string) { o.u.fail(checkWire, "%s", msg) }

// MachinePanicked reports a daemon's failed assertion as the seed's
// failure, check panic (see universe.machinePanicked).
func (o *devObserver) MachinePanicked(_ time.Time, p daemon.StepPanic) {
	o.u.machinePanicked(p.Completed, fmt.Sprintf("%s: %v", o.d.ID, p.Value))
}

// observeSend records what a daemon sends: handles granted, started,
// released and expired; receipts; cancel receipts; done, error and usage.
func (o *devObserver) observeSend(now time.Time, e daemon.Send) {
	u := o.u
	at := u.lt(now)
	conn := connName(e.Conn)
	switch p := e.Frame.Payload.(type) {
	case wire.PreparationStatus:
		o.observeStatus(at, conn, p)
	case wire.PromptSteerAck:
		if st := p.Stage(); st == check.StageWritten || st == check.StageAccepted {
			u.led.ReceiptSent(at, e.Frame.ID, p.InputID, st)
			u.count("ReceiptSent")
		}
	case wire.InteractionDecisionAck:
		if u.led.IsDecisionDelivery(p.DeliveryID) {
			break // a decision's receipt, judged from the wire
		}
		u.led.CancelAckSent(at, e.Frame.ID, p.Applied)
		u.count("CancelAckSent")
		if p.Outcome != nil && p.Outcome.Usage != nil {
			u.led.UsageSent(at, e.Frame.ID, check.UsageFromWire(p.Outcome.Usage))
			u.count("UsageSent")
		}
	case wire.Done:
		u.led.TerminalSent(at, check.TerminalDone, e.Frame.ID)
		u.count("DoneSent")
		if p.Usage != nil {
			u.led.UsageSent(at, e.Frame.ID, check.UsageFromWire(p.Usage))
			u.count("UsageSent")
		}
	case wire.RunError:
		u.led.TerminalSent(at, check.TerminalError, e.Frame.ID)
		u.count("ErrorSent")
	case wire.UsageUpdate:
		u.led.UsageSent(at, e.Frame.ID, check.UsageFromWire(&p.Usage))
		u.count("UsageSent")
	}
}

func (o *devObserver) observeStatus(at int64, conn string, st wire.PreparationStatus) {
	u := o.u
	if st.Handle == "" {
		return
	}
	// A repeated request with identical content republishes the current
	// status (same revision): it records nothing new.
	k := conn + "/" + st.Handle
	if st.State != wire.StateRejected {
		if st.Revision <= u.statusRev[k] {
			return
		}
		u.statusRev[k] = st.Revision
	}
	if st.Revision == 1 {
		// Revision 1 is sent in the step that grants the handle, so the
		// deadline is that instant plus the device's configured expiry, in
		// virtual time. Neither the wire's expires_at (the daemon's wall
		// clock, which daemon_clock_jump moves) nor the machine's own
		// deadline (what is being checked) can move it.
		expires := at + int64(documentedLimits(o.d.Daemon.Limits).AdmissionExpiry)
		u.led.HandleGranted(at, conn, st.Handle, expires)
		u.count("HandleGranted")
	}
	switch st.State {
	case wire.StateStarting:
		u.led.HandleStarted(at, conn, st.Handle, st.RunID)
		u.count("HandleStarted")
	case wire.StateReleased, wire.StateFailed:
		u.led.HandleEnded(at, conn, st.Handle, check.HandleReleased)
		u.count("HandleReleased")
	case wire.StateExpired:
		u.led.HandleEnded(at, conn, st.Handle, check.HandleExpired)
		u.count("HandleExpired")
		if st.RunID == "" {
			u.mark(check.MarkAdmissionExpiredBeforeStart)
		}
	}
}

// DaemonStepped is not used: capacity is judged from the daemon's statuses
// on the wire and the Harness's ground truth, never from the machine's own
// accounting.
func (o *devObserver) DaemonStepped(time.Time, *daemon.Machine) {}

// ledgerRecorder records the Harness's ground truth in the ledger (and,
// for tests only, lies about it as Config.breakTruth asks).
type ledgerRecorder struct{ u *universe }

func (r ledgerRecorder) ExecutorCreated(at int64, device, executor string) {
	r.u.led.ExecutorCreated(at, device, executor)
	r.u.count("ExecutorCreated")
}

func (r ledgerRecorder) ExecutorClosed(at int64, device, executor string) {
	r.u.led.ExecutorClosed(at, device, executor)
	r.u.count("ExecutorClosed")
}

func (r ledgerRecorder) TurnCreated(at int64, device, run string) {
	r.u.led.TurnCreated(at, device, run)
	r.u.count("TurnCreated")
}

func (r ledgerRecorder) InputApplied(at int64, run, input string) {
	if r.u.cfg.breakTruth == truthForgetApplied {
		return
	}
	r.u.led.InputApplied(at, run, input)
	r.u.count("InputApplied")
}

func (r ledgerRecorder) TurnSettled(at int64, run, outcome string) {
	if outcome == check.NativeCompleted && r.u.cfg.breakTruth == truthCompletedAsCancelled {
		outcome = check.NativeCancelled
	}
	r.u.led.TurnSettled(at, run, outcome)
	r.u.count("TurnSettled")
}

func (r ledgerRecorder) ExecutorRetired(at int64, device, run, executor string) {
	r.u.led.ExecutorRetired(at, device, run, executor)
	r.u.count("ExecutorRetired")
}

func (r ledgerRecorder) CloseRequested(at int64, device, executor string) {
	r.u.led.CloseRequested(at, device, executor)
	r.u.count("CloseRequested")
}

func (r ledgerRecorder) CloseRetried(int64, string, string) { r.u.mark(check.MarkCleanupRetried) }

func (u *universe) deviceByID(id sim.NodeID) *harness.Device {
	for _, d := range u.devices {
		if d.ID == id {
			return d
		}
	}
	return nil
}

// TransferInstalled only counts the answer: TransferInstallOutcome, made
// at the same instant, hands the ledger whether anything was installed.
func (r ledgerRecorder) TransferInstalled(at int64, device, transfer, action string, installed bool) {
	r.u.count("TransferInstalled")
}

func (r ledgerRecorder) TransferInstallOutcome(at int64, device, transfer, outcome string, exit int, hasBody bool, staged, declared int64) {
	r.u.led.TransferInstallOutcome(at, device, transfer, outcome, exit, hasBody, staged, declared)
}

func (r ledgerRecorder) StageCalled(at int64, device, transfer string, offset, size, staged int64) {
	r.u.led.StageCalled(at, device, transfer, offset, size, staged)
}

func (r ledgerRecorder) InstallBegan(at int64, device, transfer string) {
	r.u.led.InstallBegan(at, device, transfer)
}

func (r ledgerRecorder) NativePrepareCalled(at int64, device, executor string) {
	r.u.led.NativePrepareCalled(at, device, executor)
}

func (r ledgerRecorder) NativePrepareFailed(at int64, device, executor string) {
	r.u.led.NativePrepareFailed(at, device, executor)
}

// NativeSubagentUnasked records a subagent observation the Harness
// emitted for a Turn that did not ask for them.
func (r ledgerRecorder) NativeSubagentUnasked(at int64, device, run string, p wire.Payload) {
	r.u.led.NativeSubagentUnasked(at, run, p)
	r.u.count("NativeSubagentUnasked")
}

// NativeSubagent records a subagent observation the Harness emitted.
func (r ledgerRecorder) NativeSubagent(at int64, device, run string, p wire.Payload) {
	r.u.led.NativeSubagent(at, run, p)
	r.u.count("NativeSubagent")
}
