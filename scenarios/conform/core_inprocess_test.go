package conform

import (
	"context"
	"crypto/sha256"
	"net/http"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	coreapiv1 "github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/internal/pipenet"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
	"github.com/turnstile-sim/turnstile/scenarios/machine/coremachine"
	"github.com/turnstile-sim/turnstile/scenarios/machine/daemonmachine"
)

// serverCalls reaches a server's loop for coreapi.Events; only Call is
// used (by the preparation hook).
type serverCalls struct {
	coreapi.Core
	s *server.Server
}

func (c serverCalls) Call(ev func(core.CallID) core.Event) (*core.APIResult, error) {
	rep, err := c.s.Call(context.Background(), server.Request{Event: ev})
	if err != nil {
		return nil, err
	}
	return &rep.Result, nil
}

// playCore plays sc with RunCore against Core's production shell in a
// testing/synctest bubble (README.md, "Runners").
func playCore(t *testing.T, sc *scenarios.Scenario) (res Result) {
	synctest.Test(t, func(t *testing.T) {
		back := server.NewMemory()
		if err := back.AddDevice(RuntimeDevice, sha256.Sum256([]byte(RuntimeCredential)), time.Now()); err != nil {
			t.Fatal(err)
		}
		s, err := server.New(back, server.Options{Config: core.Config{Policy: scenarios.ContractPolicy()}})
		if err != nil {
			t.Fatal(err)
		}
		const base = "http://core.test"
		gw, err := gateway.New(s, gateway.Options{PublicURL: base})
		if err != nil {
			t.Fatal(err)
		}
		a, err := coreapiv1.New(s, coreapiv1.Options{OperatorToken: "tok", Keys: coreapiv1.StaticKey("conform", "key")})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		gw.Register(mux)
		a.Register(mux)
		l := pipenet.New()
		hs := &http.Server{Handler: mux}
		go hs.Serve(l)
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- s.Run(ctx) }()
		hc := &http.Client{Transport: &http.Transport{DialContext: l.Dial}}
		target := CoreTarget{URL: base, Device: RuntimeDevice, Credential: RuntimeCredential, APIKey: "key", APIToken: "tok", HTTP: hc,
			Prepare: coreapi.Events(serverCalls{s: s}, RuntimeDevice).Prepare}
		rep, err := RunCore(context.Background(), target, []*scenarios.Scenario{sc}, Options{Settle: synctest.Wait})
		if err != nil || len(rep.Results) != 1 {
			t.Fatalf("%+v %v", rep, err)
		}
		res = rep.Results[0]
		cancel()
		<-ran
		hs.Close()
		hc.CloseIdleConnections()
		synctest.Wait()
	})
	return res
}

// TestScenariosInProcess: every scenario passes against Core and the
// daemon in process, none skipped, only records= not checked.
func TestScenariosInProcess(t *testing.T) {
	all, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		t.Run(sc.Name, func(t *testing.T) {
			core, runtime := playCore(t, sc), playRuntime(t, sc)
			for _, res := range []Result{core, runtime} {
				if res.Status != Pass {
					t.Errorf("%s: %s", res.Status, res.Reason)
				}
			}
			if len(core.NotChecked) > 0 {
				t.Logf("core: not checked: %q", core.NotChecked)
			}
			for _, n := range runtime.NotChecked {
				if !strings.Contains(n, "records=") {
					t.Errorf("runtime: not checked: %s", n)
				}
			}
		})
	}
}

