package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func usageOf(total int64) wire.Usage {
	return wire.Usage{Tokens: &wire.TokenUsage{InputTokens: total, TotalTokens: total}}
}

// usageRun: run r1 reports usage 10 then 20 to Core; Core stores stored
// and ends the Turn with code.
func usageRun(stored int64, code string) *Ledger {
	l := NewLedger()
	l.Wire(wf(1, WireDelivered, 1, "d1", CoreNode, "r1", wire.UsageUpdate{Usage: usageOf(10)}))
	l.UsagePersisted(1, "r1", UsageFromWire(&wire.Usage{Tokens: &wire.TokenUsage{InputTokens: 10, TotalTokens: 10}}))
	l.Wire(wf(2, WireDelivered, 1, "d1", CoreNode, "r1", wire.UsageUpdate{Usage: usageOf(20)}))
	if stored != 10 {
		u := usageOf(stored)
		l.UsagePersisted(2, "r1", UsageFromWire(&u))
	}
	l.TurnFinished(3, "t1", "r1", "failed", code)
	tick(l, 10)
	return l
}

func TestUsageLatest(t *testing.T) {
	if vs := checkOnly(usageRun(20, "x"), CheckUsageLatest); len(vs) > 0 {
		t.Fatalf("the latest snapshot kept, yet:\n%s", Render(vs))
	}
	vs := checkOnly(usageRun(10, "x"), CheckUsageLatest)
	if len(vs) != 1 || !containsMsg(vs[0], "the latest snapshot Core received for it is {in=20") {
		t.Fatalf("want one usage_not_latest violation, got:\n%s", Render(vs))
	}
	if vs := checkOnly(usageRun(10, codeEventPersistenceFailed), CheckUsageLatest); len(vs) > 0 {
		t.Fatalf("a Turn ended on an unstored event is not judged, yet:\n%s", Render(vs))
	}
}

// A done closes its Run's stream on its connection: a copy of an earlier
// usage event reaching Core there after it is no snapshot, and Core keeps
// done's usage. A rogue's done on another connection closes nothing: the
// usage Core receives after it on the Run's connection counts.
func TestUsageAfterDoneIsNoSnapshot(t *testing.T) {
	done := usageOf(20)
	closed := func(lateUsage bool) []Violation {
		l := NewLedger()
		l.Wire(wf(1, WireDelivered, 1, "d1", CoreNode, "r1", wire.UsageUpdate{Usage: usageOf(10)}))
		l.Wire(wf(2, WireDelivered, 1, "d1", CoreNode, "r1", wire.Done{Content: "x", Usage: &done}))
		l.UsagePersisted(2, "r1", UsageFromWire(&done))
		if lateUsage {
			l.Wire(wf(2, WireDelivered, 1, "d1", CoreNode, "r1", wire.UsageUpdate{Usage: usageOf(10)}))
		}
		l.TurnFinished(3, "t1", "r1", "completed", "")
		tick(l, 10)
		return checkOnly(l, CheckUsageLatest)
	}
	if vs := closed(false); len(vs) > 0 {
		t.Fatalf("done's usage kept, yet:\n%s", Render(vs))
	}
	if vs := closed(true); len(vs) > 0 {
		t.Fatalf("a usage event after done counted as the latest snapshot:\n%s", Render(vs))
	}
	rogue := func(stored int64) []Violation {
		l := NewLedger()
		l.Wire(wf(1, WireDelivered, 2, RogueNode, CoreNode, "r1", wire.Done{Content: "forged"}))
		l.Wire(wf(2, WireDelivered, 1, "d1", CoreNode, "r1", wire.UsageUpdate{Usage: usageOf(20)}))
		u := usageOf(stored)
		l.UsagePersisted(2, "r1", UsageFromWire(&u))
		l.TurnFinished(3, "t1", "r1", "completed", "")
		tick(l, 10)
		return checkOnly(l, CheckUsageLatest)
	}
	if vs := rogue(20); len(vs) > 0 {
		t.Fatalf("a rogue's done on its own connection closed the Run's stream:\n%s", Render(vs))
	}
	if vs := rogue(10); len(vs) != 1 {
		t.Fatalf("a usage event after a rogue's done, not kept, want one violation, got:\n%s", Render(vs))
	}
}
