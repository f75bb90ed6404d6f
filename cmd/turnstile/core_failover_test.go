package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
	"github.com/turnstile-sim/turnstile/core/store/pgstore/pgtest"
	"github.com/turnstile-sim/turnstile/internal/testgate"
)

var failoverKills = flag.Int("failover-kills", 20, "SIGKILL points of TestCoreFailoverAcrossSIGKILL")

// takeoverMax is the longest takeover the default lease TTL allows: the
// TTL, one poll and loading the store, with margin for a loaded machine.
const takeoverMax = 10 * time.Second

// startStandby starts `turnstile core` on the PostgreSQL schema dsn while
// another Core holds the lease, and waits for its standby line.
func startStandby(t *testing.T, dsn, tokenFile string, extra ...string) *coreProc {
	t.Helper()
	p, err := startCoreProcUntil(msgStandby, dsn, tokenFile, extra...)
	if err != nil {
		t.Fatal(err)
	}
	p.t = t
	t.Cleanup(p.stop)
	return p
}

// logTime is the time of p's first log line with message msg.
func logTime(t *testing.T, p *coreProc, msg string) time.Time {
	t.Helper()
	for _, line := range strings.Split(p.stderr.String(), "\n") {
		var rec struct {
			Time time.Time
			Msg  string
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == msg {
			return rec.Time
		}
	}
	t.Fatalf("no %q line:\n%s", msg, p.stderr.String())
	return time.Time{}
}

// awaitTakeover waits until the standby p serves and returns how long
// after since its listening line came.
func awaitTakeover(t *testing.T, p *coreProc, since time.Time) time.Duration {
	t.Helper()
	if !p.await(`"msg":"`+msgListening+`"`, 3*takeoverMax) {
		t.Fatalf("the standby did not take over:\n%s", p.stderr.String())
	}
	return logTime(t, p, msgListening).Sub(since)
}

// summarize renders the maximum and median of ds.
func summarize(ds []time.Duration) (maxD, median time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)-1], s[len(s)/2]
}

// TestCoreFailoverAcrossSIGKILL runs the crash campaign of
// TestCoreCrashRecoveryPostgres with a standby Core beside the active one:
// at each of -failover-kills seeded points the active Core is SIGKILLed,
// the standby takes the lease and serves, a new standby is started, and
// the campaign's checks run on the new active Core (every answered
// message present, retries replay their receipt, no Run started twice,
// no persisted event lost). Takeover (SIGKILL to the standby's listening
// line) stays within takeoverMax; a SIGTERM at the end hands the lease
// over at the standby's next poll.
func TestCoreFailoverAcrossSIGKILL(t *testing.T) {
	testgate.Long(t)
	t.Parallel() // waits on real processes and timers, using little CPU
	dsn, tokenFile, token, cred := setupPG(t)
	rng := rand.New(rand.NewPCG(*crashSeed, 11))
	r := &crashRun{t: t, rt: &scripted.Runtime{Deltas: 3}, answered: map[string]receipt{},
		seen: map[string][]sseEvent{}, stored: map[string][]sseEvent{}, key: issueKey(t, dsn), kills: *failoverKills}
	active := startCore(t, dsn, tokenFile)
	standby := startStandby(t, dsn, tokenFile)
	var takeovers []time.Duration
	for i := 0; ; i++ {
		api := newClient(t, active.base, token)
		api.key = r.key
		if i == 0 {
			r.sid = api.session("contract", "m")
		}
		r.verify(api)
		if i == r.kills {
			r.finish(active, api, cred)
			break
		}
		r.round(active, api, cred, 1+rng.IntN(12))
		d := awaitTakeover(t, standby, r.killedAt)
		if d > takeoverMax {
			t.Fatalf("takeover %d took %v (more than %v):\n%s", i+1, d, takeoverMax, standby.stderr.String())
		}
		takeovers = append(takeovers, d)
		active, standby = standby, startStandby(t, dsn, tokenFile)
	}
	maxD, median := summarize(takeovers)
	t.Logf("%d takeovers after SIGKILL: max %v, median %v (lease TTL %v)", len(takeovers), maxD.Round(time.Millisecond),
		median.Round(time.Millisecond), DefaultLeaseTTL)
	// finish stopped the last active Core with SIGTERM: the lease is
	// released and the standby takes it at its next poll.
	stopped := logTime(t, active, "stopped")
	handover := awaitTakeover(t, standby, stopped)
	t.Logf("handover after SIGTERM: %v", handover.Round(time.Millisecond))
	if handover > DefaultLeaseTTL {
		t.Fatalf("handover after a graceful stop took %v: the lease was not released", handover)
	}
	if code := standby.terminate(); code != 0 {
		t.Fatalf("SIGTERM exit %d", code)
	}
	if n := pgtest.QueryInt(t, dsn, `SELECT epoch FROM lease`); n != int64(r.kills+2) {
		t.Fatalf("lease epoch %d after %d takeovers and one handover", n, r.kills)
	}
}

