package check

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func failoverFrame(t *testing.T) []byte {
	t.Helper()
	b, err := wire.Encode(wire.Frame{ID: "t-1", Payload: wire.PromptCancel{}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Before any takeover every write is the first Core's; after one, a
// write carrying the old epoch is a stale commit and the current epoch's
// is not.
func TestFailoverStaleCommit(t *testing.T) {
	l := NewLedger()
	l.DurableWrite(1, 7, "turn t-1")
	if vs := l.AfterStep(1); len(vs) != 0 {
		t.Fatalf("no takeover yet: %v", vs)
	}
	l.Takeover(2, 2, []uint64{3})
	l.DurableWrite(3, 2, "turn t-1")
	if vs := l.AfterStep(2); len(vs) != 0 {
		t.Fatalf("the current epoch's write: %v", vs)
	}
	l.DurableWrite(4, 1, "input of turn t-1")
	vs := l.AfterStep(3)
	if len(vs) != 1 || vs[0].Check != CheckFailoverStaleCommit || !strings.Contains(vs[0].Message, "epoch 1 while the lease is at epoch 2") {
		t.Fatalf("stale write: %v", vs)
	}
}

// A zombie's frame is fine until its commit is refused or it stops;
// frames on the new Core's connections are not the zombie's.
func TestFailoverZombieFrame(t *testing.T) {
	for _, c := range []struct {
		name string
		end  func(l *Ledger)
		want string
	}{
		{"refused", func(l *Ledger) { l.CommitRefused(5, 1, "turn t-1") }, "after the store refused its commit (turn t-1"},
		{"stopped", func(l *Ledger) { l.ZombieGone(5, 1) }, "after it stopped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := NewLedger()
			f := failoverFrame(t)
			l.Takeover(2, 2, []uint64{4, 3})
			l.CoreFrameSent(3, 3, f)
			l.CoreFrameSent(3, 9, f)
			if vs := l.AfterStep(1); len(vs) != 0 {
				t.Fatalf("before the refusal: %v", vs)
			}
			c.end(l)
			l.CoreFrameSent(6, 9, f)
			if vs := l.AfterStep(2); len(vs) != 0 {
				t.Fatalf("the new Core's connection: %v", vs)
			}
			l.CoreFrameSent(6, 4, f)
			vs := l.AfterStep(3)
			if len(vs) != 1 || vs[0].Check != CheckFailoverZombieFrame || !strings.Contains(vs[0].Message, c.want) ||
				!strings.Contains(vs[0].Message, "prompt_cancel") {
				t.Fatalf("zombie frame: %v", vs)
			}
			marks := map[Mark]int{}
			for _, m := range l.Marks() {
				marks[m.Mark] = m.Count
			}
			if marks[MarkFailoverTakeover] != 1 || marks[MarkZombieFrameSent] != 1 {
				t.Fatalf("marks %v", marks)
			}
		})
	}
}