// parseIncluding parses a scenario text whose includes are the built-in
// ones.
func parseIncluding(t *testing.T, text string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("s.txt", text, func(n string) ([]byte, error) { return os.ReadFile("../testdata/include/" + n + ".txt") })
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// playMachine plays sc on the machine runner of side (scenarios/machine);
// a failing result's reason lists every failure.
func playMachine(t *testing.T, side scenarios.Side, sc *scenarios.Scenario) Result {
	var d scenarios.Driver
	if side == scenarios.Runtime {
		_, rd, err := daemonmachine.New(sc, daemon.Limits{}, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		d = rd
	} else {
		_, d = coremachine.New(sc, core.Config{Policy: scenarios.ContractPolicy()})
	}
	res := Result{Name: sc.Name, Status: Pass}
	for _, err := range scenarios.Play(sc, d).Failures {
		res.Status, res.Reason = Fail, res.Reason+err.Error()+"\n"
	}
	return res
}

// TestBrokenScenariosFail: a scenario that differs from what the side
// does fails, naming the difference, in process and on the machine
// runner (machine: what it names instead; "-": not played there); want
// "": the scenario passes.
func TestBrokenScenariosFail(t *testing.T) {
	const core, runtime = scenarios.Core, scenarios.Runtime
	prepared, err := os.ReadFile("../testdata/runtime_prepare_file_then_digest_mismatch.txt")
	if err != nil {
		t.Fatal(err)
	}
	rogue := "core execution_start id=$prepare rogue\n{\"executor_id\":\"$executor\",\"handle\":\"$handle\",\"run_id\":\"again\",\"input\":[]}\n----\n"
	prefix := "include connected\n----\n\ninclude started\n----\n\n"
	cancel := "core prompt_cancel id=$run\n{\"delivery_id\":\"$cancel\"}\n----\n\nsettle\n----\n\n"
	permission := "harness emit permission_request\n{\"request_id\":\"p1\",\"tool\":\"t\",\"title\":\"x\"}\n----\n\nruntime permission_request id=$run\n{\"request_id\":\"p1\",\"tool\":\"t\",\"title\":\"x\"}\n----\n\n"
	for _, c := range []struct {
		name                string
		side                scenarios.Side
		text, want, machine string
	}{
		{"frame", core, prefix + "api cancel\n----\n\ncore prompt_cancel id=$run\n{\"delivery_id\":\"other\"}\n----\n", `, want "other"`, ""},
		{"unlisted", core, prefix + "api cancel\n----\n", "does not list at the end of the scenario", ""},
		{"missing", core, prefix + "core prompt_cancel id=$run\n{\"delivery_id\":\"$cancel\"}\n----\n", "Core sent nothing", ""},
		{"silence", core, "include connected\n----\n\napi submit-turn text=hello\n----\n\nsilence core 50ms\n----\n", "before silence", ""},
		{"state", core, prefix + "core-state turn=1 state=completed\n----\n", `state="running", want "completed"`, ""},
		{"interaction", core, prefix + permission + "core-interaction id=p1 status=applied\n----\n", `interaction p1: status="pending", want "applied"`, ""},
		{"interaction unknown", core, prefix + "core-interaction id=p9 status=pending\n----\n", "interaction p9: Core has no record of it", ""},
		{"refusal expected", core, "include connected_interactions\n----\n\ninclude started\n----\n\n" + permission + "api answer-permission interaction=p1 refused=interaction_closed\n{\"approved\":true}\n----\n", "accepted, want it refused interaction_closed", ""},
		{"refusal unexpected", core, prefix + "api answer-permission interaction=p9\n{\"approved\":true}\n----\n", "refused: 404", "refused"},
		{"refusal code", core, prefix + "api answer-permission interaction=p9 refused=interaction_closed\n{\"approved\":true}\n----\n", `refused "unknown_interaction"`, ""},
		{"suspension", core, "include connected\n----\n\napi quiesce environment=env\n----\n\ncore environment_quiesce id=$s.q1\n{\"environment_id\":\"env\",\"suspend_id\":\"$s\"}\n----\n\ncore-suspension state=quiesced\n----\n", `state="quiescing", want "quiesced"`, ""},
		{"lost", core, prefix + "runtime done id=$run lost\n{\"content\":\"hi\"}\n----\n\ncore-state turn=1 state=completed\n----\n", `state="running", want "completed"`, ""},
		{"preparation", core, "core-preparation state=completed\n----\n", "Core has no Environment preparation", ""},
		{"nothing quiesced", core, "only core\nwhy\n----\n\ncore-suspension state=quiesced\n----\n", "nothing was quiesced", ""},
		{"no connection", runtime, "core device_shutdown\n{\"reason\":\"r\"}\n----\n", "core frame device_shutdown with no connection open", ""},
		{"disconnected", core, "disconnect\n----\n", "disconnect with no connection open", ""},
		{"workspace", core, "include connected\n----\n\napi read-file environment=env path=a\n----\n\ncore-workspace outcome=completed data=x\n----\n", `outcome="unavailable", want "completed"`, ""},
		{"workspace without a call", core, "core-workspace outcome=completed\n----\n", "no workspace call was made", ""},
		{"close", core, "include connected\n----\n\ndisconnect by=core\n----\n", "Core did not close", ""},
		{"version", core, "version-refused version=$version status=426\n----\n", "status 101, want 426", "-"},
		{"no work", core, "api submit-turn text=hi\n----\n", "admitted no work: the scenario submitted 1 Turn(s) but no Run started", ""},
		{"rogue start is no work", core, "api submit-turn text=hi\n----\n\n" + rogue, "admitted no work", ""},
		{"permission body", core, prefix + permission + "api answer-permission interaction=p1\n{\"approved\":true,\"message\":\"ok\"}\n----\n", "carries no message", "-"},
		{"resume refused", core, "include connected\n----\n\napi quiesce environment=env\n----\n\ncore environment_quiesce id=$s.q1\n{\"environment_id\":\"env\",\"suspend_id\":\"$s\"}\n----\n\napi resume\n----\n", "refused: 409", "refused"},
		{"resume refusal code", core, "include connected\n----\n\napi quiesce environment=env\n----\n\ncore environment_quiesce id=$s.q1\n{\"environment_id\":\"env\",\"suspend_id\":\"$s\"}\n----\n\napi resume refused=unknown_suspension\n----\n", `refused "suspension_pending"`, ""},
		{"runtime frame", runtime, prefix + cancel + "runtime done id=$run\n{\"content\":\"x\"}\n----\n", `payload.content: sent "", want "x"`, ""},
		{"runtime unlisted", runtime, prefix + cancel, `does not list at the end of the scenario: {"type":"done"`, "does not list at the end of the scenario: done"},
		{"runtime silence", runtime, prefix + cancel + "silence runtime 50ms\n----\n", `before silence: {"type":"done"`, "before silence: done"},
		{"runtime owned", runtime, prefix + "runtime-owned executors=0\n----\n", "runtime-owned executors=1, want 0", "executors=1, want 0"},
		{"runtime rebound", runtime, prefix + cancel + "runtime done id=$executor\n{\"content\":\"\"}\n----\n", `id: sent "run", want "ex-1"`, ""},
		{"runtime no work", runtime, "api submit-turn text=hello\n----\n", "admitted no work", "s.txt:1: runtime: admitted no work: the scenario submitted 1 Turn(s) but no Run started"},
		{"runtime version", runtime, "version-refused version=$version\n----\n", "is this protocol's own", "-"},
		{"preparation differs", core, strings.Replace(string(prepared), "core-preparation state=rejected steps=completed,rejected code=runtime_preparation_rejected",
			"core-preparation state=completed", 1), `state="rejected", want "completed"`, ""},
		{"rogue", core, prefix + rogue, "", ""},
		{"rogue rejected", runtime, prefix + rogue, "does not list", ""},
		{"turn outcome", core, "api submit-turn text=hi\n----\n\ncore-state turn=1 state=queued\n----\n", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := parseIncluding(t, c.text)
			if c.machine == "" {
				c.machine = c.want
			}
			play := playCore
			if c.side == runtime {
				play = playRuntime
			}
			status := Pass
			if c.want != "" {
				status = Fail
			}
			if res := play(t, sc); res.Status != status || !strings.Contains(res.Reason, c.want) {
				t.Errorf("in process: %s %s, want a failure containing %q", res.Status, res.Reason, c.want)
			}
			if res := playMachine(t, c.side, sc); c.machine != "-" && (res.Status != status || !strings.Contains(res.Reason, c.machine)) {
				t.Errorf("machine: %s %s, want a failure containing %q", res.Status, res.Reason, c.machine)
			}
		})
	}
}
