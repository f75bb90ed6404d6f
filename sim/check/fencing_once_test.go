package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func TestOneSuspensionPerEnvironment(t *testing.T) {
	l, w := newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
	w.coreSends(1, "d1", quiesceFrame("q2", "e2", "s2")) // another Environment
	w.coreSends(1, "d1", quiesceFrame("q1b", "e", "s1")) // a repeat of s1's quiesce
	if vs := checksNamed(l.AfterStep(1), "fencing_one"); len(vs) != 0 {
		t.Fatalf("lawful: %v", vs)
	}
	w.coreSends(1, "d1", quiesceFrame("q3", "e", "s3"))
	if vs := checksNamed(l.AfterStep(2), "fencing_one"); len(vs) != 1 {
		t.Fatalf("second suspension: %v", vs)
	}
	// a refused quiesce resolves s1: a new suspension may follow
	l, w = newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
	w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", false, "resource_busy"))
	w.coreSends(1, "d1", quiesceFrame("q3", "e", "s3"))
	if vs := checksNamed(l.AfterStep(1), "fencing_one"); len(vs) != 0 {
		t.Fatalf("after a refusal: %v", vs)
	}
}

// probeFeed delivers a forged frame registered as a probe.
func probeFeed(w wireFeed, conn uint64, device string, p HostileProbe, f wire.Frame) {
	p.Conn, p.Target, p.Frame = conn, device, []byte(f.ID)
	w.l.HostileProbe(p)
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireDelivered, Conn: conn, From: CoreNode, To: device, Raw: []byte(f.ID), Frame: f, Forged: true})
}

// fencedFeed has d1 accept quiesce q1 of Environment e (suspension s1),
// close its connection as a quiesced daemon does, and reconnect on
// connection 2.
func fencedFeed() (*Ledger, wireFeed) {
	l, w := newFeed()
	w.open(1, "d1")
	w.coreSends(1, "d1", quiesceFrame("q1", "e", "s1"))
	w.deviceSends(1, "d1", quiescedFrame("q1", "e", "s1", true, ""))
	w.close(1, "d1")
	w.open(2, "d1")
	return l, w
}

func TestFencingProbesAreJudgedWhileFenced(t *testing.T) {
	t.Run("refused as documented", func(t *testing.T) {
		l, w := fencedFeed()
		probeFeed(w, 2, "d1", HostileProbe{Action: HostileQuiesceOther, ReplyID: "x-q"}, quiesceFrame("x-q", "e", "x-s"))
		w.deviceSends(2, "d1", quiescedFrame("x-q", "e", "x-s", false, "resource_busy"))
		probeFeed(w, 2, "d1", HostileProbe{Action: HostileRollbackResumeOther, ReplyID: "x-r"}, resumeFrame("x-r", "e", "x-s2", true))
		w.deviceSends(2, "d1", resumedFrame("x-r", "e", "x-s2", false, "not_suspended"))
		w.coreSends(2, "d1", resumeFrame("r1", "e", "s1", false))
		w.deviceSends(2, "d1", resumedFrame("r1", "e", "s1", true, ""))
		probeFeed(w, 2, "d1", HostileProbe{Action: HostileResumeRepeat, ReplyID: "x-rr", Suspend: "s1"}, resumeFrame("x-rr", "e", "s1", false))
		w.deviceSends(2, "d1", resumedFrame("x-rr", "e", "s1", true, ""))
		if vs := checksNamed(l.AfterStep(1), "hostile"); len(vs) != 0 {
			t.Fatalf("violations: %v", vs)
		}
		for _, a := range []string{HostileQuiesceOther, HostileRollbackResumeOther, HostileResumeRepeat} {
			if l.marks[HostileMark(a)] != 1 {
				t.Fatalf("%s not marked: %v", a, l.marks)
			}
		}
	})
	t.Run("accepted while fenced", func(t *testing.T) {
		l, w := fencedFeed()
		probeFeed(w, 2, "d1", HostileProbe{Action: HostileRollbackResumeOther, ReplyID: "x-r"}, resumeFrame("x-r", "e", "x-s2", true))
		w.deviceSends(2, "d1", resumedFrame("x-r", "e", "x-s2", true, ""))
		if vs := checksNamed(l.AfterStep(1), "hostile_refusal"); len(vs) != 1 {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("a repeated resume refused", func(t *testing.T) {
		l, w := fencedFeed()
		w.coreSends(2, "d1", resumeFrame("r1", "e", "s1", false))
		w.deviceSends(2, "d1", resumedFrame("r1", "e", "s1", true, ""))
		probeFeed(w, 2, "d1", HostileProbe{Action: HostileResumeRepeat, ReplyID: "x-rr", Suspend: "s1"}, resumeFrame("x-rr", "e", "s1", false))
		w.deviceSends(2, "d1", resumedFrame("x-rr", "e", "s1", false, "not_suspended"))
		if vs := checksNamed(l.AfterStep(1), "hostile_refusal"); len(vs) != 1 {
			t.Fatalf("violations: %v", vs)
		}
	})
	t.Run("not judged on a daemon not fenced", func(t *testing.T) {
		l, w := newFeed()
		w.open(1, "d1")
		probeFeed(w, 1, "d1", HostileProbe{Action: HostileRollbackResumeOther, ReplyID: "x-r"}, resumeFrame("x-r", "e", "x-s2", true))
		w.deviceSends(1, "d1", resumedFrame("x-r", "e", "x-s2", true, ""))
		if vs := checksNamed(l.AfterStep(1), "hostile"); len(vs) != 0 {
			t.Fatalf("violations: %v", vs)
		}
	})
}
