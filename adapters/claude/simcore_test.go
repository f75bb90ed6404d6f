package claude

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/adaptertest"
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/internal/clirunner"
	"github.com/turnstile-sim/turnstile/internal/clirunner/bubbletest"
)

// TestAgainstSimulatedCore runs the adapter over the pinned CLI in the
// real daemon shell against the simulated Core, with a seeded workload
// and faults. The kit runs inside a testing/synctest bubble; the CLI runs
// outside it (bubbletest): while the CLI owes an answer (a user message
// without its result, a control request without its response) virtual
// time stands still; when it owes nothing, virtual time moves. Each Turn draws a native behaviour:
// text, a slow stream, a tool round trip, an API error.
func TestAgainstSimulatedCore(t *testing.T) {
	s := claudetest.NewServer(t)
	opts := realOptions(t, s)
	hst := bubbletest.Start(t)
	opts.spawn = func(spec clirunner.Spec) (process, error) {
		return hst.Spawn(spec, &ledger{holding: s.Holding, pending: map[string]bool{}})
	}
	replies := []claudetest.Reply{
		{Text: []string{"simulated", " answer"}, Usage: [2]int{5, 2}},
		{Text: []string{"slow", " stream", " here"}, Interval: 20 * time.Millisecond},
		{Tool: &claudetest.ToolUse{Name: "Bash", Input: map[string]any{"command": "echo tool", "description": "tool"}}},
		{Status: 529},
		{}, // held: see BeforeTurn
	}
	adaptertest.RunAgainstSimulatedCore(t, Declaration(opts), adaptertest.Options{
		Seed:  3,
		Log:   logWriter(t),
		Steps: 30,
		BeforeTurn: func(r *rand.Rand) {
			s.Clear()
			i := r.IntN(len(replies))
			if i < len(replies)-1 {
				s.Queue(replies[i])
				return
			}
			// Every session's native turn keeps running on tool calls
			// for a while of virtual time (written input folds at each
			// tool boundary), then ends with text unless cancelled.
			s.HoldSession("")
			time.AfterFunc(time.Duration(2+r.IntN(8))*time.Second, func() { s.ReleaseSession("") })
		},
	})
}

// ledger tracks what the CLI owes: user messages without their result,
// control requests without their response, and an interrupt's result.
type ledger struct {
	holding      func() bool     // the fake keeps native turns running
	pending      map[string]bool // user uuids and control request IDs the CLI owes an answer
	interrupting bool            // an interrupt was written and its Turn's result is owed
}

// Wrote notes what the CLI now owes (one JSON line per write).
func (l *ledger) Wrote(p []byte) {
	var m struct {
		Type      string `json:"type"`
		UUID      string `json:"uuid"`
		RequestID string `json:"request_id"`
		Request   struct {
			Subtype string `json:"subtype"`
		} `json:"request"`
	}
	if json.Unmarshal(p, &m) != nil {
		return
	}
	switch m.Type {
	case typeUser:
		l.pending[m.UUID] = true
	case typeControlRequest:
		l.pending[m.RequestID] = true
		l.interrupting = l.interrupting || m.Request.Subtype == "interrupt"
	}
}

// Read settles what a stdout line answers.
func (l *ledger) Read(line []byte) {
	var m outMessage
	_ = json.Unmarshal(line, &m)
	switch m.Type {
	case typeResult:
		l.interrupting = false
		if len(m.UserMessageUUIDs) == 0 {
			clear(l.pending)
		}
		for _, u := range m.UserMessageUUIDs {
			delete(l.pending, u)
		}
	case typeCommandLifecycle:
		if m.State == lifecycleCancelled {
			delete(l.pending, m.CommandUUID)
		}
	case typeControlResponse:
		var r controlResponse
		_ = json.Unmarshal(m.Response, &r)
		delete(l.pending, r.RequestID)
	}
	if len(l.pending) == 0 {
		// Nothing owed: an interrupt that cancelled its input before it
		// ran has no result.
		l.interrupting = false
	}
}

// Busy: a held native turn owes nothing until it is interrupted (virtual
// time must move for the workload to steer or cancel it).
func (l *ledger) Busy() bool {
	if len(l.pending) == 0 {
		return false
	}
	return l.interrupting || !l.holding()
}

func (l *ledger) Forget() { clear(l.pending) }

type tlog struct{ t *testing.T }

func (l tlog) Write(p []byte) (int, error) { l.t.Logf("%s", p); return len(p), nil }

func logWriter(t *testing.T) io.Writer { return tlog{t} }
