package acp

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

// TestAgainstSimulatedCore runs the adapter over the pinned
// claude-agent-acp in the real daemon shell against the simulated Core,
// with a seeded workload and faults. The kit runs inside a
// testing/synctest bubble; the agent runs outside it (bubbletest): while
// the agent owes the answer to one of the adapter's requests virtual time
// stands still; when it owes nothing, virtual time moves. Each Turn draws
// a native behaviour: text, a slow stream, a tool round trip, an API
// error, or a native turn held on tool calls for a while. The workload's
// steers reach running Turns through the steering extension; Core records
// one accepted only once Claude Code's replay of it proved it applied.
func TestAgainstSimulatedCore(t *testing.T) {
	s := claudetest.NewServer(t)
	opts := realOptions(t, s)
	hst := bubbletest.Start(t)
	opts.spawn = func(spec clirunner.Spec) (clirunner.Child, error) {
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
		Model: "claude-simulated",
		BeforeTurn: func(r *rand.Rand) {
			s.Clear()
			i := r.IntN(len(replies))
			if i < len(replies)-1 {
				s.Queue(replies[i])
				return
			}
			// Every session's native turn keeps running on tool calls
			// for a while of virtual time, then ends with text unless
			// cancelled.
			s.HoldSession("")
			time.AfterFunc(time.Duration(2+r.IntN(8))*time.Second, func() { s.ReleaseSession("") })
		},
	})
}

// ledger tracks what the agent owes: the answer of each request the
// adapter sent, and after session/cancel the answer of the prompt.
type ledger struct {
	holding      func() bool     // the fake keeps native turns running
	pending      map[string]bool // JSON-RPC ids of the adapter's unanswered requests
	interrupting bool            // a session/cancel was sent and the prompt's answer is owed
}

type ledgerLine struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// Wrote notes a request (owed its answer) or a session/cancel.
func (l *ledger) Wrote(p []byte) {
	var m ledgerLine
	if json.Unmarshal(p, &m) != nil {
		return
	}
	switch {
	case m.Method == methodSessionCancel:
		l.interrupting = true
	case m.Method != "" && len(m.ID) > 0:
		l.pending[string(m.ID)] = true
	}
}

// Read settles the request an answer names.
func (l *ledger) Read(line []byte) {
	var m ledgerLine
	if json.Unmarshal(line, &m) != nil || m.Method != "" || len(m.ID) == 0 {
		return
	}
	delete(l.pending, string(m.ID))
	if len(l.pending) == 0 {
		l.interrupting = false
	}
}

// Busy: a held native turn owes nothing until it is cancelled (virtual
// time must move for the workload to cancel it).
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
