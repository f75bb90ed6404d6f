package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
)

var fenceKills = flag.Int("fence-kills", 20, "SIGKILL points of TestCoreCrashFencing")

// fenceRun is the client-side record of a fencing crash campaign.
type fenceRun struct {
	t  *testing.T
	rt *scripted.Runtime
	// env of every suspension whose quiesce was answered.
	known map[string]string
	// resumedAt: suspensions Core reported resumed, with the number of
	// environment_resume frames the Runtime had received for each then.
	resumedAt map[string]int
	unknown   int       // suspensions found with an unknown outcome after a restart
	pending   []fenceOp // POSTs whose answers were lost: retried after the restart
	nextEnv   int
}

type fenceOp struct{ path, body, key string }

var errCoreGone = errors.New("core killed")

// TestCoreCrashFencing SIGKILLs a `turnstile core` child at seeded moments
// while an operator quiesces and resumes Environments of a scripted
// Runtime, restarts it on the same data directory, and checks after every
// restart: every answered quiesce is present; a suspension Core reported
// resumed is still resumed, a new resume of it is refused, and the Runtime
// never receives another environment_resume for it; no quiesce is sent
// twice; every resume after a suspension's first carries rollback; and a
// suspension whose reply was lost in the crash can be resumed with
// rollback.
func TestCoreCrashFencing(t *testing.T) {
	dir, tokenFile, token, cred := setup(t)
	rng := rand.New(rand.NewPCG(*crashSeed, 17))
	r := &fenceRun{t: t, rt: &scripted.Runtime{}, known: map[string]string{}, resumedAt: map[string]int{}}
	for i := 0; i <= *fenceKills; i++ {
		p := startCore(t, dir, tokenFile)
		api := newClient(t, p.base, token)
		c, served := daemon(t, p, cred, r.rt)
		waitHeartbeat(t, api)
		if err := r.verify(api); err != nil {
			t.Fatalf("verify after restart %d: %v", i, err)
		}
		if i == *fenceKills {
			r.finish(p, api)
			c.WS.CloseNow()
			<-served
			if code := p.terminate(); code != 0 {
				t.Fatalf("SIGTERM exit %d", code)
			}
			return
		}
		r.round(p, api, 1+rng.IntN(7))
		c.WS.CloseNow()
		<-served
		r.rt.OnFrame = nil
	}
}

// round quiesces and resumes fresh Environments until the kill point.
func (r *fenceRun) round(p *coreProc, api *client, killAfter int) {
	var count atomic.Int64
	var once sync.Once
	kill := func() { once.Do(p.kill) }
	tick := func() {
		if count.Add(1) >= int64(killAfter) {
			kill()
		}
	}
	r.rt.OnFrame = func([]byte) { tick() }
	for n := 0; n < 4 && p.alive(); n++ {
		r.nextEnv++
		env := fmt.Sprintf("env-%d", r.nextEnv)
		op := fenceOp{"/core/v1/suspensions", `{"device_id":"d1","environment_id":"` + env + `"}`, "q-" + env}
		body, err := r.post(api, op, 202)
		if err != nil {
			break
		}
		tick()
		sid := jsonField(body, "suspend_id")
		r.known[sid] = env
		state, err := r.settle(api, sid)
		if err != nil {
			break
		}
		if state != "quiesced" {
			r.t.Fatalf("%s: quiesce settled %s", sid, state)
		}
		if _, err := r.resume(api, sid, "r-"+sid); err != nil {
			break
		}
		tick()
	}
	kill()
}

// post sends op; a lost answer queues op for a retry after the restart.
func (r *fenceRun) post(api *client, op fenceOp, want int) (string, error) {
	st, body, _, err := api.do("POST", op.path, op.body, "Idempotency-Key", op.key)
	if err != nil {
		r.pending = append(r.pending, op)
		return "", errCoreGone
	}
	if st != want {
		r.t.Fatalf("POST %s (key %s): %d %s, want %d", op.path, op.key, st, body, want)
	}
	return body, nil
}

// settle polls a suspension until no request of it awaits a reply.
func (r *fenceRun) settle(api *client, sid string) (string, error) {
	for {
		st, body, _, err := api.do("GET", "/core/v1/suspensions/"+sid, "")
		if err != nil {
			return "", errCoreGone
		}
		if st != 200 {
			r.t.Fatalf("suspension %s: %d %s", sid, st, body)
		}
		if s := jsonField(body, "state"); s != "quiescing" && s != "resuming" {
			return s, nil
		}
	}
}

