package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/internal/testgate"
)

var (
	crashKills = flag.Int("crash-kills", 20, "SIGKILL points of TestCoreCrashRecovery")
	crashSeed  = flag.Uint64("crash-seed", 1, "seed of TestCoreCrashRecovery's kill points")
)

// crashRun is the client-side record of a crash campaign.
type crashRun struct {
	t        *testing.T
	sid      string
	rt       *scripted.Runtime
	answered map[string]string     // idempotency key -> turn ID, answered writes
	pending  []string              // keys whose answer was lost
	seen     map[string][]sseEvent // events observed on live streams, per turn
	stored   map[string][]sseEvent // events read back after the last restart
	nextKey  int
	kills    int // SIGKILLs of the campaign
}

func turnBody(key string) string { return `{"text":"turn ` + key + `"}` }

// TestCoreCrashRecovery SIGKILLs a `turnstile core` child at seeded
// moments (after a random number of Runtime frames and API answers) while
// a scripted Runtime and an API client drive Turns, restarts it on the same
// data directory, and checks after every restart: every answered API write
// is present, a retried write creates nothing, no Run was started twice,
// and no persisted event was lost or reordered (every event a stream showed
// before the crash is still there, in order, and stored streams only grow).
func TestCoreCrashRecovery(t *testing.T) {
	dir, tokenFile, token, cred := setup(t)
	coreCrashRecovery(t, dir, tokenFile, token, cred, *crashKills)
}

// TestCoreCrashRecoveryPostgres is TestCoreCrashRecovery with Core on a
// PostgreSQL schema of its own (-store), restarted on the same schema.
func TestCoreCrashRecoveryPostgres(t *testing.T) {
	testgate.Long(t)
	dsn, tokenFile, token, cred := setupPG(t)
	coreCrashRecovery(t, dsn, tokenFile, token, cred, *crashKills)
}

// coreCrashRecovery runs the crash campaign on dir (a data directory or a
// PostgreSQL URL) with kills SIGKILLs.
func coreCrashRecovery(t *testing.T, dir, tokenFile, token, cred string, kills int) {
	rng := rand.New(rand.NewPCG(*crashSeed, 7))
	r := &crashRun{t: t, rt: &scripted.Runtime{Deltas: 3}, answered: map[string]string{},
		seen: map[string][]sseEvent{}, stored: map[string][]sseEvent{}, kills: kills}
	for i := 0; i <= kills; i++ {
		p := startCore(t, dir, tokenFile)
		api := newClient(t, p.base, token)
		if i == 0 {
			r.sid = jsonField(api.must("POST", "/api/v1/sessions",
				`{"agent":{"kind":"contract","model":"m"},"environment":{"type":"none"}}`, 201), "session_id")
		}
		r.verify(api)
		if i == kills {
			r.finish(p, api, cred)
			return
		}
		r.round(p, api, cred, 1+rng.IntN(12))
	}
}

// round drives Turns until the kill point, then SIGKILLs Core.
func (r *crashRun) round(p *coreProc, api *client, cred string, killAfter int) {
	var count atomic.Int64
	var once sync.Once
	kill := func() { once.Do(p.kill) }
	tick := func() {
		if count.Add(1) >= int64(killAfter) {
			kill()
		}
	}
	r.rt.OnFrame = func([]byte) { tick() }
	c, served := daemon(r.t, p, cred, r.rt)
	for n := 0; n < 6 && p.alive(); n++ {
		key := r.key()
		st, body, _, err := api.do("POST", "/api/v1/sessions/"+r.sid+"/turns", turnBody(key), "Idempotency-Key", key)
		if err != nil {
			r.pending = append(r.pending, key) // its answer was lost: retried later
			break
		}
		if st != 201 {
			r.t.Fatalf("submit: %d %s", st, body)
		}
		r.answer(key, jsonField(body, "turn_id"))
		tick()
		evs, _ := api.events(r.answered[key], "")
		r.seen[r.answered[key]] = append([]sseEvent(nil), evs...)
	}
	kill()
	c.WS.CloseNow()
	<-served
	r.rt.OnFrame = nil
}

func (r *crashRun) key() string {
	r.nextKey++
	return fmt.Sprintf("k-%d", r.nextKey)
}

