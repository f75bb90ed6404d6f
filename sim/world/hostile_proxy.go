package world

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// mutatingProxy is the hostile_proxy fault on one direction of a Core–
// daemon connection. What it forges must be refused or absorbed by the
// receiver without changing an honest outcome beyond what the seeds allow:
//
//   - an exact duplicate right behind the frame (every request is
//     idempotent for identical content; every answer is ignored when stale);
//   - a replay of an earlier frame of the direction, later (a WebSocket never
//     reorders within a direction, so a replay is the only way an old frame
//     comes after newer ones; with a stall or slow fault on the other
//     direction it also reorders one direction against the other);
//   - a near-limit copy: the frame padded with insignificant whitespace to
//     just under the 4 MiB frame limit, which must be decoded as the frame;
//   - a copy whose envelope ID is inflated past 128 bytes, which must be
//     refused without echoing any of it and without effect;
//   - an earlier revision of a status, in another state, right behind it
//     (hostile_stale_status.go), which Core must ignore;
//   - at most once per fault and rarely, a copy over the 4 MiB limit, which
//     the transport refuses by closing the connection (a loss the honest
//     peers survive as any other connection loss).
type mutatingProxy struct {
	u        *universe
	r        *rand.Rand
	conn     sim.ConnID
	from, to sim.NodeID
	past     [][]byte // recent frames of the direction, for replays
	lastAck  []byte   // the latest prompt_steer_ack of the direction
	big      bool     // a near-limit or oversized copy was sent
}

const proxyPastMax = 8

func (u *universe) startProxy(f sim.Fault) {
	c, dev, ok := u.coreConn(f)
	if !ok {
		u.noVictim(f, "no Core–daemon connection")
		return
	}
	r := hostileRand(f)
	ends := [][2]sim.NodeID{{coreID, dev}, {dev, coreID}}
	switch r.IntN(3) {
	case 0:
		ends = ends[:1]
	case 1:
		ends = ends[1:]
	}
	for _, e := range ends {
		p := &mutatingProxy{u: u, r: rand.New(rand.NewPCG(r.Uint64(), r.Uint64())), conn: c.ID, from: e[0], to: e[1]}
		u.w.SetProxy(c.ID, e[0], p.frame)
		from := e[0]
		u.detail("proxy on " + connName(c.ID) + " " + string(e[0]) + "->" + string(e[1]))
		u.w.After(f.For, "", func() { u.w.ClearProxy(c.ID, from) })
	}
}

func (p *mutatingProxy) remember(b []byte) {
	if bytes.HasPrefix(b, []byte(`{"type":"prompt_steer_ack"`)) {
		p.lastAck = b
	}
	if len(p.past) == proxyPastMax {
		copy(p.past, p.past[1:])
		p.past = p.past[:proxyPastMax-1]
	}
	p.past = append(p.past, b)
}

// pick returns an earlier frame of the direction to replay, or nil. Half
// the replays towards Core are of the latest steering receipt: a receipt
// for an input Core has moved past must not count for the next one.
func (p *mutatingProxy) pick() []byte {
	if p.lastAck != nil && p.r.IntN(2) == 0 {
		return p.lastAck
	}
	if len(p.past) == 0 {
		return nil
	}
	old := p.past[p.r.IntN(len(p.past))]
	if bytes.HasPrefix(old, []byte(`{"type":"execution_prepare"`)) {
		return nil
	}
	return old
}

func (p *mutatingProxy) frame(b []byte) []sim.ProxyFrame {
	out := []sim.ProxyFrame{{Frame: b}}
	defer p.remember(b)
	switch p.r.IntN(10) {
	case 0, 1:
		out = append(out, sim.ProxyFrame{Frame: b, Forged: true})
		p.u.mark(check.MarkHostileDuplicate)
	case 2, 3:
		// An execution_prepare is never replayed later: refused the first
		// time it left no record, so a late copy is a new request the
		// daemon may grant, holding a slot for the admission expiry while
		// Core (which gave up the request) never uses it.
		if old := p.pick(); old != nil {
			delay := time.Duration(50+p.r.IntN(2000)) * time.Millisecond
			p.u.w.After(delay, "", func() {
				if p.u.w.Forge(p.conn, p.from, old) {
					p.u.mark(check.MarkHostileReplay)
				}
			})
		}
	case 4:
		if long, ok := inflateID(b, p.r); ok {
			want := check.AnswerSilent // no answer naming it, no effect
			if p.to == coreID {
				want = check.AnswerIgnore // skipped, the connection kept
			}
			p.u.forge(p.conn, p.from, long, &check.HostileProbe{Target: string(p.to), Action: check.HostileLongID, Want: []string{want}})
		}
	case 6:
		if stale := p.staleStatus(b); stale != nil {
			out = append(out, sim.ProxyFrame{Frame: stale, Forged: true})
		}
	case 5:
		if !p.big && p.r.IntN(12) == 0 { // 4 MiB frames are costly: rare
			p.big = true
			if p.r.IntN(4) == 0 {
				out = append(out, sim.ProxyFrame{Frame: p.u.padTo(b, sim.FrameBytesMax+1+p.r.IntN(1024)), Forged: true})
				p.u.mark(check.MarkHostileOversize)
			} else {
				out = append(out, sim.ProxyFrame{Frame: p.u.padTo(b, sim.FrameBytesMax-p.r.IntN(4096)), Forged: true})
				p.u.mark(check.MarkHostileNearLimit)
			}
		}
	}
	return out
}

// inflateID returns b with its envelope ID replaced by a hostile ID of
// 129 to 1,024 bytes, half of them exactly one byte over the limit (the
// boundary an off-by-one check lets through); ok is false for a frame
// without an ID.
func inflateID(b []byte, r *rand.Rand) ([]byte, bool) {
	f, err := wire.Decode(b)
	if err != nil || f.ID == "" {
		return nil, false
	}
	old := []byte(`"id":` + quote(f.ID))
	i := bytes.Index(b, old)
	if i < 0 {
		return nil, false
	}
	n := wire.IDBytesMax + 1
	if r.IntN(2) == 0 {
		n += r.IntN(1024 - wire.IDBytesMax)
	}
	head := check.HostileIDPrefix + "long-"
	long := head + strings.Repeat("z", n-len(head))
	out := append(append(append([]byte{}, b[:i]...), `"id":`+quote(long)...), b[i+len(old):]...)
	return out, true
}

func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