// storeCounts is the row count of every table a Core's commits write.
func storeCounts(t *testing.T, dsn string) string {
	t.Helper()
	var b strings.Builder
	for _, table := range []string{"sessions", "turns", "inputs", "events", "idempotency", "suspensions", "preparations", "counters", "devices", "resources"} {
		fmt.Fprintf(&b, "%s=%d ", table, pgtest.QueryInt(t, dsn, "SELECT count(*) FROM "+table))
	}
	return b.String()
}

// pause stops the Core with SIGSTOP and returns once the kernel reports
// the whole process stopped: the signal only marks its threads, and on a
// loaded machine they may serve a request before each of them stops. The
// test's cleanup continues it.
func (p *coreProc) pause() {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { _ = p.cmd.Process.Signal(syscall.SIGCONT) })
	var ws syscall.WaitStatus
	for {
		pid, err := syscall.Wait4(p.cmd.Process.Pid, &ws, syscall.WUNTRACED, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil || pid != p.cmd.Process.Pid:
			p.t.Fatalf("waiting for the Core to stop: pid %d, %v", pid, err)
		case !ws.Stopped():
			p.t.Fatalf("the Core did not stop: wait status %#x\n%s", ws, p.stderr.String())
		}
		return
	}
}

// TestCoreFencesAPausedActiveCore: the active Core is paused (SIGSTOP)
// past its lease while a real daemon, given both Cores' URLs, is
// connected to it; the standby takes over. A write sent to the paused
// Core waits in its socket. When the paused Core runs again it finds
// itself fenced: it logs pgstore.ErrFenced and exits 1, the waiting write
// gets no successful answer, nothing of it is in the database (no row
// count moved while it ran), and the daemon moves to the new active Core,
// which runs the next Turn.
func TestCoreFencesAPausedActiveCore(t *testing.T) {
	testgate.Long(t)
	dsn, tokenFile, token, cred := setupPG(t)
	credFile := filepath.Join(filepath.Dir(tokenFile), "device.cred")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startCore(t, dsn, tokenFile)
	b := startStandby(t, dsn, tokenFile)
	checkStandbyAnswers(t, b, token)
	d := startDaemonProc(t, "-core", a.base+","+b.base, "-device", "d1", "-credential-file", credFile)
	c := newAPIClient(t, a.base, dsn, token)
	sid := c.session("synthetic", "synthetic-1")
	first := c.submit(sid, "before the pause")
	if _, err := c.events(first, ""); err != nil {
		t.Fatal(err)
	}
	if got := c.turn(first); got.State != "completed" {
		t.Fatalf("turn before the pause: %+v", got)
	}

	a.pause()
	paused := time.Now()
	type answer struct {
		status int
		body   string
		err    error
	}
	zombie := make(chan answer, 1)
	go func() {
		st, body, _, err := c.do("POST", "/v1/agents/sessions/"+sid+"/events", `{"events":[`+messageEvent("sent to the paused Core")+`]}`,
			"Idempotency-Key", "paused-1")
		zombie <- answer{st, body, err}
	}()
	takeover := awaitTakeover(t, b, paused)
	t.Logf("takeover from a paused Core: %v", takeover.Round(time.Millisecond))
	if takeover > takeoverMax {
		t.Fatalf("takeover took %v", takeover)
	}
	before := storeCounts(t, dsn)

	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the fenced Core still runs:\n%s", a.stderr.String())
	}
	if a.code != exitFail || !strings.Contains(a.stderr.String(), pgstore.ErrFenced.Error()) {
		t.Fatalf("fenced Core: exit %d, log:\n%s", a.code, a.stderr.String())
	}
	for _, line := range strings.Split(a.stderr.String(), "\n") {
		if strings.Contains(line, pgstore.ErrFenced.Error()) {
			t.Logf("fenced Core: %s", line)
		}
	}
	got := <-zombie
	if got.err == nil && got.status/100 == 2 {
		t.Fatalf("the fenced Core answered a write: %d %s", got.status, got.body)
	}
	t.Logf("the write sent to the paused Core: status %d, err %v", got.status, got.err)
	if after := storeCounts(t, dsn); after != before {
		t.Fatalf("rows changed while the fenced Core ran:\n before %s\n after  %s", before, after)
	}
	if n := pgtest.QueryInt(t, dsn, `SELECT count(*) FROM inputs WHERE body LIKE '%sent to the paused Core%'`); n != 0 {
		t.Fatalf("the write sent to the fenced Core is stored (%d inputs)", n)
	}

	// The daemon leaves the dead Core for the active one.
	select {
	case <-d.connects:
	case <-time.After(3 * takeoverMax):
		t.Fatalf("the daemon did not reconnect:\n%s", d.stderr.String())
	}
	if !strings.Contains(d.stderr.String(), `msg="trying the next Core" core=`+b.base) {
		t.Fatalf("the daemon did not move to %s:\n%s", b.base, d.stderr.String())
	}
	c.base = b.base
	second := c.submit(sid, "after the takeover")
	if _, err := c.events(second, ""); err != nil {
		t.Fatal(err)
	}
	if got := c.turn(second); got.State != "completed" {
		t.Fatalf("turn on the new active Core: %+v", got)
	}
	if got := c.turn(first); got.State != "completed" {
		t.Fatalf("turn before the pause, read on the new active Core: %+v", got)
	}
	if n := pgtest.QueryInt(t, dsn, `SELECT epoch FROM lease`); n != 2 {
		t.Fatalf("lease epoch %d", n)
	}
	if code := b.terminate(); code != 0 {
		t.Fatalf("SIGTERM exit %d", code)
	}
	_ = d.terminate(t)
}

