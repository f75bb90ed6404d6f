package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/server"
)

// exposition parses a Prometheus text exposition into series → value
// (series as written: name{label="value",...}).
func exposition(t *testing.T, body string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, line := range strings.Split(body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if i < 0 || err != nil {
			t.Fatalf("exposition line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// scrapeCore reads Core's /metrics over the stack's HTTP client.
func (s *stack) scrapeCore() map[string]float64 {
	s.t.Helper()
	resp, err := s.client.Get(e2eCore + "/metrics")
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("core /metrics: %d %s", resp.StatusCode, b)
	}
	return exposition(s.t, string(b))
}

// scrapeDaemon reads the daemon's /metrics through its probe handler.
func (s *stack) scrapeDaemon() map[string]float64 {
	s.t.Helper()
	rec := httptest.NewRecorder()
	daemonProbes(s.d, s.daemonReg).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		s.t.Fatalf("daemon /metrics: %d %s", rec.Code, rec.Body.String())
	}
	return exposition(s.t, rec.Body.String())
}

// want checks series against their expected values.
func want(t *testing.T, who string, got map[string]float64, series map[string]float64) {
	t.Helper()
	for k, v := range series {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s: %s = %v (present %v), want %v", who, k, g, ok, v)
		}
	}
}

// positive checks that each series is above zero.
func positive(t *testing.T, who string, got map[string]float64, series ...string) {
	t.Helper()
	for _, k := range series {
		if got[k] <= 0 {
			t.Errorf("%s: %s = %v, want > 0", who, k, got[k])
		}
	}
}

// One Turn through a real Core and daemon moves every metric it should:
// scraped from Core's /metrics over HTTP and from the daemon's probe
// handler, with one log line per Turn transition naming its IDs and no
// prompt or output text.
func TestMetricsFollowATurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, stackOptions{metrics: true})
		const prompt, output = "prompt-text-e41b never logged", "output-text-77c2"
		s.h.Script(synthetic.TurnScript{Deltas: []string{output, " done"}, EventInterval: 100 * time.Millisecond})
		sid := s.session()
		tid := s.submit(sid, prompt)
		ch := s.events(tid)
		if ev := e2eNext(t, ch); ev.Event != api.EvOutputTextDelta {
			t.Fatalf("first event %s", ev.Event)
		}
		synctest.Wait()
		running := s.scrapeCore()
		want(t, "core while streaming", running, map[string]float64{
			"turnstile_core_sse_subscribers":                                1,
			"turnstile_core_devices_connected":                              1,
			`turnstile_core_device_connections{device="` + e2eDevice + `"}`: 1,
			"turnstile_core_connections":                                    1,
			"turnstile_core_turn_first_event_seconds_count":                 1,
		})
		for range ch {
		}
		synctest.Wait()
		c := s.scrapeCore()
		want(t, "core", c, map[string]float64{
			"turnstile_core_sse_subscribers":                                           0,
			`turnstile_core_turns_finished_total{code="none",state="completed"}`:       1,
			`turnstile_core_turn_transitions_total{state="queued"}`:                    1,
			`turnstile_core_turn_transitions_total{state="completed"}`:                 1,
			`turnstile_core_turn_duration_seconds_count{state="completed"}`:            1,
			`turnstile_core_turn_duration_seconds_bucket{state="completed",le="+Inf"}`: 1,
			`turnstile_core_frames_in_total{type="done"}`:                              1,
			`turnstile_core_frames_out_total{type="execution_start"}`:                  1,
			`turnstile_core_turns{state="completed"}`:                                  1,
		})
		positive(t, "core", c, "turnstile_core_store_commit_seconds_count", "turnstile_core_store_commit_batch_steps_count",
			"turnstile_core_store_commit_batch_steps_sum", `turnstile_core_turn_duration_seconds_sum{state="completed"}`,
			"turnstile_core_turn_first_event_seconds_sum", `turnstile_core_frames_in_total{type="heartbeat"}`)
		// The first event came after the first delta's interval, the end
		// after the second: virtual time is exact.
		if got := c["turnstile_core_turn_first_event_seconds_sum"]; got < 0.1 {
			t.Errorf("time to first event %v s, want at least the 0.1 s event interval", got)
		}
		if got := c[`turnstile_core_turn_duration_seconds_sum{state="completed"}`]; got < 0.2 {
			t.Errorf("turn duration %v s, want at least two 0.1 s event intervals", got)
		}

		d := s.scrapeDaemon()
		want(t, "daemon", d, map[string]float64{
			"turnstile_daemon_connected":                                                 1,
			"turnstile_daemon_connects_total":                                            1,
			"turnstile_daemon_reconnects_total":                                          0,
			`turnstile_daemon_executors{phase="idle"}`:                                   1,
			`turnstile_daemon_executors{phase="busy"}`:                                   0,
			`turnstile_daemon_native_call_seconds_count{op="prepare"}`:                   1,
			`turnstile_daemon_native_call_seconds_count{op="start_turn"}`:                1,
			`turnstile_daemon_native_calls_in_flight{op="start_turn"}`:                   0,
			`turnstile_daemon_receipts_total{outcome="ready",type="preparation_status"}`: 1,
		})

		// A cut connection: the daemon reconnects and counts it.
		old := deviceConn(t, s)
		s.link.Cut()
		waitDevice(t, s, func(v core.DeviceView) bool { return v.Known && v.Conn != 0 && v.Conn != old })
		synctest.Wait()
		want(t, "daemon after a reconnect", s.scrapeDaemon(), map[string]float64{
			"turnstile_daemon_connected":        1,
			"turnstile_daemon_connects_total":   2,
			"turnstile_daemon_reconnects_total": 1,
		})

		var lines []string
		for _, l := range strings.Split(s.logs.String(), "\n") {
			if strings.Contains(l, `msg="turn transition"`) && strings.Contains(l, " turn="+tid+" ") {
				lines = append(lines, l)
			}
		}
		if len(lines) < 3 {
			t.Fatalf("turn transition lines %q\n%s", lines, s.logs.String())
		}
		for i, l := range lines {
			if !strings.Contains(l, " session="+sid+" ") || strings.Contains(l, prompt) || strings.Contains(l, output) {
				t.Errorf("transition line %q: want session=%s and neither input nor output text", l, sid)
			}
			if i > 0 && (!strings.Contains(l, " device="+e2eDevice+" ") || strings.Contains(l, ` run="" `)) {
				t.Errorf("transition line %q after the claim: want its device and run", l)
			}
		}
		if first, last := lines[0], lines[len(lines)-1]; !strings.Contains(first, ` from="" state=queued`) ||
			!strings.Contains(last, " state=completed ") {
			t.Errorf("transitions from %q to %q, want queued first and completed last", first, last)
		}
	})
}

