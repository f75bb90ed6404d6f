package check

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// UsageSnapshot is a comparable cumulative usage measurement.
type UsageSnapshot wire.TokenUsage

// UsageFromWire converts a wire usage snapshot; unknown members count as 0.
func UsageFromWire(u *wire.Usage) UsageSnapshot {
	var s UsageSnapshot
	if u == nil {
		return s
	}
	if u.Tokens != nil {
		return UsageSnapshot(*u.Tokens)
	}
	if u.InputTokens != nil {
		s.InputTokens = int64(*u.InputTokens)
	}
	if u.OutputTokens != nil {
		s.OutputTokens = int64(*u.OutputTokens)
	}
	s.TotalTokens = s.InputTokens + s.OutputTokens
	return s
}

func (u UsageSnapshot) add(o UsageSnapshot) UsageSnapshot {
	return UsageSnapshot{
		InputTokens:           u.InputTokens + o.InputTokens,
		CachedInputTokens:     u.CachedInputTokens + o.CachedInputTokens,
		OutputTokens:          u.OutputTokens + o.OutputTokens,
		ReasoningOutputTokens: u.ReasoningOutputTokens + o.ReasoningOutputTokens,
		TotalTokens:           u.TotalTokens + o.TotalTokens,
	}
}

func (u UsageSnapshot) String() string {
	return fmt.Sprintf("{in=%d cached=%d out=%d reasoning=%d total=%d}",
		u.InputTokens, u.CachedInputTokens, u.OutputTokens, u.ReasoningOutputTokens, u.TotalTokens)
}

type handleRec struct {
	run       string
	started   bool
	ended     HandleEnd
	expiresAt int64 // 0: no deadline known
}

type daemonState struct {
	handles   map[string]*handleRec  // conn\x00handle
	grantedOn map[string][]string    // handle → conns that granted it
	streams   map[string]*coreStream // conn\x00request → Core's status stream (stale_status.go)
	sent      map[string]bool        // Terminal or "cancel" \x00 run: a daemon sent done, error, an applied cancel receipt
	usageSent map[string][]UsageSnapshot
}

// HandleGranted records a daemon granting an admission handle on conn
// that expires at expiresAt (virtual time; 0 when unknown), derived from
// the grant instant, never from the wire's expires_at (the daemon's wall
// clock, which may have jumped).
func (l *Ledger) HandleGranted(at int64, conn, handle string, expiresAt int64) {
	k := pairKey(conn, handle)
	if l.daemon.handles[k] != nil {
		l.violate(at, CheckHandleReuse, "handle %s granted twice on conn %s", handle, conn)
		return
	}
	made(&l.daemon.handles)[k] = &handleRec{expiresAt: expiresAt}
	made(&l.daemon.grantedOn)[handle] = append(l.daemon.grantedOn[handle], conn)
}

// HandleStarted records a daemon transferring a handle to run (handle_reuse).
func (l *Ledger) HandleStarted(at int64, conn, handle, run string) {
	h := l.daemon.handles[pairKey(conn, handle)]
	switch {
	case h == nil && len(l.daemon.grantedOn[handle]) > 0:
		l.violate(at, CheckHandleReuse, "handle %s started run %s on conn %s but was granted on conn %s",
			handle, run, conn, l.daemon.grantedOn[handle][0])
	case h == nil:
		l.violate(at, CheckHandleReuse, "handle %s started run %s on conn %s but was never granted", handle, run, conn)
	case h.started:
		l.violate(at, CheckHandleReuse, "handle %s on conn %s started run %s after already starting run %s", handle, conn, run, h.run)
	case h.ended != "":
		l.violate(at, CheckHandleReuse, "handle %s on conn %s started run %s after it was %s", handle, conn, run, h.ended)
	case h.expiresAt != 0 && at >= h.expiresAt:
		l.violate(at, CheckHandleReuse, "handle %s on conn %s started run %s at %s, after its admission expired at %s",
			handle, conn, run, vtime(at), vtime(h.expiresAt))
	default:
		h.started, h.run = true, run
	}
}

// HandleEnd is how an admission handle ended.
type HandleEnd string

const (
	HandleReleased HandleEnd = "released" // the daemon released it (or its preparation failed)
	HandleExpired  HandleEnd = "expired"  // its admission expired
)

// HandleEnded records a handle's admission ending.
func (l *Ledger) HandleEnded(at int64, conn, handle string, how HandleEnd) {
	if h := l.daemon.handles[pairKey(conn, handle)]; h != nil && h.ended == "" {
		h.ended = how
	}
}

// ReceiptSent records a daemon sending prompt_steer_ack for an input.
func (l *Ledger) ReceiptSent(at int64, run, input, stage string) {
	if stage == StageAccepted && !l.harness.isApplied(run, input) {
		l.violate(at, CheckAcceptedWithoutTruth, "daemon sent accepted for input %s of run %s before the Harness applied it", input, run)
	}
}

// CancelAckSent records a daemon sending a cancel receipt for run.
func (l *Ledger) CancelAckSent(at int64, run string, applied bool) {
	if applied {
		made(&l.daemon.sent)[pairKey("cancel", run)] = true
	}
}

// TerminalSent records a daemon sending done or an execution error for run.
func (l *Ledger) TerminalSent(at int64, kind Terminal, run string) {
	made(&l.daemon.sent)[pairKey(string(kind), run)] = true
}

// UsageSent records a daemon sending a cumulative usage snapshot for run,
// in a usage frame or in done.
func (l *Ledger) UsageSent(at int64, run string, u UsageSnapshot) {
	made(&l.daemon.usageSent)[run] = append(l.daemon.usageSent[run], u)
}

func sortedUnique[S ~[]E, E cmp.Ordered](s S) S {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}
