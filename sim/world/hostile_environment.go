package world

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// Probes of runtime_prepare transfers and suspension fencing: a peer on
// Core's side of a Core–daemon connection puts, next to Core's own frames,
// requests the daemon must refuse before any native call (wire reference
// §3.2, §3.12), each registered as a check.HostileProbe:
//
//   - ahead of Core's begin: a begin whose sha256 is upper-case hex
//     (invalid_request);
//   - ahead of one chunk of a transfer: a one-byte chunk of the same
//     transfer at another offset than the bytes staged, or one with no
//     data (invalid_request; the installer's staging never sees it), or a
//     second transfer's begin (runtime_preparation_capacity), or an
//     execution_prepare bound to the Environment being prepared,
//     executable or read-only (resource_unavailable);
//   - towards Core, ahead of the daemon's answer to one chunk: a received
//     result one byte past the chunk's end, or at its end with an exit
//     code, which Core must refuse and then hold the connection (the
//     daemon still has the transfer open) while the operator prepares the
//     device again;
//   - ahead of Core's first resume (no rollback) of a daemon the wire
//     shows fenced by that suspension: a quiesce of another suspension (resource_busy), a
//     rollback resume of another suspension (not_suspended) and an
//     execution_prepare (resource_unavailable);
//   - behind Core's resume: a repeat of it without rollback, as a Core
//     that lost the reply sends (accepted again once it lifted the fence).
//
// And towards Core: ahead of the daemon's reply to Core's quiesce, a
// refusal under the request's Envelope ID naming another suspension, the
// request's suspension in upper case, the request's suspension and
// another Environment, or the exact refusal on another device's
// connection (Core must keep waiting each time: a reply proves something
// only with both IDs echoed exactly, on the request's connection); after
// Core recorded a transfer unknown on a live connection, a late received result of it (proves no
// terminal outcome) followed by a new preparation of the device (Core
// must not begin it there while the first may still be open).
//
// The begins refused at once carry IDs under check.HostileTransferPrefix
// (minted "xt…"): the installer must never be handed them.
//
// Draws come from their own stream, so other streams keep their draws;
// a fault-free run has no probes, and a third of the others neither.

type envProbes struct {
	r      *rand.Rand
	off    bool                  // a fault-free run, or one of the third drawn without probes
	fenced map[sim.NodeID]string // device → suspension whose accepted quiesced it sent, until resumed or dead
	sizes  map[string]int64      // Core's transfer → its declared body size
	probed map[string]bool       // Core's transfers probed once already
	xfers  map[string]envXfer    // Core's transfer → where it runs
	envs   map[string]string     // Core's transfer → the Environment it prepares
}

type envXfer struct {
	conn sim.ConnID
	dev  sim.NodeID
}

func (u *universe) envProbeState() *envProbes {
	e := &u.envProbe
	if e.r == nil {
		e.r = u.w.Rand("hostile:environment")
		e.off = u.faultFree() || e.r.IntN(3) == 0
		e.fenced, e.sizes, e.probed, e.xfers = map[sim.NodeID]string{}, map[string]int64{}, map[string]bool{}, map[string]envXfer{}
		e.envs = map[string]string{}
	}
	return e
}

// watchEnvironmentReplies follows a daemon's fencing answers (the world's
// own view of which daemon is fenced).
func (u *universe) watchEnvironmentReplies(from sim.NodeID, f wire.Frame) {
	e := u.envProbeState()
	switch p := f.Payload.(type) {
	case wire.EnvironmentQuiesced:
		if p.Accepted && !strings.HasPrefix(p.SuspendID, check.HostileIDPrefix) {
			e.fenced[from] = p.SuspendID
		}
	case wire.EnvironmentResumed:
		if p.Accepted && e.fenced[from] == p.SuspendID {
			delete(e.fenced, from)
		}
	}
}

// envProbeNodeDown: a daemon's fence belongs to its process.
func (u *universe) envProbeNodeDown(node sim.NodeID) { delete(u.envProbeState().fenced, node) }

// upperDigestBegin encodes a file begin whose sha256 is the right digest
// in upper-case hex (the encoder refuses it, so the bytes are patched).
func upperDigestBegin(id string) []byte {
	sum := sha256.Sum256([]byte("x"))
	lower := hex.EncodeToString(sum[:])
	b := encodeFrame(id, probeFileBegin(lower))
	if !bytes.Contains(b, []byte(lower)) {
		panic("the probe's begin does not encode its digest as expected: " + string(b))
	}
	return bytes.Replace(b, []byte(lower), []byte(strings.ToUpper(lower)), 1)
}

