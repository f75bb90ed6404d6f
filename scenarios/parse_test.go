package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func includes(files map[string]string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, errors.New("no such file")
	}
}

const okHeartbeat = "runtime heartbeat\n{\"ts\":$ts,\"active_requests\":0}\n----\n\n"

// TestParseErrors: every parse error names the file and the line of the
// directive it concerns.
func TestParseErrors(t *testing.T) {
	cases := []struct{ name, text, line, msg string }{
		{"unknown directive", "connect\n----\n\nfly away\n----\n", "4", `unknown directive "fly"`},
		{"no separator", "connect\n", "1", "no ---- separator"},
		{"stray separator", "----\n", "1", "separator ---- without a directive"},
		{"bad directive line", "connect x=(a\n----\n", "1", "cannot parse directive"},
		{"frame without type", "core\n----\n", "1", "missing frame type"},
		{"unknown frame type", "core teleport id=x\n{}\n----\n", "1", `unknown frame type "teleport"`},
		{"frame without payload", "core execution_release id=x\n----\n", "1", "missing JSON payload"},
		{"bad JSON", "core execution_release id=x\n{\"handle\":\n----\n", "1", "not valid JSON"},
		{"bad placeholder", "core execution_release id=x\n{\"handle\":\"$1\"}\n----\n", "1", "bad placeholder"},
		{"bad id placeholder", "core execution_release id=$-\n{\"handle\":\"h\"}\n----\n", "1", "id: bad placeholder"},
		{"negative duration", "advance -1s\n----\n", "1", "bad duration"},
		{"api answer bad body", "api answer-choice interaction=a\n{\"answers\":\n----\n", "1", "want the request body (JSON)"},
		{"unknown frame arg", "core execution_release id=x to=y\n{\"handle\":\"h\"}\n----\n", "1", `unknown argument "to"`},
		{"repeated arg", "core execution_release id=x id=y\n{\"handle\":\"h\"}\n----\n", "1", `argument "id" repeated`},
		{"lost rogue frame", "core execution_release id=x lost rogue\n{\"handle\":\"h\"}\n----\n", "1", "cannot be rogue or invalid"},
		{"advance without duration", "connect\n----\n\nadvance\n----\n", "4", "missing duration"},
		{"bad duration", "advance 5 minutes\n----\n", "1", `bad duration "5"`},
		{"silence bad side", "silence gateway 50ms\n----\n", "1", `side "gateway"`},
		{"silence zero", "silence core 0s\n----\n", "1", "positive window"},
		{"disconnect by", "disconnect by=runtime\n----\n", "1", "only by=core"},
		{"connect input", "connect\nhello\n----\n", "1", "takes no input"},
		{"settle reusable", "settle reusable=maybe\n----\n", "1", "want true or false"},
		{"harness action", "harness explode\n----\n", "1", `unknown action "explode"`},
		{"harness emit type", "harness emit rumour\n{}\n----\n", "1", `unknown event type "rumour"`},
		{"harness emit payload", "harness emit delta\n----\n", "1", "want a JSON payload"},
		{"api call", "api delete-everything\n----\n", "1", `unknown call "delete-everything"`},
		{"api text", "api submit-turn\n----\n", "1", "missing text="},
		{"api answer target", "api answer-permission\n{\"approved\":true}\n----\n", "1", "missing interaction="},
		{"api answer body", "api function-result call=c1\n----\n", "1", "want the request body (JSON)"},
		{"api answer arg", "api answer-permission interaction=p approved=true\n{}\n----\n", "1", `unknown argument "approved"`},
		{"api quiesce env", "api quiesce\n----\n", "1", "missing environment="},
		{"api resume rollback", "api resume rollback=maybe\n----\n", "1", "want true or false"},
		{"api prepare steps", "api prepare-environment environment=e\n----\n", "1", "want the request body (JSON)"},
		{"core-interaction id", "core-interaction status=applied\n----\n", "1", "missing id="},
		{"harness file path", "harness file environment=env\nhello\n----\n", "1", "harness file: missing path="},
		{"api workspace limit", "api read-file environment=env path=a max_bytes=0\n----\n", "1", `max_bytes="0" is not a positive count`},
		{"api workspace arg", "api read-directory environment=env max_bytes=3\n----\n", "1", `unknown argument "max_bytes"`},
		{"api export input", "api export environment=env\n{}\n----\n", "1", "takes no input"},
		{"api export arg", "api export environment=env path=a\n----\n", "1", `unknown argument "path"`},
		{"core-workspace outcome", "core-workspace entries=a\n----\n", "1", "missing outcome="},
		{"core-workspace arg", "core-workspace outcome=completed size=3\n----\n", "1", `unknown argument "size"`},
		{"core-interaction empty", "core-interaction id=p\n----\n", "1", "nothing to assert"},
		{"core-preparation key", "core-preparation mood=good\n----\n", "1", `unknown argument "mood"`},
		{"core-state turn", "core-state state=running\n----\n", "1", "missing turn="},
		{"runtime-owned count", "runtime-owned executors=many\n----\n", "1", "is not a count"},
		{"version-refused", "version-refused\n----\n", "1", "missing version="},
		{"include missing", "include nowhere\n----\n", "1", `include "nowhere"`},
		{"include nested", "include outer\n----\n", "include/outer.txt:1", "include inside an included file"},
		{"include args", "include a b\n----\n", "1", "one name"},
		{"only side", "only gateway\nwhy\n----\n", "1", `side "gateway"`},
		{"only reason", "only core\n----\n", "1", "reason as input"},
		{"only late", "connect\n----\n\nonly core\nwhy\n----\n", "4", "first directive"},
		{"error in include", "include broken\n----\n", "include/broken.txt:5", "unknown directive"},
	}
	inc := includes(map[string]string{"outer": "include inner\n----\n", "broken": "connect\n----\nwhatever\n\nnope\n----\n"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("s.txt", c.text, inc)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("want a parse error, got %v", err)
			}
			wantPos := "s.txt:" + c.line
			if strings.Contains(c.line, ".txt") {
				wantPos = c.line
			}
			if pe.Pos != wantPos || !strings.Contains(pe.Msg, c.msg) {
				t.Fatalf("got %q, want %s: …%s…", err, wantPos, c.msg)
			}
			if !strings.HasPrefix(err.Error(), wantPos+": ") {
				t.Fatalf("error text %q does not start with the position", err)
			}
		})
	}
}

