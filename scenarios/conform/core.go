package conform

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
)

// CoreTarget is the Core under test.
type CoreTarget struct {
	// URL is Core's base URL (the gateway's /api/v1/agent-daemon/...).
	URL string
	// Device and Credential are a device registered on that Core.
	Device, Credential string
	// APIURL, APIKey and APIToken reach Core's HTTP API for the api,
	// core-state, core-interaction and core-workspace steps: APIKey the
	// Agents API under /v1 (Sessions, Turns, input events, Environment
	// files), APIToken the operator routes under /core/v1 (a Turn's
	// delivery view, user-choice answers, workspace reads, suspensions).
	// Without either the scenarios with api steps are skipped. APIURL
	// defaults to URL.
	APIURL, APIKey, APIToken string
	// HTTP is the client (nil: a client without timeouts of its own).
	HTTP *http.Client
	// Prepare, when set, prepares an Environment as an api
	// prepare-environment step says (a Core in process: no HTTP route
	// takes its runtime_prepare headers verbatim); nil skips those
	// scenarios. It returns the preparation's ID.
	Prepare func(scenarios.Step) (string, error)
}

// RunCore plays the scripted Runtime of every scenario against Core.
func RunCore(ctx context.Context, t CoreTarget, all []*scenarios.Scenario, o Options) (Report, error) {
	if t.URL == "" || t.Device == "" || t.Credential == "" {
		return Report{}, fmt.Errorf("conform core: a Core URL, a device and its credential are required")
	}
	if t.APIURL == "" {
		t.APIURL = t.URL
	}
	if t.HTTP == nil {
		t.HTTP = &http.Client{}
	}
	t.URL, t.APIURL = strings.TrimRight(t.URL, "/"), strings.TrimRight(t.APIURL, "/")
	o = o.withDefaults()
	rep := Report{Side: scenarios.Core}
	for _, sc := range o.selected(all) {
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		if o.Log != nil {
			fmt.Fprintf(o.Log, "conform core: %s\n", sc.Name)
		}
		r := newCoreRun(o, t, sc)
		rep.Results = append(rep.Results, r.run())
	}
	return rep, nil
}

// coreRun is one scenario against Core: a scenarios.CoreDriver whose
// Core-only steps (coreapi.Steps) reach Core through its coreapi.API over
// HTTP (core_http.go): the Agents API under /v1 (Sessions, their input
// events, Environment files) and the operator routes under /core/v1 (a
// Turn's delivery view, user-choice answers, suspensions, preparations,
// workspace reads).
type coreRun struct {
	failures
	*coreapi.Steps
	*runtimePeer
	o       Options
	t       CoreTarget
	sc      *scenarios.Scenario
	session string
	ws      chan wsAnswer // the latest workspace call, not yet answered
	wsDone  *wsAnswer     // its answer
}

// newCoreRun returns the run of sc: a difference Core shows is read
// again until o.FrameTimeout, a member it does not show is not checked.
func newCoreRun(o Options, t CoreTarget, sc *scenarios.Scenario) *coreRun {
	r := &coreRun{o: o, t: t, sc: sc}
	r.Steps = coreapi.NewSteps(&r.Log, r)
	r.runtimePeer = newRuntimePeer(&r.Log, t, o)
	r.Retry, r.NotChecked = o.FrameTimeout, r.notf
	if o.Settle != nil {
		r.Retry = 0
	}
	return r
}

func (r *coreRun) run() Result {
	start := time.Now()
	if why := r.o.skipReason(r.sc, scenarios.Core); why != "" {
		return Result{Name: r.sc.Name, Status: Skip, Reason: why}
	}
	if r.t.APIKey == "" && uses(r.sc, scenarios.KindAPI) {
		return Result{Name: r.sc.Name, Status: Skip, Credential: CredentialAPIKey,
			Reason: "needs the Agents API: its api steps create Sessions and send their input events (-api-key-file)"}
	}
	if r.t.APIToken == "" && uses(r.sc, scenarios.KindAPI) {
		return Result{Name: r.sc.Name, Status: Skip, Credential: CredentialOperatorToken,
			Reason: "needs the operator routes: its steps read Core's view of a Turn (-operator-token-file)"}
	}
	if r.t.Prepare == nil && slices.ContainsFunc(r.sc.Flat(), func(st scenarios.Step) bool { return st.Action == "prepare-environment" }) {
		return Result{Name: r.sc.Name, Status: Skip, Reason: "needs the preparation API: the public HTTP API prepares only a Session's Environment definition, with the IDs and digests Core derives itself, so the runtime_prepare headers of its api prepare-environment step cannot be sent verbatim"}
	}
	defer r.close()
	_, rep := play(r.sc, r)
	return r.result(r.sc.Name, time.Since(start), rep.Failures)
}

// close cancels the Session's unfinished Turn, so that none is left for
// the next scenario, and closes every connection.
func (r *coreRun) close() {
	if session, turns := r.Session(); session != "" && turns {
		_, _, _ = r.apiCall(http.MethodPost, r.eventsPath(), `{"events":[{"type":"agent.session.input.cancel"}]}`, r.o.FrameTimeout)
	}
	r.runtimePeer.Close()
}