func probeFileBegin(digest string) wire.RuntimePrepare {
	return wire.RuntimePrepare{Step: wire.StepBegin, EnvironmentID: simEnvironmentID, SessionID: simEnvSessionID,
		Action: wire.PrepareActionFile, File: &wire.PrepareFile{Path: "/workspace/sim/probe.bin"}, SizeBytes: 1, SHA256: digest}
}

// envBoundPrepare is a valid prepare of session bound to Environment env:
// executable, or a read-only profile.
func envBoundPrepare(session, env string, readOnly bool) wire.ExecutionPrepare {
	c := hostileConfig(session, "m1")
	c.DisableExecutionEnvironment = false
	c.LocalEnvironment = &wire.LocalEnvironment{ID: env}
	if readOnly {
		c.AgentOptions = nil
		c.WorkspaceReadOnly, c.ReleaseOnCompletion = true, true
	}
	return wire.ExecutionPrepare{SessionID: session, Configuration: c}
}

// probeEnvironment puts the drawn probes next to a frame Core is about to
// send.
func (u *universe) probeEnvironment(s core.Send) {
	e := u.envProbeState()
	if e.off {
		return
	}
	conn := sim.ConnID(s.Conn)
	dev := u.peerOf(conn, coreID)
	if dev == "" || u.deviceByID(dev) == nil {
		return
	}
	h := &u.hostile
	switch p := s.Frame.Payload.(type) {
	case wire.RuntimePrepare:
		id := s.Frame.ID
		switch p.Step {
		case wire.StepBegin:
			e.sizes[id], e.xfers[id], e.envs[id] = p.SizeBytes, envXfer{conn, dev}, p.EnvironmentID
			if e.r.IntN(4) == 0 {
				x := h.mint("xtu")
				u.forge(conn, coreID, upperDigestBegin(x), &check.HostileProbe{Action: check.HostileUpperDigest, ReplyID: x})
			}
		case wire.StepChunk:
			if e.probed[id] {
				return
			}
			switch e.r.IntN(8) {
			case 0, 1:
				e.probed[id] = true
				x := h.mint("xtb")
				sum := sha256.Sum256([]byte("x"))
				u.forge(conn, coreID, encodeFrame(x, probeFileBegin(hex.EncodeToString(sum[:]))),
					&check.HostileProbe{Action: check.HostileSecondBegin, ReplyID: x})
			case 2:
				off := p.Offset + 1
				if off+1 > e.sizes[id] {
					off = p.Offset - 1
				}
				if off < 0 || off+1 > e.sizes[id] {
					return
				}
				e.probed[id] = true
				u.forge(conn, coreID, encodeFrame(id, wire.RuntimePrepare{Step: wire.StepChunk, Offset: off, Data: []byte{'x'}}),
					&check.HostileProbe{Action: check.HostileChunkWrongOffset, ReplyID: id})
			case 3:
				// at the staged offset, one byte longer than the file's rest
				n := e.sizes[id] - p.Offset + 1
				if n > wire.ChunkBytesMax {
					return
				}
				e.probed[id] = true
				u.forge(conn, coreID, encodeFrame(id, wire.RuntimePrepare{Step: wire.StepChunk, Offset: p.Offset, Data: bytes.Repeat([]byte{'x'}, int(n))}),
					&check.HostileProbe{Action: check.HostileChunkPastSize, ReplyID: id})
			case 4:
				// Core's own chunk under another transfer's ID
				e.probed[id] = true
				x := h.mint("xto")
				u.forge(conn, coreID, encodeFrame(x, wire.RuntimePrepare{Step: wire.StepChunk, Offset: p.Offset, Data: p.Data}),
					&check.HostileProbe{Action: check.HostileChunkOtherTransfer, ReplyID: x})
			case 5:
				// towards Core, ahead of the daemon's answer: received
				// one byte past the chunk's new end (which no earlier
				// answer carried either), or at it with an exit code:
				// Core's validator refuses it while the daemon still
				// holds the transfer; the operator prepares the device
				// again
				e.probed[id] = true
				end := p.Offset + int64(len(p.Data))
				forged := wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: end + 1}
				if e.r.IntN(2) == 0 {
					// the right new end, with an exit code (only a failed
					// result carries one)
					forged = wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: end, ExitCode: 3}
				}
				u.w.Forge(conn, dev, encodeFrame(id, forged))
				if u.wl != nil && u.wl.env != nil {
					u.wl.now(func(now time.Time) { u.wl.prepareAgain(now, string(dev)) })
				}
			case 6:
				// at the staged offset, with no data (at least one byte)
				e.probed[id] = true
				u.forge(conn, coreID, encodeFrame(id, wire.RuntimePrepare{Step: wire.StepChunk, Offset: p.Offset, Data: []byte{}}),
					&check.HostileProbe{Action: check.HostileChunkEmpty, ReplyID: id})
			case 7:
				// an execution_prepare bound to the Environment being
				// prepared (an executable one, or in half the cases a
				// read-only profile): refused resource_unavailable
				// (prepare_during_environment_preparation judges it)
				e.probed[id] = true
				sess := h.mint("s")
				u.forge(conn, coreID, encodeFrame(h.mint("pe"), envBoundPrepare(sess, e.envs[id], e.r.IntN(2) == 0)), nil)
			}
		}
	case wire.EnvironmentQuiesce:
		busy := func(env, suspend string) []byte {
			return encodeFrame(s.Frame.ID, wire.EnvironmentQuiesced{EnvironmentID: env, SuspendID: suspend, ErrorCode: "resource_busy"})
		}
		switch e.r.IntN(6) {
		case 0, 1:
			u.w.Forge(conn, dev, busy(p.EnvironmentID, h.mint("sus")))
		case 2:
			// the request's suspension, another Environment
			u.w.Forge(conn, dev, busy(h.mint("env"), p.SuspendID))
		case 3:
			// the exact refusal, on another device's connection to Core
			for _, c := range u.w.OpenConns() {
				if c.Acceptor == coreID && c.ID != conn && u.deviceByID(c.Dialer) != nil {
					u.w.Forge(c.ID, c.Dialer, busy(p.EnvironmentID, p.SuspendID))
					break
				}
			}
		case 4:
			// the request's suspension in upper case (echoed exactly or
			// not at all)
			u.w.Forge(conn, dev, busy(p.EnvironmentID, strings.ToUpper(p.SuspendID)))
		}
	case wire.EnvironmentResume:
		// only ahead of a first resume (no rollback): no earlier resume of
		// the suspension can lift the fence before these arrive
		if !p.Rollback && e.fenced[dev] == p.SuspendID && e.r.IntN(2) == 0 {
			q, r, pr := h.mint("fq"), h.mint("fr"), h.mint("fp")
			u.forge(conn, coreID, encodeFrame(q, wire.EnvironmentQuiesce{EnvironmentID: p.EnvironmentID, SuspendID: h.mint("sus")}),
				&check.HostileProbe{Action: check.HostileQuiesceOther, ReplyID: q})
			u.forge(conn, coreID, encodeFrame(r, wire.EnvironmentResume{EnvironmentID: p.EnvironmentID, SuspendID: h.mint("sus"), Rollback: true}),
				&check.HostileProbe{Action: check.HostileRollbackResumeOther, ReplyID: r})
			sess := h.mint("s")
			u.forge(conn, coreID, encodeFrame(pr, wire.ExecutionPrepare{SessionID: sess, Configuration: hostileConfig(sess, "m1")}),
				&check.HostileProbe{Action: check.HostilePrepareFenced, ReplyID: pr})
			if e.r.IntN(3) == 0 {
				// last: the repeat of the quiesce that fenced it (its reply
				// taken for lost) is accepted again, and the connection
				// closes under Core's resume
				fq := h.mint("fq")
				u.forge(conn, coreID, encodeFrame(fq, wire.EnvironmentQuiesce{EnvironmentID: p.EnvironmentID, SuspendID: p.SuspendID}),
					&check.HostileProbe{Action: check.HostileQuiesceRepeat, ReplyID: fq})
			}
		}
		if e.r.IntN(2) == 0 {
			rep := wire.EnvironmentResume{EnvironmentID: p.EnvironmentID, SuspendID: p.SuspendID}
			u.w.After(time.Millisecond, "", func() {
				if _, open := u.w.OpenConn(conn); !open {
					return
				}
				x := h.mint("rr")
				u.forge(conn, coreID, encodeFrame(x, rep),
					&check.HostileProbe{Action: check.HostileResumeRepeat, ReplyID: x, Suspend: rep.SuspendID})
			})
		}
	}
}

// lateTransferResult: Core recorded transfer id unknown; on a live
// connection, in half the cases, a late received result of it reaches
// Core, and the operator prepares the device again at once.
func (u *universe) lateTransferResult(id string) {
	e := u.envProbeState()
	x, ok := e.xfers[id]
	if e.off || !ok || e.r.IntN(2) != 0 {
		return
	}
	if _, open := u.w.OpenConn(x.conn); !open {
		return
	}
	u.w.Forge(x.conn, x.dev, encodeFrame(id, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: 1}))
	if u.wl != nil && u.wl.env != nil {
		u.wl.now(func(now time.Time) { u.wl.prepareAgain(now, string(x.dev)) })
	}
}