func TestParseFileNamesPath(t *testing.T) {
	_, err := ParseFile("testdata/does-not-exist.txt")
	if err == nil {
		t.Fatal("missing file parsed")
	}
}

func TestParseSteps(t *testing.T) {
	text := okHeartbeat + `# a comment
core execution_prepare id=$prepare
{"session_id":"$session","configuration":{"agent_state_key":"agents-api-$session"}}
----
core> whatever the runner printed
runtime> more

runtime preparation_status id=$prepare
{"handle":"$handle","revision":1,"state":"preparing","expires_at":$expires_at}
----
----
output with

a blank line
----
----

advance 5m
----

silence runtime 50ms
----

disconnect by=core
----
`
	sc, err := Parse("s.txt", text, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range sc.Flat() {
		got = append(got, fmt.Sprintf("%s %s %s %s", st.Pos, st.Kind, st.Side, st.Duration))
	}
	want := []string{
		"s.txt:1 frame runtime 0s", "s.txt:6 frame core 0s", "s.txt:12 frame runtime 0s",
		"s.txt:22 advance  5m0s", "s.txt:25 silence runtime 50ms", "s.txt:28 disconnect core 0s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	owners := fmt.Sprint(sc.Owners)
	if owners != "map[expires_at:runtime handle:runtime prepare:core session:core ts:runtime]" {
		t.Fatalf("owners %s", owners)
	}
}
