package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coreapi "github.com/turnstile-sim/turnstile/core/api"
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
	key      string // the API key, issued once on the data directory
	rt       *scripted.Runtime
	answered map[string]receipt    // idempotency key -> receipt, answered writes
	pending  []string              // keys whose answer was lost
	seen     map[string][]sseEvent // events observed on live streams, per turn
	stored   map[string][]sseEvent // events read back after the last restart
	nextKey  int
	kills    int       // SIGKILLs of the campaign
	killedAt time.Time // when the last SIGKILL's process ended
}

// receipt is what a message event did: turn_started or steered, in which
// Turn.
type receipt struct{ action, turn string }

func turnText(key string) string { return "turn " + key }

// TestCoreCrashRecovery SIGKILLs a `turnstile core` child at seeded
// moments (after a random number of Runtime frames and API answers) while
// a scripted Runtime and a /v1 client drive Turns (message events with an
// Idempotency-Key), restarts it on the same data directory, and checks
// after every restart: every answered message is present, a retried
// message creates nothing and replays its first receipt, no Run was
// started twice, and no persisted event was lost or reordered (every
// event a stream showed before the crash is still there, in order, and
// stored streams only grow).
func TestCoreCrashRecovery(t *testing.T) {
	dir, tokenFile, token, cred := setup(t)
	coreCrashRecovery(t, dir, tokenFile, token, cred, *crashKills)
}

// TestCoreCrashRecoveryPostgres is TestCoreCrashRecovery with Core on a
// PostgreSQL schema of its own (-store), restarted on the same schema.
// The restarted Core waits for the killed one's lease to expire, so the
// lease TTL is the shortest allowed.
func TestCoreCrashRecoveryPostgres(t *testing.T) {
	testgate.Long(t)
	t.Parallel() // waits on real processes and timers, using little CPU
	dsn, tokenFile, token, cred := setupPG(t)
	coreCrashRecovery(t, dsn, tokenFile, token, cred, *crashKills, "-lease-ttl", "1s")
}

// coreCrashRecovery runs the crash campaign on dir (a data directory or a
// PostgreSQL URL) with kills SIGKILLs; extra are more flags of Core.
func coreCrashRecovery(t *testing.T, dir, tokenFile, token, cred string, kills int, extra ...string) {
	rng := rand.New(rand.NewPCG(*crashSeed, 7))
	r := &crashRun{t: t, rt: &scripted.Runtime{Deltas: 3}, answered: map[string]receipt{},
		seen: map[string][]sseEvent{}, stored: map[string][]sseEvent{}, key: issueKey(t, dir), kills: kills}
	for i := 0; i <= kills; i++ {
		p := startCore(t, dir, tokenFile, extra...)
		api := newClient(t, p.base, token)
		api.key = r.key
		if i == 0 {
			r.sid = api.session("contract", "m")
		}
		r.verify(api)
		if i == kills {
			r.finish(p, api, cred)
			return
		}
		r.round(p, api, cred, 1+rng.IntN(12))
	}
}

// send posts the message of key; err is a transport error (a killed
// Core).
func (r *crashRun) send(api *client, key string) (receipt, error) {
	st, body, _, err := api.do("POST", "/v1/agents/sessions/"+r.sid+"/events", `{"events":[`+messageEvent(turnText(key))+`]}`, "Idempotency-Key", key)
	if err != nil {
		return receipt{}, err
	}
	var out struct {
		Receipts []struct {
			Action string `json:"action"`
			TurnID string `json:"turn_id"`
		} `json:"receipts"`
	}
	if st != 200 || json.Unmarshal([]byte(body), &out) != nil || len(out.Receipts) != 1 || out.Receipts[0].TurnID == "" {
		r.t.Fatalf("message %s: %d %s", key, st, body)
	}
	return receipt{out.Receipts[0].Action, out.Receipts[0].TurnID}, nil
}

// round drives Turns until the kill point, then SIGKILLs Core.
func (r *crashRun) round(p *coreProc, api *client, cred string, killAfter int) {
	var count atomic.Int64
	var once sync.Once
	kill := func() {
		once.Do(func() {
			p.kill()
			r.killedAt = time.Now()
		})
	}
	tick := func() {
		if count.Add(1) >= int64(killAfter) {
			kill()
		}
	}
	r.rt.OnFrame = func([]byte) { tick() }
	c, served := daemon(r.t, p, cred, r.rt)
	for n := 0; n < 6 && p.alive(); n++ {
		key := r.nextIdempotencyKey()
		rc, err := r.send(api, key)
		if err != nil {
			r.pending = append(r.pending, key) // its answer was lost: retried later
			break
		}
		r.answer(key, rc)
		tick()
		evs, _ := api.events(rc.turn, "")
		r.seen[rc.turn] = append([]sseEvent(nil), evs...)
	}
	kill()
	c.WS.CloseNow()
	<-served
	r.rt.OnFrame = nil
}

