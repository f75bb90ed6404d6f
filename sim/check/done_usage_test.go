package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// doneUsageRun: the Harness's native done for r1 carries native (nil:
// none); the daemon sent a snapshot of 10 before and then its done with
// sent.
func doneUsageRun(native, sent *wire.Usage) *Ledger {
	l := NewLedger()
	snap := usageOf(10)
	l.Wire(wf(1, WireSent, 1, "d1", CoreNode, "r1", wire.UsageUpdate{Usage: snap}))
	l.NativeDone(2, "d1", "r1", native)
	l.Wire(wf(3, WireSent, 1, "d1", CoreNode, "r1", wire.Done{Content: "x", Usage: sent}))
	return l
}

func TestDoneUsageIsTheNativeDones(t *testing.T) {
	final, snap := usageOf(15), usageOf(10)
	if vs := checkOnly(doneUsageRun(&final, &final), CheckDoneUsage); len(vs) > 0 {
		t.Fatalf("done carried the native done's usage, yet:\n%s", Render(vs))
	}
	if vs := checkOnly(doneUsageRun(nil, &snap), CheckDoneUsage); len(vs) > 0 {
		t.Fatalf("a native done without usage lets the last snapshot stand, yet:\n%s", Render(vs))
	}
	vs := checkOnly(doneUsageRun(&final, &snap), CheckDoneUsage)
	if len(vs) != 1 || !containsMsg(vs[0], "with usage {in=10") {
		t.Fatalf("the snapshot replacing the native done's usage: want one done_usage violation, got:\n%s", Render(vs))
	}
	vs = checkOnly(doneUsageRun(&final, nil), CheckDoneUsage)
	if len(vs) != 1 || !containsMsg(vs[0], "without usage") {
		t.Fatalf("a done dropping the native done's usage: want one done_usage violation, got:\n%s", Render(vs))
	}
	// a rogue daemon's forged done is not the daemon's
	l := NewLedger()
	l.NativeDone(2, "d1", "r1", &final)
	l.Wire(wf(3, WireSent, 9, RogueNode, CoreNode, "r1", wire.Done{Content: "forged"}))
	if vs := checkOnly(l, CheckDoneUsage); len(vs) > 0 {
		t.Fatalf("a rogue's done is not judged, yet:\n%s", Render(vs))
	}
}
