package acp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// proofTurn is a running Turn's steer bookkeeping with the accepted steers
// of texts (input IDs "in-1", "in-2", …).
func proofTurn(prompt string, texts ...string) *Turn {
	t := &Turn{prompt: prompt, receipts: map[string]*receipt{}, steers: map[string]int{}, started: map[string]bool{}}
	for i, text := range texts {
		id := "in-" + string(rune('1'+i))
		t.receipts[id] = agent.NewInputReceipt(text)
		t.steers[id] = steerAccepted
		t.accepted = append(t.accepted, id)
	}
	return t
}

func echo(id, text string) ProofEvent { return ProofEvent{Echo: &EchoedMessage{ID: id, Text: text}} }

// open reports whether the receipt of id is still undecided.
func open(t *Turn, id string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	return errors.Is(t.receipts[id].AwaitApplied(ctx), context.DeadlineExceeded)
}

// A receipt is applied only when a replay carrying exactly its text was
// also started (in either order); the first replay of the prompt's text
// is the prompt's and applies nothing; a replay binds the oldest accepted
// steer of its text once; anything else leaves the receipt open (the end of the Turn
// makes it unknown: TestScriptedMCodeSteerOutcomes, the end-to-end test).
func TestProofAppliesOnlyAStartedReplayOfTheSteer(t *testing.T) {
	tr := proofTurn("left", "left", "left", "right")
	tr.onProof(echo("p", "left")) // the prompt's replay
	tr.onProof(ProofEvent{Started: []string{"p"}})
	if !open(tr, "in-1") || !open(tr, "in-2") {
		t.Fatal("the prompt's replay applied a steer")
	}
	tr.onProof(echo("a", "left"))
	if !open(tr, "in-1") {
		t.Fatal("a replay that was not started applied a steer")
	}
	tr.onProof(ProofEvent{Started: []string{"b"}})
	if !open(tr, "in-1") {
		t.Fatal("another message's start applied a steer")
	}
	tr.onProof(ProofEvent{Started: []string{"a"}})
	if open(tr, "in-1") || tr.receipts["in-1"].AwaitApplied(context.Background()) != nil || !open(tr, "in-2") {
		t.Fatal("the started replay did not apply exactly the oldest steer of its text")
	}
	tr.onProof(ProofEvent{Started: []string{"c"}})
	tr.onProof(echo("c", "left")) // started first, replayed after
	if tr.receipts["in-2"].AwaitApplied(context.Background()) != nil {
		t.Fatal("a replay started before it arrived did not apply the second steer")
	}
	tr.onProof(echo("d", "RIGHT"))
	tr.onProof(ProofEvent{Started: []string{"d"}})
	if !open(tr, "in-3") {
		t.Fatal("a replay of other text applied a steer")
	}
}

// claude-agent-acp's raw messages: a replayed user message is an echo, a
// started command_lifecycle and a result's user_message_uuids are starts;
// anything else (a user message that is no replay, another lifecycle
// state, malformed JSON) shows nothing.
func TestClaudeProofReadsRawMessages(t *testing.T) {
	read := claudeProof().Read
	cases := []struct {
		raw     string
		ok      bool
		echo    *EchoedMessage
		started []string
	}{
		{`{"sessionId":"s","message":{"type":"user","uuid":"u","isReplay":true,"message":{"content":[{"type":"text","text":"turn "},{"type":"text","text":"left"}]}}}`,
			true, &EchoedMessage{ID: "u", Text: "turn left"}, nil},
		{`{"sessionId":"s","message":{"type":"user","uuid":"u","isReplay":true,"message":{"content":"plain"}}}`,
			true, &EchoedMessage{ID: "u", Text: "plain"}, nil},
		{`{"sessionId":"s","message":{"type":"command_lifecycle","command_uuid":"u","state":"started"}}`, true, nil, []string{"u"}},
		{`{"sessionId":"s","message":{"type":"result","user_message_uuids":["u","v"]}}`, true, nil, []string{"u", "v"}},
		{`{"sessionId":"s","message":{"type":"user","uuid":"u","message":{"content":"tool result"}}}`, false, nil, nil},
		{`{"sessionId":"s","message":{"type":"user","uuid":"u","isReplay":true,"message":{"content":[{"type":"image"}]}}}`, false, nil, nil},
		{`{"sessionId":"s","message":{"type":"command_lifecycle","command_uuid":"u","state":"queued"}}`, false, nil, nil},
		{`{"sessionId":`, false, nil, nil},
	}
	for _, c := range cases {
		session, ev, ok := read(json.RawMessage(c.raw))
		if ok != c.ok {
			t.Fatalf("%s: ok %v", c.raw, ok)
		}
		if !ok {
			continue
		}
		if session != "s" || (c.echo == nil) != (ev.Echo == nil) || (c.echo != nil && *c.echo != *ev.Echo) ||
			len(ev.Started) != len(c.started) {
			t.Fatalf("%s: %q %+v", c.raw, session, ev)
		}
		for i := range c.started {
			if ev.Started[i] != c.started[i] {
				t.Fatalf("%s: started %v", c.raw, ev.Started)
			}
		}
	}
}

// A steer that pre-empted the prompt before Claude Code replayed it (the
// prompt is never replayed) is applied on its own replay.
func TestProofAppliesASteerThatPreemptedThePrompt(t *testing.T) {
	tr := proofTurn("start", "turn left")
	tr.onProof(ProofEvent{Started: []string{"p"}})
	tr.onProof(ProofEvent{Started: []string{"s"}})
	tr.onProof(echo("s", "turn left"))
	if tr.receipts["in-1"].AwaitApplied(context.Background()) != nil {
		t.Fatal("the started replay of the steer did not apply it")
	}
}
