package conform

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// fencingCore is a public API that accepts one quiesce and shows the
// suspension quiesced, and refuses a resume as suspension_pending.
func fencingCore(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch r.Method + " " + r.URL.Path {
		case "POST /core/v1/suspensions":
			if string(b) != `{"device_id":"dev","environment_id":"env"}` {
				t.Errorf("quiesce body %s", b)
			}
			w.WriteHeader(http.StatusAccepted)
			w.Write([]byte(`{"suspend_id":"s-1"}`))
		case "GET /core/v1/suspensions/s-1":
			w.Write([]byte(`{"suspend_id":"s-1","state":"quiesced","attempts":1,"rollback":false}`))
		case "POST /core/v1/suspensions/s-1/resume":
			w.WriteHeader(http.StatusConflict)
			w.Write([]byte(`{"error":"suspension_pending","detail":"x"}`))
		default:
			http.NotFound(w, r)
		}
	}))
}

// TestFencingThroughTheAPI: quiesce binds the suspension the API
// answers; core-suspension fails on a difference; a resume the file
// expects to succeed fails when refused, and refused= names the code.
func TestFencingThroughTheAPI(t *testing.T) {
	srv := fencingCore(t)
	defer srv.Close()
	r := &coreRun{o: Options{FrameTimeout: 100 * time.Millisecond}.withDefaults(),
		t: CoreTarget{Device: "dev", APIURL: srv.URL, APIToken: "tok", HTTP: srv.Client()}}
	r.CoreSuspension(map[string]string{"state": "quiesced"})
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], "nothing was quiesced") {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.Log = scenarios.Log{}
	r.fence(scenarios.Step{Action: "quiesce", Args: map[string]string{"environment": "env"}})
	if len(logged(&r.failures)) != 0 || r.suspend != "s-1" {
		t.Fatalf("quiesce: errors %q, suspension %q", logged(&r.failures), r.suspend)
	}
	r.CoreSuspension(map[string]string{"state": "quiesced", "attempts": "1", "rollback": "false"})
	if len(logged(&r.failures)) != 0 {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.CoreSuspension(map[string]string{"state": "resumed"})
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], `state="quiesced", want "resumed"`) {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.Log = scenarios.Log{}
	r.fence(scenarios.Step{Action: "resume", Args: map[string]string{}})
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], "refused: 409") {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.Log = scenarios.Log{}
	r.fence(scenarios.Step{Action: "resume", Args: map[string]string{"refused": "suspension_pending"}})
	r.fence(scenarios.Step{Action: "resume", Args: map[string]string{"refused": "unknown_suspension"}})
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], `refused "suspension_pending"`) {
		t.Fatalf("errors %q", logged(&r.failures))
	}
}
