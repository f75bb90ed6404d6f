package check

import (
	"slices"
	"strconv"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: failover_stale_commit, failover_zombie_frame (Rules). The
// simulated shell mirrors production: a commit carries its Core's epoch,
// the store refuses a stale one, and a batch's effects leave only after
// its commit; so a zombie can only send frames of steps that wrote
// nothing. Judged from the store's ground truth and the wire, never from
// either Core's decisions.
const (
	CheckFailoverStaleCommit = "failover_stale_commit"
	CheckFailoverZombieFrame = "failover_zombie_frame"
)

// Failover marks: a takeover left the old Core running, the store refused
// a zombie's commit, a zombie sent a frame after the takeover.
const (
	MarkFailoverTakeover    Mark = "failover_takeover"
	MarkZombieCommitRefused Mark = "failover_zombie_commit_refused"
	MarkZombieFrameSent     Mark = "failover_zombie_frame_sent"
)

var failoverExpectedMarks = []Mark{MarkFailoverTakeover, MarkZombieCommitRefused, MarkZombieFrameSent}

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
	f.zombies = append(f.zombies, &zombieRec{epoch: epoch - 1, conns: slices.Sorted(slices.Values(conns))})
	clear(l.hostile.conns.newest) // the new Core has seen no connection yet (hostile_conns.go)
	l.reach(MarkFailoverTakeover)
}

// DurableWrite records the store making what durable under epoch, the
// committing Core's.
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
	if i := slices.IndexFunc(f.zombies, func(z *zombieRec) bool { return z.epoch == epoch }); i >= 0 {
		return f.zombies[i]
	}
	return nil
}

// CoreFrameSent records a frame Core's end of conn put on the wire (forged
// frames excluded).
func (l *Ledger) CoreFrameSent(at int64, conn uint64, frame []byte) {
	for _, z := range l.failover.zombies {
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
