package world

import (
	"bytes"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// receiptReplay is a hostile middle drawn in a third of the seeds with
// faults, for the whole run: behind every `written` receipt of input k
// that a device sends Core, it replays the latest accepting receipt of
// the same Run for another input — what a middle replaying a stream shows
// while input k is at the cursor. Drawn from its own stream; it draws
// nothing else.
type receiptReplay struct {
	// accepted is the latest accepting receipt of each connection and Run
	// ("conn/run"); looked up, never ranged.
	accepted map[string]acceptedAck
}

// acceptedAck is the latest accepting receipt of a Run.
type acceptedAck struct {
	input string
	frame []byte
}

func (u *universe) drawReceiptReplay() {
	if u.w.Rand("receipt-replay").IntN(3) != 0 || u.faultFree() {
		return
	}
	u.proj.replay = &receiptReplay{accepted: map[string]acceptedAck{}}
}

// tapReceiptReplay watches the receipts devices send Core.
func (u *universe) tapReceiptReplay(ev sim.TapEvent) {
	rp := u.proj.replay
	if rp == nil || ev.Kind != sim.TapSent || ev.Forged || ev.To != coreID ||
		!bytes.HasPrefix(ev.Frame, []byte(`{"type":"prompt_steer_ack"`)) {
		return
	}
	f, err := u.decode(ev.Frame)
	if err != nil {
		return
	}
	ack, ok := f.Payload.(wire.PromptSteerAck)
	if !ok || ack.InputID == "" {
		return
	}
	k := connName(ev.Conn) + "/" + f.ID
	prev, had := rp.accepted[k]
	switch {
	case ack.Accepted:
		rp.accepted[k] = acceptedAck{input: ack.InputID, frame: ev.Frame}
	case ack.Written && had && prev.input != ack.InputID:
		conn, from, old := ev.Conn, ev.From, prev.frame
		u.w.After(0, "", func() {
			if u.w.Forge(conn, from, old) {
				u.mark(check.MarkEarlierReceiptReplayed)
			}
		})
	}
}
