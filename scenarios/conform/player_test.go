package conform

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// TestRunCorePlaysCorePreparation: a core-preparation step reaches Core's
// operator route and is compared, through the scenario player, where
// the conform runner once had no case for it.
func TestRunCorePlaysCorePreparation(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != preparationsPath || r.Header.Get("Authorization") != "Bearer tok" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"preparations":[{"id":"p-0","state":"completed","steps":[]},` +
			`{"id":"p-1","state":"failed","steps":[{"action":"file","state":"completed"},{"action":"file","state":"failed","error_code":"runtime_prepare_digest_mismatch"}]}]}`))
	}))
	defer srv.Close()
	target := CoreTarget{URL: srv.URL, Device: "d", Credential: "c", APIKey: "key", APIToken: "tok", HTTP: srv.Client()}
	o := Options{FrameTimeout: 2 * time.Second, Quiet: time.Millisecond}
	for _, c := range []struct{ step, want string }{
		{"core-preparation state=failed steps=completed,failed code=runtime_prepare_digest_mismatch", ""},
		{"core-preparation state=completed", `preparation p-1: state="failed", want "completed"`},
	} {
		sc := parse(t, c.step+"\n----\n")
		rep, err := RunCore(context.Background(), target, []*scenarios.Scenario{sc}, o)
		if err != nil || len(rep.Results) != 1 {
			t.Fatalf("%+v %v", rep, err)
		}
		res := rep.Results[0]
		switch {
		case c.want == "" && res.Status != Pass:
			t.Errorf("%s: %+v, want a pass", c.step, res)
		case c.want != "" && (res.Status != Fail || !strings.Contains(res.Reason, c.want)):
			t.Errorf("%s: %+v, want a failure containing %q", c.step, res, c.want)
		}
	}
}

// TestConformPlaysOnly: an only step of the other side skips the rest of
// the scenario in the player the conform runners share, and one of this
// side plays on.
func TestConformPlaysOnly(t *testing.T) {
	text := "only runtime\nthe Runtime's own rule\n----\n\ncore-suspension state=quiesced\n----\n"
	r := newCoreRun(Options{FrameTimeout: time.Second}.withDefaults(), CoreTarget{}, nil)
	failed, rep := play(parse(t, text), r)
	if failed != nil || len(rep.Failures) != 0 || !strings.Contains(rep.Skipped, "only the runtime side plays this scenario") {
		t.Fatalf("core: failed at %v, %+v", failed, rep)
	}
	r = newCoreRun(Options{FrameTimeout: time.Second}.withDefaults(), CoreTarget{}, nil)
	failed, rep = play(parse(t, strings.Replace(text, "only runtime", "only core", 1)), r)
	if failed == nil || failed.Kind != scenarios.KindCoreSuspension || rep.Skipped != "" ||
		len(rep.Failures) != 1 || !strings.Contains(rep.Failures[0].Error(), "nothing was quiesced") {
		t.Fatalf("core: failed at %v, %+v", failed, rep)
	}
}
