package world

import (
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// recordFlood: the rogue fills the connection's admission record table
// (64 records, wire reference §6.1) with admissions of one Session of its
// own, each prepared, released once ready (reused from the second on, so
// no native work) and left terminal, until its own grants alone exceed
// the table. Then it releases again the two oldest and the second newest
// of them: the checker's model of the table (check/admission_records.go)
// knows which ones the eviction rule removed (unknown_preparation) and
// which it kept (the republished released status). At most one flood runs
// per seed, in two injectors in three until one starts.
type recordFlood struct {
	in      *injector
	session string
	config  wire.ExecutionConfiguration
	req     string    // the request ID of the admission in progress
	since   time.Time // when it was sent
	granted []grant   // own admissions granted, released, in order
	tries   int
}

// floodGrants is how many of its own admissions the flood has granted
// before it probes: enough to fill the table and evict a few.
const floodGrants = check.DocumentedAdmissionRecordsMax + 4

// floodPoll is how often the flood reads the wire for its answer.
const floodPoll = 2 * time.Millisecond

func (in *injector) recordFlood() {
	h := &in.u.hostile
	if h.flooded || in.r.IntN(3) == 0 {
		return
	}
	h.flooded = true
	s := h.mint("s")
	fl := &recordFlood{in: in, session: s, config: hostileConfig(s, "flood")}
	in.u.detail("admission record flood on " + connName(in.conn))
	fl.prepare()
}

func (fl *recordFlood) prepare() {
	in := fl.in
	fl.tries++
	if fl.tries > 4*floodGrants || !in.open() {
		fl.stop("gave up")
		return
	}
	fl.req = in.u.hostile.mint("p")
	fl.since = in.u.w.Now()
	in.send(fl.req, wire.ExecutionPrepare{SessionID: fl.session, Configuration: fl.config},
		check.HostileProbe{Action: check.HostilePrepareOwn, ReplyID: fl.req})
	in.u.w.After(floodPoll, "", fl.poll)
}

// poll reads the newest status of the admission in progress: once ready
// it is released and the next one prepared; a refusal or an end is
// followed by the next after a pause.
func (fl *recordFlood) poll() {
	in := fl.in
	if !in.open() {
		fl.stop("connection closed")
		return
	}
	st, ok := in.u.hostile.status[statusKey(in.conn, fl.req)]
	waited := in.u.w.Now().Sub(fl.since)
	switch {
	case !ok && waited < 5*time.Second, ok && st.State == wire.StatePreparing && waited < 30*time.Second:
		in.u.w.After(floodPoll, "", fl.poll)
	case ok && st.State == wire.StateReady:
		in.send(fl.req, wire.ExecutionRelease{Handle: st.Handle},
			check.HostileProbe{Action: check.HostileReleaseOwn, ReplyID: fl.req})
		fl.granted = append(fl.granted, grant{reqID: fl.req, handle: st.Handle})
		if len(fl.granted) >= floodGrants {
			in.u.w.After(floodPoll, "", fl.probe)
			return
		}
		fl.prepare() // behind the release on the connection: the executor is idle by then
	default:
		in.u.detail("admission record flood: " + fl.req + " answered " + st.State + " " + st.ErrorCode)
		in.u.w.After(100*time.Millisecond, "", fl.prepare)
	}
}

// probe releases the two oldest and the second newest admissions again.
func (fl *recordFlood) probe() {
	n := len(fl.granted)
	for _, g := range []grant{fl.granted[0], fl.granted[1], fl.granted[n-2]} {
		fl.in.send(g.reqID, wire.ExecutionRelease{Handle: g.handle},
			check.HostileProbe{Action: check.HostileReleaseRecord, ReplyID: g.reqID})
	}
}

func (fl *recordFlood) stop(why string) {
	fl.in.u.detail("admission record flood " + why + " after " + strconv.Itoa(len(fl.granted)) + " grants")
}

// open reports whether the injector's connection is still open.
func (in *injector) open() bool { return in.u.peerOf(in.conn, in.dev) != "" }
