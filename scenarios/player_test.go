package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakeCore is a Core that a test scripts: what it sends is queued by
// hand, and every call the player makes is recorded.
type fakeCore struct {
	Log
	calls []string
	reply [][]byte // sent once a peer frame is delivered
	sent  [][]byte
}

func (f *fakeCore) record(s string) { f.calls = append(f.calls, s) }

func (f *fakeCore) Deliver(fr *Frame, raw []byte) {
	f.record("deliver " + string(raw))
	f.sent, f.reply = append(f.sent, f.reply...), nil
}

func (f *fakeCore) Sent(*Frame) ([]byte, error) {
	if len(f.sent) == 0 {
		return nil, nil
	}
	b := f.sent[0]
	f.sent = f.sent[1:]
	return b, nil
}

func (f *fakeCore) Unlisted() []string {
	var out []string
	for _, b := range f.sent {
		out = append(out, string(b))
	}
	f.sent = nil
	return out
}
func (f *fakeCore) Connect()                            { f.record("connect") }
func (f *fakeCore) Disconnect(byCore bool)              { f.record(fmt.Sprintf("disconnect by-core=%v", byCore)) }
func (f *fakeCore) Advance(d time.Duration)             { f.record("advance " + d.String()) }
func (f *fakeCore) VersionRefused(map[string]string)    { f.record("version-refused") }
func (f *fakeCore) API(st Step)                         { f.record("api " + st.Action) }
func (f *fakeCore) CoreState(map[string]string)         { f.record("core-state") }
func (f *fakeCore) CoreInteraction(map[string]string)   { f.record("core-interaction") }
func (f *fakeCore) CoreSubagents(map[string]string)     { f.record("core-subagents") }
func (f *fakeCore) CoreSuspension(map[string]string)    { f.record("core-suspension") }
func (f *fakeCore) CorePreparation(a map[string]string) { f.record("core-preparation " + a["state"]) }
func (f *fakeCore) CoreWorkspace(map[string]string)     { f.record("core-workspace") }

const playText = `connect
----

runtime preparation_status id=p-1
{"executor_id":"ex-1","handle":"h-1","revision":1,"state":"preparing","expires_at":42}
----

core execution_start id=p-1
{"executor_id":"ex-1","handle":"h-1","run_id":"$run","input":[]}
----

harness fail-setup
----

core-preparation state=completed
----

silence core 1s
----
`

const startFrame = `{"type":"execution_start","id":"p-1","payload":{"executor_id":"ex-1","handle":"h-1","run_id":"r-7","input":[]}}`

// TestPlayDispatchesEachKindOnce: the player hands each step to the one
// driver method of its kind, skips the other side's steps and matches the
// side's frames binding its placeholders.
func TestPlayDispatchesEachKindOnce(t *testing.T) {
	f := &fakeCore{reply: [][]byte{[]byte(startFrame)}}
	rep := Play(scenarioOf(t, playText), f)
	if len(rep.Failures) != 0 {
		t.Fatalf("failures: %v", rep.Failures)
	}
	want := []string{"connect", `deliver {"type":"preparation_status","id":"p-1","payload":{"executor_id":"ex-1","handle":"h-1","revision":1,"state":"preparing","expires_at":42}}`,
		"core-preparation completed", "advance 1s"}
	if strings.Join(f.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(f.calls, "\n"), strings.Join(want, "\n"))
	}
}

// TestPlayUnknownKind: a step kind no driver plays fails, naming the
// step.
func TestPlayUnknownKind(t *testing.T) {
	p := NewPlayer(scenarioOf(t, playText), &fakeCore{})
	if _, errs := p.Step(Step{Pos: "s.txt:99", Kind: "fly"}); len(errs) != 1 || errs[0].Error() != "s.txt:99: step kind fly not supported by this runner" {
		t.Fatalf("unknown kind: %v", errs)
	}
}

// TestPlayOnlyOtherSide: a scenario for the other side only is skipped
// whole, saying why, and its end is not checked.
func TestPlayOnlyOtherSide(t *testing.T) {
	f := &fakeCore{reply: [][]byte{[]byte(startFrame)}}
	rep := Play(scenarioOf(t, "only runtime\nthe Runtime's rule\n----\n\n"+playText), f)
	if len(rep.Failures) != 0 || len(f.calls) != 0 || rep.Skipped != "only the runtime side plays this scenario: the Runtime's rule" {
		t.Fatalf("report %+v, calls %v", rep, f.calls)
	}
}

// TestNewPlayerNeedsASide: a driver of neither side is a programming
// error.
func TestNewPlayerNeedsASide(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a driver of neither side was accepted")
		}
	}()
	NewPlayer(scenarioOf(t, "connect\n----\n"), struct{ Driver }{})
}
