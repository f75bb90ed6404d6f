package scenarios

import (
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func scenarioOf(t *testing.T, text string) *Scenario {
	t.Helper()
	sc, err := Parse("s.txt", text, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func frameAt(sc *Scenario, i int) *Frame { return sc.Flat()[i].Frame }

const bindText = `runtime preparation_status id=$prepare
{"executor_id":"$executor","handle":"$handle","revision":1,"state":"preparing","expires_at":$expires_at}
----

core execution_start id=$prepare
{"executor_id":"$executor","handle":"$handle","run_id":"$run","input":[]}
----

runtime preparation_status id=$prepare
{"executor_id":"$executor","handle":"$handle","revision":2,"state":"ready","expires_at":$expires_at}
----
`

func TestMatchBindsThenRequiresRepeat(t *testing.T) {
	sc := scenarioOf(t, bindText)
	b := newBindings(sc, Runtime)
	first := `{"type":"preparation_status","id":"p-9","payload":{"executor_id":"ex-1","handle":"h-1","revision":1,"state":"preparing","expires_at":42}}`
	if err := b.Match(frameAt(sc, 0), []byte(first)); err != nil {
		t.Fatal(err)
	}
	// The scripted Core repeats the bound values and uses its own default.
	got, err := b.Peer(frameAt(sc, 1))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"execution_start","id":"p-9","payload":{"executor_id":"ex-1","handle":"h-1","run_id":"run","input":[]}}`; string(got) != want {
		t.Fatalf("peer frame\n got %s\nwant %s", got, want)
	}
	changed := `{"type":"preparation_status","id":"p-9","payload":{"executor_id":"ex-1","handle":"h-2","revision":2,"state":"ready","expires_at":42}}`
	err = b.Match(frameAt(sc, 2), []byte(changed))
	if err == nil || !strings.Contains(err.Error(), `payload.handle: sent "h-2", want "h-1"`) {
		t.Fatalf("a changed handle: %v", err)
	}
	same := strings.Replace(changed, "h-2", "h-1", 1)
	if err := b.Match(frameAt(sc, 2), []byte(same)); err != nil {
		t.Fatal(err)
	}
}

func TestMatchRejects(t *testing.T) {
	sc := scenarioOf(t, bindText)
	cases := []struct{ name, sent, msg string }{
		{"other type", `{"type":"done","id":"p","payload":{}}`, "sent done, want preparation_status"},
		{"missing member", `{"type":"preparation_status","id":"p","payload":{"executor_id":"e","handle":"h","revision":1,"state":"preparing"}}`, "payload.expires_at: missing"},
		{"extra member", `{"type":"preparation_status","id":"p","payload":{"executor_id":"e","handle":"h","revision":1,"state":"preparing","expires_at":1,"reused":true}}`, "unlisted members reused"},
		{"wrong literal", `{"type":"preparation_status","id":"p","payload":{"executor_id":"e","handle":"h","revision":2,"state":"preparing","expires_at":1}}`, "payload.revision: sent 2, want 1"},
		{"string for number", `{"type":"preparation_status","id":"p","payload":{"executor_id":"e","handle":"h","revision":1,"state":"preparing","expires_at":"1"}}`, "want the number $expires_at"},
		{"empty binding", `{"type":"preparation_status","id":"p","payload":{"executor_id":"","handle":"h","revision":1,"state":"preparing","expires_at":1}}`, `sent "", want "$executor"`},
		{"one value two names", `{"type":"preparation_status","id":"p","payload":{"executor_id":"x","handle":"x","revision":1,"state":"preparing","expires_at":1}}`, "already the value of $executor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newBindings(sc, Runtime)
			err := b.Match(frameAt(sc, 0), []byte(c.sent))
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v, want …%s…", err, c.msg)
			}
			if len(b.vals) != 0 {
				t.Fatalf("a failed match bound %v", b.vals)
			}
		})
	}
}

// TestMatchConfigurationSubset: only Core's execution_prepare
// configuration may carry members the file does not list.
func TestMatchConfigurationSubset(t *testing.T) {
	sc := scenarioOf(t, "core execution_prepare id=$prepare\n{\"session_id\":\"$session\",\"configuration\":{\"agent_kind\":\"contract\",\"agent_state_key\":\"agents-api-$session\"}}\n----\n")
	sent := `{"type":"execution_prepare","id":"p-1","payload":{"session_id":"s-1","configuration":{"agent_kind":"contract","agent_state_key":"agents-api-s-1","strict_resume":true}}}`
	if err := newBindings(sc, Core).Match(frameAt(sc, 0), []byte(sent)); err != nil {
		t.Fatal(err)
	}
	wrongKey := strings.Replace(sent, "agents-api-s-1", "agents-api-s-2", 1)
	if err := newBindings(sc, Core).Match(frameAt(sc, 0), []byte(wrongKey)); err == nil {
		t.Fatal("agent_state_key of another Session matched")
	}
	extraTop := strings.Replace(sent, `"session_id"`, `"trace_id":"x","session_id"`, 1)
	if err := newBindings(sc, Core).Match(frameAt(sc, 0), []byte(extraTop)); err == nil {
		t.Fatal("an unlisted top-level member matched")
	}
	if err := newBindings(sc, Runtime).Match(frameAt(sc, 0), []byte(sent)); err == nil {
		t.Fatal("the subset rule applied to a Runtime-side match")
	}
}

func TestPeerNeedsBoundValues(t *testing.T) {
	sc := scenarioOf(t, bindText)
	_, err := newBindings(sc, Runtime).Peer(frameAt(sc, 1))
	if err == nil || !strings.Contains(err.Error(), "used before the runtime sent a value") {
		t.Fatalf("got %v", err)
	}
}

// TestReferenceScenariosByteExact: the frames of the three scenarios of
// wire-reference §7, rendered with every placeholder at its default, are
// the section's bytes.
func TestReferenceScenariosByteExact(t *testing.T) {
	ref := map[string]string{
		"prepare":   `{"type":"execution_prepare","id":"prepare","payload":{"session_id":"session","configuration":{"agent_kind":"contract","conversation_id":"","run_id":"","agent_state_key":"agents-api-session","strict_resume":true,"disable_execution_environment":true}}}`,
		"preparing": `{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":1,"state":"preparing","expires_at":1800000000000}}`,
		"ready":     `{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":2,"state":"ready","expires_at":1800000000000}}`,
		"start":     `{"type":"execution_start","id":"prepare","payload":{"executor_id":"executor","handle":"handle","run_id":"run","input":[{"content":[{"type":"input_text","text":"hello"}]}]}}`,
		"starting":  `{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":3,"state":"starting","run_id":"run"}}`,
		"started":   `{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":4,"state":"started","run_id":"run"}}`,
		"cancel":    `{"type":"prompt_cancel","id":"run","payload":{"delivery_id":"cancel"}}`,
		"done":      `{"type":"done","id":"run","payload":{"content":""}}`,
		"ack":       `{"type":"interaction_decision_ack","id":"run","payload":{"delivery_id":"cancel","applied":true,"outcome":{"content":"partial","metadata":{"agent_session_id":"native-session"}}}}`,
		"failed":    `{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":2,"state":"failed","error_code":"preparation_failed"}}`,
	}
	started := []string{"prepare", "preparing", "ready", "start", "starting", "started"}
	want := map[string][]string{
		"cancellation_waits_for_settlement":                    append(append([]string{}, started...), "cancel", "done", "ack"),
		"preparation_failure_cleans_up_without_run_completion": {"prepare", "preparing", "failed"},
		"disconnect_is_unknown_and_reconnect_does_not_replay":  started,
	}
	for name, frames := range want {
		sc, err := ParseFile("testdata/" + name + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, st := range sc.Flat() {
			if st.Kind != KindFrame || st.Frame.Type == "heartbeat" {
				continue
			}
			// Every placeholder at its default: no side under test.
			b, err := newBindings(sc, "").Peer(st.Frame)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(b))
		}
		if len(got) != len(frames) {
			t.Fatalf("%s: %d frames, want %d:\n%s", name, len(got), len(frames), strings.Join(got, "\n"))
		}
		for i, k := range frames {
			if got[i] != ref[k] {
				t.Errorf("%s frame %d (%s):\n got %s\nwant %s", name, i, k, got[i], ref[k])
			}
		}
	}
}

// TestUUIDPlaceholderDefault: a uuid_ placeholder defaults to a canonical
// UUID of its own name; other string placeholders to their name.
func TestUUIDPlaceholderDefault(t *testing.T) {
	a, b := defaultValue("uuid_mutation", true), defaultValue("uuid_session", true)
	if !wire.CanonicalUUID(a) || !wire.CanonicalUUID(b) || a == b || a != defaultValue("uuid_mutation", true) {
		t.Fatalf("uuid defaults %q %q", a, b)
	}
	if got := defaultValue("mutation", true); got != "mutation" {
		t.Fatalf("plain default %q", got)
	}
}
