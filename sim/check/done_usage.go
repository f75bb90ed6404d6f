package check

import "github.com/turnstile-sim/turnstile/wire"

// CheckDoneUsage is rule done_usage (Rules), judged from the Harness's
// ground truth (NativeDone) and the done frames daemons send.
const CheckDoneUsage = "done_usage"

// nativeCalls is the Harness's ground truth of native starts and dones,
// by Run, and of failed closes.
type nativeCalls struct {
	dones         map[string]nativeDone
	startAnswered map[string]int64
	closeFailed   map[string]int64 // device\x00executor: its latest failed close
}

type nativeDone struct {
	at    int64
	usage *UsageSnapshot // nil: the native done carried no usage
}

// NativeDone records the native terminal result of run as the Harness of
// device emitted it, with its usage (nil when it carried none).
func (l *Ledger) NativeDone(at int64, device, run string, usage *wire.Usage) {
	d := nativeDone{at: at}
	if usage != nil {
		s := UsageFromWire(usage)
		d.usage = &s
	}
	made(&l.native.dones)[run] = d
}

// StartAnswered records the instant the native start call of run returned
// to the daemon of device (with or without a Turn).
func (l *Ledger) StartAnswered(at int64, device, run string) {
	keepFirst(made(&l.native.startAnswered), run, at)
}

// CloseFailed records a failed native close of executor on device.
func (l *Ledger) CloseFailed(at int64, device, executor string) {
	made(&l.native.closeFailed)[pairKey(device, executor)] = at
}

func (l *Ledger) observeDoneUsage(ev WireEvent) {
	done, ok := ev.Frame.Payload.(wire.Done) // none when the frame did not decode
	if ev.Kind != WireSent || ev.Hostile() || ev.To != CoreNode || !ok {
		return
	}
	nd, ok := l.native.dones[ev.Frame.ID]
	if !ok || nd.usage == nil {
		return
	}
	if done.Usage == nil {
		l.violate(ev.At, CheckDoneUsage, "%s sent done for %s without usage; the native done (at %s) carried %+v",
			ev.From, ev.Frame.ID, vtime(nd.at), *nd.usage)
		return
	}
	if got := UsageFromWire(done.Usage); got != *nd.usage {
		l.violate(ev.At, CheckDoneUsage, "%s sent done for %s with usage %+v; the native done (at %s) carried %+v",
			ev.From, ev.Frame.ID, got, vtime(nd.at), *nd.usage)
	}
}