func (r *crashRun) answer(key, turn string) {
	if prev, ok := r.answered[key]; ok && prev != turn {
		r.t.Fatalf("key %s answered %s, then %s", key, prev, turn)
	}
	r.answered[key] = turn
}

// verify checks the durable facts on a freshly restarted Core.
func (r *crashRun) verify(api *client) {
	t := r.t
	// A write whose answer was lost may or may not have been committed;
	// its retry with the same key answers it either way, exactly once.
	for _, key := range r.pending {
		body := api.must("POST", "/api/v1/sessions/"+r.sid+"/turns", turnBody(key), 201, "Idempotency-Key", key)
		r.answer(key, jsonField(body, "turn_id"))
	}
	r.pending = nil
	for key, turn := range r.answered {
		if st, body, _, err := api.do("GET", "/api/v1/turns/"+turn, ""); err != nil || st != 200 {
			t.Fatalf("answered write %s (turn %s) lost: %d %s %v", key, turn, st, body, err)
		}
		// A retried answered write replays its first answer.
		st, body, h, err := api.do("POST", "/api/v1/sessions/"+r.sid+"/turns", turnBody(key), "Idempotency-Key", key)
		if err != nil || st != 201 || jsonField(body, "turn_id") != turn || h.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("retry of %s: %d %s %v", key, st, body, err)
		}
	}
	for run, n := range r.rt.Starts() {
		if n != 1 {
			t.Fatalf("Run %s started %d times", run, n)
		}
	}
	n := 0 // Turns listed, every page
	for page := "?limit=200"; page != ""; {
		list := api.must("GET", "/api/v1/sessions/"+r.sid+"/turns"+page, "", 200)
		n += strings.Count(list, `"session_id"`)
		page = ""
		if after := jsonField(list, "next_after"); after != "" {
			page = "?limit=200&after=" + after
		}
	}
	if n != len(r.answered) {
		t.Fatalf("%d Turns stored for %d answered writes (a retry created one, or one is missing)", n, len(r.answered))
	}
	for _, turn := range r.answered {
		body := api.must("GET", "/api/v1/turns/"+turn, "", 200)
		switch jsonField(body, "state") {
		case "completed", "failed", "cancelled":
		default:
			continue // queued: no events yet, and its stream would wait
		}
		evs, err := api.events(turn, "")
		if err != nil {
			t.Fatalf("events of %s: %v", turn, err)
		}
		data := evs[:len(evs)-1] // without end / observation_error
		for i, ev := range data {
			if ev.ID != fmt.Sprint(i+1) {
				t.Fatalf("turn %s: event %d has id %s (lost or reordered): %v", turn, i+1, ev.ID, evs)
			}
		}
		for _, prev := range [][]sseEvent{r.seen[turn], r.stored[turn]} {
			for i, ev := range prev {
				if ev.Event == "end" || ev.Event == "observation_error" {
					break
				}
				if i >= len(data) || data[i] != ev {
					t.Fatalf("turn %s: event %v observed before the crash is gone or changed: %v", turn, ev, data)
				}
			}
		}
		r.stored[turn] = data
	}
}

// finish lets every queued Turn run to its end on the last Core, checks
// again, and stops Core with SIGTERM.
func (r *crashRun) finish(p *coreProc, api *client, cred string) {
	c, served := daemon(r.t, p, cred, r.rt)
	for _, turn := range r.answered {
		if _, err := api.events(turn, ""); err != nil {
			r.t.Fatalf("events of %s: %v", turn, err)
		}
	}
	r.verify(api)
	completed := 0
	for _, turn := range r.answered {
		if jsonField(api.must("GET", "/api/v1/turns/"+turn, "", 200), "state") == "completed" {
			completed++
		}
	}
	r.t.Logf("%d kill points, %d answered Turns, %d completed, %d Runs started", r.kills, len(r.answered), completed, len(r.rt.Starts()))
	if completed < len(r.answered)/2 {
		r.t.Fatalf("only %d of %d Turns completed", completed, len(r.answered))
	}
	c.WS.CloseNow()
	<-served
	if code := p.terminate(); code != 0 {
		r.t.Fatalf("SIGTERM exit %d", code)
	}
}