// checkStandbyAnswers: a standby is alive (/healthz 200) but not ready
// (/readyz 503), and refuses the Agents API, the operator API and the
// Runtime gateway with 503 core_standby: OpenAI-shaped on the Agents
// API, the operator API's and the gateway's own error body on theirs.
func checkStandbyAnswers(t *testing.T, p *coreProc, token string) {
	t.Helper()
	get := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, p.base+path, bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out bytes.Buffer
		_, _ = out.ReadFrom(resp.Body)
		return resp.StatusCode, out.String()
	}
	if st, body := get("GET", "/healthz", ""); st != 200 {
		t.Fatalf("standby /healthz: %d %s", st, body)
	}
	if st, body := get("GET", "/readyz", ""); st != 503 {
		t.Fatalf("standby /readyz: %d %s", st, body)
	}
	st, body := get("GET", "/v1/agents/sessions", "")
	var v1 struct {
		Error struct{ Message, Type, Code string }
	}
	if st != 503 || json.Unmarshal([]byte(body), &v1) != nil || v1.Error.Code != CodeStandby || v1.Error.Type != "server_error" ||
		!strings.Contains(v1.Error.Message, "standby") {
		t.Fatalf("standby /v1/agents/sessions: %d %s", st, body)
	}
	for _, route := range [][2]string{{"GET", "/core/v1/devices"}, {"POST", "/api/v1/agent-daemon/bootstrap"}} {
		st, body := get(route[0], route[1], `{"device_id":"d1"}`)
		var e struct{ Error, Detail string }
		if st != 503 || json.Unmarshal([]byte(body), &e) != nil || e.Error != CodeStandby || !strings.Contains(e.Detail, "standby") {
			t.Fatalf("standby %s %s: %d %s", route[0], route[1], st, body)
		}
	}
}

// TestPausedCoreAnswersNothingAfterItsLease: an active Core paused
// (SIGSTOP) past its lease, whose standby took over, neither calls itself
// ready nor answers a read when it runs again, even before it has noticed
// the takeover: its lease ran out while it was paused, so what it holds
// in memory may be stale and a load balancer must not route to it.
func TestPausedCoreAnswersNothingAfterItsLease(t *testing.T) {
	testgate.Long(t)
	dsn, tokenFile, token, _ := setupPG(t)
	a := startCore(t, dsn, tokenFile)
	b := startStandby(t, dsn, tokenFile)
	a.pause()
	paused := time.Now()
	awaitTakeover(t, b, paused)
	type answer struct {
		status int
		body   string
		err    error
	}
	c := newAPIClient(t, a.base, dsn, token)
	answers := make(chan answer, 2)
	for _, path := range []string{"/readyz", "/core/v1/devices"} {
		go func() {
			st, body, _, err := c.do("GET", path, "")
			answers <- answer{st, path + " " + body, err}
		}()
	}
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got := <-answers; got.err == nil && got.status/100 == 2 {
			t.Fatalf("the Core whose lease ran out answered: %d %s", got.status, got.body)
		}
	}
	select {
	case <-a.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the fenced Core still runs:\n%s", a.stderr.String())
	}
	if a.code != exitFail {
		t.Fatalf("fenced Core: exit %d, log:\n%s", a.code, a.stderr.String())
	}
	if code := b.terminate(); code != 0 {
		t.Fatalf("SIGTERM exit %d", code)
	}
}