// resume resumes sid and waits for the outcome; once Core reports it
// resumed, a second resume must be refused.
func (r *fenceRun) resume(api *client, sid, key string) (string, error) {
	if _, err := r.post(api, fenceOp{"/core/v1/suspensions/" + sid + "/resume", "", key}, 202); err != nil {
		return "", err
	}
	state, err := r.settle(api, sid)
	if err != nil {
		return "", err
	}
	if state != "resumed" {
		r.t.Fatalf("%s: resume settled %s", sid, state)
	}
	r.noteResumed(sid)
	return state, r.refusedAgain(api, sid)
}

func (r *fenceRun) noteResumed(sid string) {
	if _, ok := r.resumedAt[sid]; !ok {
		r.resumedAt[sid] = len(r.rt.Resumes()[sid])
	}
}

// refusedAgain: a resumed suspension takes no further resume.
func (r *fenceRun) refusedAgain(api *client, sid string) error {
	st, body, _, err := api.do("POST", "/core/v1/suspensions/"+sid+"/resume", `{"rollback":true}`)
	if err != nil {
		return errCoreGone
	}
	if st != 409 || jsonField(body, "error") != "suspension_terminal" {
		r.t.Fatalf("second resume of %s: %d %s, want 409 suspension_terminal", sid, st, body)
	}
	return nil
}

// verify checks the durable facts on a freshly restarted Core and
// resumes every suspension left unresolved by the crash.
func (r *fenceRun) verify(api *client) error {
	ops := r.pending
	r.pending = nil
	for _, op := range ops {
		body, err := r.post(api, op, 202)
		if err != nil {
			return err
		}
		if op.path == "/core/v1/suspensions" {
			r.known[jsonField(body, "suspend_id")] = op.body
		}
	}
	for _, sid := range slices.Sorted(maps.Keys(r.known)) {
		state, err := r.settle(api, sid) // a 404 fails: an answered quiesce was lost
		if err != nil {
			return err
		}
		if _, ok := r.resumedAt[sid]; ok {
			if state != "resumed" {
				r.t.Fatalf("%s was reported resumed, after the restart it is %s", sid, state)
			}
			if err := r.refusedAgain(api, sid); err != nil {
				return err
			}
			continue
		}
		switch state {
		case "quiesce_unknown", "resume_unknown":
			r.unknown++
		case "quiesced", "resumed":
		default:
			r.t.Fatalf("%s after a restart: %s", sid, state)
		}
		if state == "resumed" {
			r.noteResumed(sid)
			continue
		}
		if _, err := r.resume(api, sid, fmt.Sprintf("v-%s-%d", sid, r.nextEnv)); err != nil {
			return err
		}
	}
	r.checkRuntime()
	return nil
}

// checkRuntime checks what the Runtime received against what Core reported.
func (r *fenceRun) checkRuntime() {
	for sid, n := range r.rt.Quiesces() {
		if n != 1 {
			r.t.Fatalf("suspension %s quiesced %d times", sid, n)
		}
	}
	for sid, flags := range r.rt.Resumes() {
		if at, ok := r.resumedAt[sid]; ok && len(flags) != at {
			r.t.Fatalf("suspension %s: %d resumes received, %d when Core reported it resumed", sid, len(flags), at)
		}
		for i, rollback := range flags {
			if i > 0 && !rollback {
				r.t.Fatalf("suspension %s: resume %d without rollback after an earlier one: %v", sid, i+1, flags)
			}
		}
	}
}

func (r *fenceRun) finish(p *coreProc, api *client) {
	if len(r.resumedAt) != len(r.known) {
		r.t.Fatalf("%d suspensions, %d resumed", len(r.known), len(r.resumedAt))
	}
	twice := 0
	for _, flags := range r.rt.Resumes() {
		if len(flags) > 1 {
			twice++
		}
	}
	r.t.Logf("%d kill points, %d suspensions, %d found unknown after a restart, %d resumed again with rollback",
		*fenceKills, len(r.known), r.unknown, twice)
	if len(r.known) < *fenceKills {
		r.t.Fatalf("only %d suspensions in %d rounds", len(r.known), *fenceKills)
	}
}

// waitHeartbeat waits until Core has read the Runtime's first heartbeat
// (before it, a quiesce is refused device_not_connected, and that answer
// would be stored under the request's Idempotency-Key).
func waitHeartbeat(t *testing.T, api *client) {
	t.Helper()
	for {
		body := api.must("GET", "/core/v1/devices", "", 200)
		if strings.Contains(body, `"connected":true`) && strings.Contains(body, `"last_heartbeat_at"`) {
			return
		}
		runtime.Gosched()
	}
}
