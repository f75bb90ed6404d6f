package harness

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

func prepareWith(session string, mutate func(*wire.ExecutionConfiguration)) daemon.Prepare {
	c := wire.ExecutionConfiguration{AgentOptions: map[string]json.RawMessage{"model": json.RawMessage(`"m"`)}}
	if mutate != nil {
		mutate(&c)
	}
	return daemon.Prepare{Executor: "ex-" + session, Session: session, Configuration: c}
}

// The native engine refuses what it was not configured for and a new root
// where history is required; each is a breach of the daemon's contract.
func TestNativeEngineRefusals(t *testing.T) {
	cases := map[string]struct {
		mutate func(*wire.ExecutionConfiguration)
		want   string
	}{
		"unknown option":   {func(c *wire.ExecutionConfiguration) { c.AgentOptions["temperature"] = json.RawMessage(`1`) }, "agent option temperature"},
		"history required": {func(c *wire.ExecutionConfiguration) { c.RequireExistingNativeSession = true }, "requires existing history"},
		"foreign session":  {func(c *wire.ExecutionConfiguration) { c.AgentSessionID = "native-s9" }, "resumes native session native-s9"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			host, rec := run(t, nil, 0, step{0, prepareWith("s1", tc.mutate)})
			vs := host.h.Truth().Violations()
			if len(vs) != 1 || !strings.Contains(vs[0], tc.want) {
				t.Fatalf("violations %v, want %q", vs, tc.want)
			}
			if len(rec.lines) != 0 || !strings.Contains(strings.Join(host.seen, " "), "err=") {
				t.Fatalf("refused prepare created something: truth %v events %v", rec.lines, host.seen)
			}
		})
	}
	host, _ := run(t, nil, 0, step{0, prepareWith("s1", func(c *wire.ExecutionConfiguration) { c.AgentSessionID = "native-s1" })})
	if vs := host.h.Truth().Violations(); len(vs) != 0 {
		t.Fatalf("resuming the session's own native session judged: %v", vs)
	}
}

// A turn on an executor prepared as a new root after the Session gained
// native history forks that history: recorded at the start.
func TestNewRootOverHistoryIsRecorded(t *testing.T) {
	host, _ := run(t, nil, 0,
		step{0, prepareWith("s1", nil)},
		step{time.Second, daemon.StartTurn{Executor: "ex-s1", Turn: "t-1", Run: "r1", Input: wire.TextInput("hi")}},
		step{5 * time.Second, daemon.Prepare{Executor: "ex-2", Session: "s1", Configuration: prepareWith("s1", nil).Configuration}},
		step{6 * time.Second, daemon.StartTurn{Executor: "ex-2", Turn: "t-2", Run: "r2", Input: wire.TextInput("again")}},
	)
	vs := strings.Join(host.h.Truth().Violations(), "\n")
	if !strings.Contains(vs, "start of run r2 on executor ex-2, a new native root") || strings.Contains(vs, "run r1") {
		t.Fatalf("violations %q, want only the fork by r2", vs)
	}
}

// A native session only a hostile peer names is refused as unknown, and
// no breach of the daemon's: it could not know the name was foreign.
func TestHostileNativeSessionIsRefusedWithoutBreach(t *testing.T) {
	host, rec := run(t, nil, 0, step{0, prepareWith("s1", func(c *wire.ExecutionConfiguration) { c.AgentSessionID = "x-native-7" })})
	if vs := host.h.Truth().Violations(); len(vs) != 0 {
		t.Fatalf("a hostile native session judged the daemon's breach: %v", vs)
	}
	if len(rec.lines) != 0 || !strings.Contains(strings.Join(host.seen, " "), "is unknown") {
		t.Fatalf("the unknown native session was not refused: truth %v events %v", rec.lines, host.seen)
	}
}