// deviceConn is the e2e device's connection in Core.
func deviceConn(t *testing.T, s *stack) core.ConnID {
	t.Helper()
	var c core.ConnID
	if err := s.srv.Query(context.Background(), func(v server.View) {
		for _, d := range v.Machine().Devices() {
			if d.Device == e2eDevice {
				c = d.Conn
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	return c
}

// waitDevice waits, after each commit, until the e2e device's view
// satisfies ok.
func waitDevice(t *testing.T, s *stack, ok func(core.DeviceView) bool) {
	t.Helper()
	met := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.srv.Watch(ctx, func(v server.View) bool {
		for _, d := range v.Machine().Devices() {
			if d.Device == e2eDevice && ok(d) {
				close(met)
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	<-met
}

// A steered and then cancelled Turn: the daemon counts its steering
// receipts (written, then accepted) and the applied cancel receipt; Core
// counts the Turn cancelled and times it.
func TestMetricsCountReceiptsOfSteerAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStack(t, stackOptions{metrics: true})
		s.h.Script(synthetic.TurnScript{Deltas: []string{"working"}, Hold: true, SteerApplyLatency: 2 * time.Second, CancelLatency: time.Second})
		sid := s.session()
		tid := s.submit(sid, "start")
		ch := s.events(tid)
		e2eNext(t, ch)
		s.steer(sid, "more")
		e2eNext(t, ch) // the applied input
		synctest.Wait()
		want(t, "daemon after steering", s.scrapeDaemon(), map[string]float64{
			`turnstile_daemon_receipts_total{outcome="written",type="prompt_steer_ack"}`:  1,
			`turnstile_daemon_receipts_total{outcome="accepted",type="prompt_steer_ack"}`: 1,
			`turnstile_daemon_executors{phase="busy"}`:                                    1,
		})
		s.cancel(sid)
		for range ch {
		}
		synctest.Wait()
		if tr := s.turn(tid); tr.State != "cancelled" {
			t.Fatalf("turn %+v", tr)
		}
		want(t, "daemon after the cancel", s.scrapeDaemon(), map[string]float64{
			`turnstile_daemon_receipts_total{outcome="applied",type="interaction_decision_ack"}`: 1,
			`turnstile_daemon_native_call_seconds_count{op="cancel"}`:                            1,
		})
		c := s.scrapeCore()
		want(t, "core after the cancel", c, map[string]float64{
			`turnstile_core_turns_finished_total{code="none",state="cancelled"}`: 1,
			`turnstile_core_turn_duration_seconds_count{state="cancelled"}`:      1,
			`turnstile_core_frames_out_total{type="prompt_cancel"}`:              1,
			`turnstile_core_frames_out_total{type="prompt_steer"}`:               1,
		})
		if got := c[`turnstile_core_turn_duration_seconds_sum{state="cancelled"}`]; got < 3 {
			t.Errorf("cancelled Turn lasted %v s, want at least the 2 s steer and 1 s cancel latencies", got)
		}
	})
}
