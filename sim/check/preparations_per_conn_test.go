package check

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func prepReq(i int) string { return "p" + strconv.Itoa(i) }

// openPreps has Core send n execution_prepare frames on conn 1.
func openPreps(w wireFeed, from, n int) {
	for i := from; i < from+n; i++ {
		w.coreSends(1, "d1", prepareFrame(prepReq(i), "s1", goodConfig("s1")))
	}
}

func TestPreparationsPerConnLimit(t *testing.T) {
	l, w := prepareWorld(testSpec(), allKind())
	openPreps(w, 0, DocumentedPreparationsPerConn)
	if vs := violationsOf(l, CheckPreparationsPerConn); len(vs) > 0 {
		t.Fatalf("64 open preparations judged: %v", vs)
	}
	if l.marks[MarkPreparationsPerConnFull] != 1 {
		t.Fatal("64 open preparations not marked")
	}
	openPreps(w, DocumentedPreparationsPerConn, 1)
	if vs := violationsOf(l, CheckPreparationsPerConn); len(vs) != 1 {
		t.Fatalf("a 65th open preparation: %v", vs)
	}
}

func TestPreparationsPerConnClosings(t *testing.T) {
	closings := map[string]func(w wireFeed, req string){
		"started": func(w wireFeed, req string) {
			w.deviceSends(1, "d1", statusFrame(req, wire.PreparationStatus{Handle: "h", Revision: 2, State: wire.StateStarted}))
		},
		"rejected": func(w wireFeed, req string) {
			w.deviceSends(1, "d1", statusFrame(req, wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "preparation_capacity"}))
		},
		"released by Core": func(w wireFeed, req string) {
			w.coreSends(1, "d1", wire.Frame{ID: req, Payload: wire.ExecutionRelease{Handle: "h"}})
		},
	}
	for name, closeOne := range closings {
		t.Run(name, func(t *testing.T) {
			l, w := prepareWorld(testSpec(), allKind())
			openPreps(w, 0, DocumentedPreparationsPerConn)
			closeOne(w, prepReq(3))
			// a ready or preparing status closes nothing
			w.deviceSends(1, "d1", statusFrame(prepReq(4), wire.PreparationStatus{Handle: "h4", Revision: 1, State: wire.StateReady}))
			openPreps(w, DocumentedPreparationsPerConn, 1)
			if vs := violationsOf(l, CheckPreparationsPerConn); len(vs) > 0 {
				t.Fatalf("64 open after one closed: %v", vs)
			}
			openPreps(w, DocumentedPreparationsPerConn+1, 1)
			if vs := violationsOf(l, CheckPreparationsPerConn); len(vs) != 1 {
				t.Fatalf("65 open: %v", vs)
			}
		})
	}
	// a closed connection closes its streams; a repeated request is one stream
	l, w := prepareWorld(testSpec(), allKind())
	openPreps(w, 0, DocumentedPreparationsPerConn)
	openPreps(w, 0, 1)
	w.close(1, "d1")
	w.open(1, "d1")
	openPreps(w, 100, DocumentedPreparationsPerConn)
	if vs := violationsOf(l, CheckPreparationsPerConn); len(vs) > 0 {
		t.Fatalf("streams of a closed connection counted: %v", vs)
	}
}

// A prepare Core sends into a broken connection is lost at once; Core
// holds it open all the same. A prepare sent and then lost in flight is
// one stream.
func TestPreparationsPerConnCountsLostPrepares(t *testing.T) {
	l, w := prepareWorld(testSpec(), allKind())
	openPreps(w, 0, 10)
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireLost, Conn: 1, From: CoreNode, To: "d1", Raw: []byte("x"), Frame: prepareFrame(prepReq(0), "s1", goodConfig("s1"))})
	for i := 10; i <= DocumentedPreparationsPerConn; i++ {
		w.l.Wire(WireEvent{At: w.tick(), Kind: WireLost, Conn: 1, From: CoreNode, To: "d1", Raw: []byte("x"), Frame: prepareFrame(prepReq(i), "s1", goodConfig("s1"))})
		if vs := violationsOf(l, CheckPreparationsPerConn); len(vs) > 0 && i < DocumentedPreparationsPerConn {
			t.Fatalf("%d open judged: %v", i+1, vs)
		}
	}
	if vs := violationsOf(l, CheckPreparationsPerConn); len(vs) != 1 {
		t.Fatalf("65 open, 55 of them lost at once: %v", vs)
	}
}

