package check

import (
	"slices"
	"strconv"

	"github.com/turnstile-sim/turnstile/wire"
)

// Failover: a new Core takes over from the durable store (the store's
// lease moves to a higher epoch) while the old Core, a zombie, keeps
// running with the connections it had for a bounded while. The production
// rule the simulated shell mirrors: every commit carries the committing
// Core's epoch and the store refuses a stale one (pgstore's ErrFenced);
// the shell applies a batch's effects only after its commit succeeded, and
// a refused commit stops the process without applying them. A batch that
// wrote nothing commits nothing and its effects leave. So after the
// takeover the zombie can only send frames of steps that decided nothing
// new, resting on records committed before the takeover.
//
// The records come from the store's ground truth (the epoch each durable
// write carried, each commit the store refused) and from the network (the
// frames Core's end of the zombie's connections put on the wire); nothing
// here asks either Core what it decided.
const (
	CheckFailoverStaleCommit = "failover_stale_commit" // Rules
	CheckFailoverZombieFrame = "failover_zombie_frame" // Rules
)

// Failover marks.
const (
	// MarkFailoverTakeover: a new Core took over from the durable store
	// while the old one kept running.
	MarkFailoverTakeover Mark = "failover_takeover"
	// MarkZombieCommitRefused: the store refused a zombie's commit.
	MarkZombieCommitRefused Mark = "failover_zombie_commit_refused"
	// MarkZombieFrameSent: a zombie put a frame on the wire after the
	// takeover (one that needed no commit).
	MarkZombieFrameSent Mark = "failover_zombie_frame_sent"
)

var failoverExpectedMarks = []Mark{MarkFailoverTakeover, MarkZombieCommitRefused, MarkZombieFrameSent}

// failoverState is the lease's epoch as takeovers moved it and the
// zombies those takeovers left running.
type failoverState struct {
	epoch   uint64 // the lease's current epoch; 0 until a takeover
	zombies []*zombieRec
}

type zombieRec struct {
	epoch   uint64
	conns   []uint64 // Core's connections the zombie kept, sorted
	refused int64    // when the store refused its commit (0: never)
	gone    int64    // when it stopped (0: running)
	why     string
}

func (z *zombieRec) owns(conn uint64) bool {
	_, ok := slices.BinarySearch(z.conns, conn)
	return ok
}

// Takeover records that the lease moved from epoch-1 to epoch: a new Core
// holds it, and the Core of epoch-1 keeps running with conns (Core's ends
// of the connections it had open) as a zombie.
func (l *Ledger) Takeover(at int64, epoch uint64, conns []uint64) {
	f := &l.failover
	f.epoch = epoch
	c := slices.Clone(conns)
	slices.Sort(c)
	f.zombies = append(f.zombies, &zombieRec{epoch: epoch - 1, conns: c})
	// The new Core process has seen no connection yet: the generation
	// rule (hostile_conns.go) starts over with it.
	clear(l.hostile.conns.newest)
	l.reach(MarkFailoverTakeover)
}

// DurableWrite records that the store made a write durable carrying
// epoch, the committing Core's. Before any takeover every epoch is the
// first one and the record is not needed.
func (l *Ledger) DurableWrite(at int64, epoch uint64, what string) {
	f := &l.failover
	if f.epoch == 0 || epoch == f.epoch {
		return
	}
	l.violate(at, CheckFailoverStaleCommit, "the store made %s durable with epoch %d while the lease is at epoch %d",
		what, epoch, f.epoch)
}

// CommitRefused records that the store refused a commit carrying a stale
// epoch (what names its last write).
func (l *Ledger) CommitRefused(at int64, epoch uint64, what string) {
	if z := l.failover.zombie(epoch); z != nil && z.refused == 0 {
		z.refused, z.why = at, what
	}
	l.reach(MarkZombieCommitRefused)
}

// ZombieGone records that the Core of epoch stopped (its bounded while
// ended, its commit was refused, or the process crashed).
func (l *Ledger) ZombieGone(at int64, epoch uint64) {
	if z := l.failover.zombie(epoch); z != nil && z.gone == 0 {
		z.gone = at
	}
}

// zombieConn reports whether conn is one a zombie kept at a takeover:
// from then on it is the old Core process's, not the current Core's.
func (f *failoverState) zombieConn(conn uint64) bool {
	return slices.ContainsFunc(f.zombies, func(z *zombieRec) bool { return z.owns(conn) })
}

func (f *failoverState) zombie(epoch uint64) *zombieRec {
	for _, z := range f.zombies {
		if z.epoch == epoch {
			return z
		}
	}
	return nil
}

// CoreFrameSent records a frame Core's end of conn put on the wire (the
// network tap, forged frames excluded). On a zombie's connection it must
// come before the store refused that zombie's commit and before the
// zombie stopped: a refused commit stops the process with the effects of
// its step withheld.
func (l *Ledger) CoreFrameSent(at int64, conn uint64, frame []byte) {
	f := &l.failover
	for _, z := range f.zombies {
		if !z.owns(conn) {
			continue
		}
		switch {
		case z.refused != 0:
			l.violate(at, CheckFailoverZombieFrame, "the Core of epoch %d sent %s on conn %d after the store refused its commit (%s at %s)",
				z.epoch, describeSent(frame), conn, z.why, vtime(z.refused))
		case z.gone != 0:
			l.violate(at, CheckFailoverZombieFrame, "the Core of epoch %d sent %s on conn %d after it stopped at %s",
				z.epoch, describeSent(frame), conn, vtime(z.gone))
		default:
			l.reach(MarkZombieFrameSent)
		}
	}
}

// FailoverActive reports whether any takeover happened (the world feeds
// the failover records only then).
func (l *Ledger) FailoverActive() bool { return l.failover.epoch != 0 }

func describeSent(b []byte) string {
	fr, err := wire.Decode(b)
	if err != nil {
		return "an undecodable frame of " + strconv.Itoa(len(b)) + " bytes"
	}
	return wire.Describe(fr)
}
