package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// budgetRun opens conn 1 (latency 10 ms), sends one receipt from d1 at
// 100 ms and delivers it at deliverAt; closeAt > 0 has d1 close the
// connection then.
func budgetRun(deliverAt, closeAt int64) *Ledger {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 1, ReceiptSendBudget: 5 * time.Second})
	l.Wire(WireEvent{At: 10 * ms, Kind: WireOpened, Conn: 1, From: "d1", To: "core"})
	l.Wire(WireEvent{At: 20 * ms, Kind: WireOpened, Conn: 1, From: "core", To: "d1"})
	sent := wf(100*ms, WireSent, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "i1", Written: true})
	l.Wire(sent)
	if closeAt > 0 {
		l.Wire(WireEvent{At: closeAt, Kind: WireClosed, Conn: 1, From: "d1", To: "d1"})
	}
	got := sent
	got.Kind, got.At = WireDelivered, deliverAt
	l.Wire(got)
	return l
}

func TestReceiptWithinBudgetIsClean(t *testing.T) {
	only(t, budgetRun(100*ms+10*ms+5000*ms, 0), "", "")
}

func TestReceiptPastBudgetOnOpenConnection(t *testing.T) {
	only(t, budgetRun(8000*ms, 0), CheckReceiptBudget, "kept the connection open past 5.1s")
}

func TestReceiptPastBudgetAfterDaemonClosedIsClean(t *testing.T) {
	only(t, budgetRun(8000*ms, 5100*ms), "", "")
}

func TestReceiptPastBudgetClosedTooLate(t *testing.T) {
	only(t, budgetRun(8000*ms, 6000*ms), CheckReceiptBudget, "prompt_steer_ack r1")
}

func TestLostReceiptIsNotJudged(t *testing.T) {
	l := NewLedger()
	l.DeviceConfigured("d1", DeviceLimits{ReceiptSendBudget: time.Second})
	l.Wire(WireEvent{At: 10 * ms, Kind: WireOpened, Conn: 1, From: "d1", To: "core"})
	l.Wire(WireEvent{At: 20 * ms, Kind: WireOpened, Conn: 1, From: "core", To: "d1"})
	sent := wf(100*ms, WireSent, 1, "d1", "core", "r1", wire.PromptSteerAck{InputID: "i1"})
	l.Wire(sent)
	lost := sent
	lost.Kind, lost.At = WireLost, 9000*ms
	l.Wire(lost)
	only(t, l, "", "")
}