// A daemon that crashes ends its side of the connection, but Core holds
// the connection's streams, and sends more prepares into it, until it
// learns the connection closed.
func TestPreparationsPerConnHeldUntilCoreLearnsTheClose(t *testing.T) {
	l, w := prepareWorld(testSpec(), allKind())
	openPreps(w, 0, DocumentedPreparationsPerConn-1)
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireClosed, Conn: 1, From: "d1", To: "d1"})
	for i := DocumentedPreparationsPerConn - 1; i <= DocumentedPreparationsPerConn; i++ {
		w.l.Wire(WireEvent{At: w.tick(), Kind: WireLost, Conn: 1, From: CoreNode, To: "d1", Reason: lostOnSend,
			Raw: []byte("x"), Frame: prepareFrame(prepReq(i), "s1", goodConfig("s1"))})
	}
	if vs := violationsOf(l, CheckPreparationsPerConn); len(vs) != 1 {
		t.Fatalf("65 open at Core after the daemon's side closed: %v", vs)
	}
	w.l.Wire(WireEvent{At: w.tick(), Kind: WireClosed, Conn: 1, From: "d1", To: CoreNode})
	w.open(2, "d1")
	for i := 100; i < 100+DocumentedPreparationsPerConn; i++ {
		w.coreSends(2, "d1", prepareFrame(prepReq(i), "s1", goodConfig("s1")))
	}
	if vs := violationsOf(l, CheckPreparationsPerConn); len(vs) != 1 {
		t.Fatalf("streams kept after Core learned the close: %v", vs)
	}
}

// Core's streams die with Core: a restarted Core holds none of them,
// though it never learns that its old connections closed.
func TestPreparationsPerConnEndWithCore(t *testing.T) {
	l, w := prepareWorld(testSpec(), allKind())
	openPreps(w, 0, DocumentedPreparationsPerConn)
	l.NodeCrashed(w.tick(), CoreNode)
	if l.prepStreamsFullSince(*w.now) {
		t.Fatal("the streams of a crashed Core still fill its old connection")
	}
	openPreps(w, 100, DocumentedPreparationsPerConn)
	if vs := violationsOf(l, CheckPreparationsPerConn); len(vs) > 0 {
		t.Fatalf("streams of a crashed Core counted: %v", vs)
	}
}

// A terminal status the gateway ignores (another handle than the first
// seen on the stream, a revision not above the last, no handle), forged
// or not, frees no stream at Core: the connection stays full.
func TestPreparationsPerConnIgnoredStatusesCloseNothing(t *testing.T) {
	ignored := map[string]wire.PreparationStatus{
		"another handle":         {Handle: "x-h", Revision: 1 << 40, State: wire.StateStarted},
		"stale revision":         {Handle: "h3", Revision: 2, State: wire.StateStarted},
		"no handle":              {Revision: 3, State: wire.StateExpired},
		"revision zero":          {Handle: "h3", State: wire.StateReleased},
		"another handle, failed": {Handle: "x-h", Revision: 9, State: wire.StateFailed, ErrorCode: "preparation_failed"},
	}
	for name, st := range ignored {
		for _, forged := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s forged=%t", name, forged), func(t *testing.T) {
				l, w := prepareWorld(testSpec(), allKind())
				openPreps(w, 0, DocumentedPreparationsPerConn)
				w.deviceSends(1, "d1", statusFrame(prepReq(3), wire.PreparationStatus{Handle: "h3", Revision: 2, State: wire.StateReady}))
				f := statusFrame(prepReq(3), st)
				if forged {
					w.l.Wire(WireEvent{At: w.tick(), Kind: WireDelivered, Conn: 1, From: "d1", To: CoreNode, Raw: []byte("x"), Frame: f, Forged: true})
				} else {
					w.deviceSends(1, "d1", f)
				}
				if !l.prepStreamsFullSince(*w.now) {
					t.Fatal("the connection's 64 streams are not full after a status the gateway ignores")
				}
				openPreps(w, DocumentedPreparationsPerConn, 1)
				if vs := violationsOf(l, CheckPreparationsPerConn); len(vs) != 1 {
					t.Fatalf("65 open: %v", vs)
				}
			})
		}
	}
}