func (r *crashRun) nextIdempotencyKey() string {
	r.nextKey++
	return fmt.Sprintf("k-%d", r.nextKey)
}

func (r *crashRun) answer(key string, rc receipt) {
	if prev, ok := r.answered[key]; ok && prev != rc {
		r.t.Fatalf("key %s answered %v, then %v", key, prev, rc)
	}
	r.answered[key] = rc
}

// terminal reports whether the Turn has ended.
func terminal(api *client, turn string) bool {
	switch jsonField(api.must("GET", "/core/v1/turns/"+turn, "", 200), "state") {
	case "completed", "failed", "cancelled":
		return true
	}
	return false
}

// cursorRun is the run-event part of a /v1 stream cursor.
func cursorRun(id string) string {
	f := strings.Split(id, ":")
	if len(f) != 5 {
		return ""
	}
	return f[2]
}

// verify checks the durable facts on a freshly restarted Core.
func (r *crashRun) verify(api *client) {
	t := r.t
	// A message whose answer was lost may or may not have been committed;
	// its retry with the same key answers it either way, exactly once.
	for _, key := range r.pending {
		rc, err := r.send(api, key)
		if err != nil {
			t.Fatalf("retry of %s: %v", key, err)
		}
		r.answer(key, rc)
	}
	r.pending = nil
	started := map[string]bool{}
	for key, rc := range r.answered {
		if st, body, _, err := api.do("GET", "/v1/agents/sessions/"+r.sid+"/turns/"+rc.turn, ""); err != nil || st != 200 {
			t.Fatalf("answered message %s (turn %s) lost: %d %s %v", key, rc.turn, st, body, err)
		}
		// A retried answered message replays its first receipt.
		if again, err := r.send(api, key); err != nil || again != rc {
			t.Fatalf("retry of %s: %v %v, first %v", key, again, err, rc)
		}
		if rc.action == "turn_started" {
			started[rc.turn] = true
		}
	}
	for run, n := range r.rt.Starts() {
		if n != 1 {
			t.Fatalf("Run %s started %d times", run, n)
		}
	}
	n := 0 // Turns listed, every page
	for page := "?limit=100&order=asc"; page != ""; {
		var list struct {
			Data    []struct{ ID string } `json:"data"`
			HasMore bool                  `json:"has_more"`
			LastID  *string               `json:"last_id"`
		}
		if err := json.Unmarshal([]byte(api.must("GET", "/v1/agents/sessions/"+r.sid+"/turns"+page, "", 200)), &list); err != nil {
			t.Fatal(err)
		}
		n += len(list.Data)
		page = ""
		if list.HasMore {
			page = "?limit=100&order=asc&after=" + *list.LastID
		}
	}
	if n != len(started) {
		t.Fatalf("%d Turns stored for %d answered messages that started one (a retry created one, or one is missing)", n, len(started))
	}
	for turn := range started {
		if !terminal(api, turn) {
			continue // queued or running: its stream would wait
		}
		evs, err := api.events(turn, "")
		if err != nil || len(evs) == 0 {
			t.Fatalf("events of %s: %v %v", turn, evs, err)
		}
		data := evs[:len(evs)-1] // without the Turn's terminal event
		for i, ev := range data {
			if ev.Event != coreapi.EvOutputTextDelta || cursorRun(ev.ID) != fmt.Sprint(i+1) {
				t.Fatalf("turn %s: event %d is %s %s (lost or reordered): %v", turn, i+1, ev.Event, ev.ID, evs)
			}
		}
		for _, prev := range [][]sseEvent{r.seen[turn], r.stored[turn]} {
			for i, ev := range prev {
				if ev.Event != coreapi.EvOutputTextDelta {
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

// finish lets every unfinished Turn run to its end on the last Core,
// checks again, and stops Core with SIGTERM.
func (r *crashRun) finish(p *coreProc, api *client, cred string) {
	c, served := daemon(r.t, p, cred, r.rt)
	for _, rc := range r.answered {
		if _, err := api.events(rc.turn, ""); err != nil {
			r.t.Fatalf("events of %s: %v", rc.turn, err)
		}
	}
	r.verify(api)
	completed, turns := 0, map[string]bool{}
	for _, rc := range r.answered {
		if turns[rc.turn] {
			continue
		}
		turns[rc.turn] = true
		if jsonField(api.must("GET", "/core/v1/turns/"+rc.turn, "", 200), "state") == "completed" {
			completed++
		}
	}
	r.t.Logf("%d kill points, %d answered messages, %d Turns, %d completed, %d Runs started", *crashKills, len(r.answered), len(turns), completed, len(r.rt.Starts()))
	if completed < len(turns)/2 {
		r.t.Fatalf("only %d of %d Turns completed", completed, len(turns))
	}
	c.WS.CloseNow()
	<-served
	if code := p.terminate(); code != 0 {
		r.t.Fatalf("SIGTERM exit %d", code)
	}
}
