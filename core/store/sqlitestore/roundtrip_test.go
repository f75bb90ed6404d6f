package sqlitestore_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
	"github.com/turnstile-sim/turnstile/wire"
	"pgregory.net/rapid"
)

// The property: any records in canonical form (valid UTF-8, compact raw
// JSON, optional collections nil when empty), with pointers set or not and
// times at any instant and offset, come back from the file exactly.

func drawText(t *rapid.T, label string) string {
	return rapid.StringMatching(`[a-zé€\x{1F600} "\\<>&\n]{0,12}`).Draw(t, label)
}

func drawPtr[T any](t *rapid.T, label string, g *rapid.Generator[T]) *T {
	if rapid.Bool().Draw(t, label+"?") {
		v := g.Draw(t, label)
		return &v
	}
	return nil
}

func drawRaw(t *rapid.T, label string) json.RawMessage {
	return json.RawMessage(rapid.SampledFrom([]string{"", `{}`, `{"a":[1,2.5,"x"]}`, `[null,true]`, `"s\u003c"`}).Draw(t, label))
}

func drawTime(t *rapid.T, label string) time.Time {
	if rapid.IntRange(0, 4).Draw(t, label+"zero") == 0 {
		return time.Time{}
	}
	ns := rapid.Int64Range(-1<<50, 1<<62).Draw(t, label)
	off := rapid.IntRange(-12*60, 14*60).Draw(t, label+"offset") * 60
	loc := time.UTC
	if off != 0 {
		loc = time.FixedZone("", off)
	}
	return time.Unix(0, ns).In(loc)
}

func drawUsage(t *rapid.T) *wire.Usage {
	if !rapid.Bool().Draw(t, "usage?") {
		return nil
	}
	u := wire.Usage{Provider: drawText(t, "provider"), Model: drawText(t, "model"),
		InputTokens: drawPtr(t, "in", rapid.Int32()), OutputTokens: drawPtr(t, "out", rapid.Int32()),
		CostUSD: drawPtr(t, "cost", rapid.Float64Range(-1e9, 1e9)), Raw: nilIfEmpty(drawRaw(t, "raw"))}
	if rapid.Bool().Draw(t, "tokens?") {
		u.Tokens = &wire.TokenUsage{InputTokens: rapid.Int64().Draw(t, "ti"), TotalTokens: rapid.Int64().Draw(t, "tt")}
	}
	return &u
}

func nilIfEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return nil
	}
	return r
}

func drawDone(t *rapid.T) *wire.Done {
	if !rapid.Bool().Draw(t, "done?") {
		return nil
	}
	d := wire.Done{SourceCompletedAtMS: rapid.Int64().Draw(t, "ms"), Content: drawText(t, "content"),
		Transcript: nilIfEmpty(drawRaw(t, "transcript")), Usage: drawUsage(t)}
	if rapid.Bool().Draw(t, "meta?") {
		d.Metadata = &wire.DoneMetadata{AgentSessionID: drawText(t, "native")}
	}
	return &d
}

func drawInput(t *rapid.T) wire.MessageInput {
	var in wire.MessageInput
	for range rapid.IntRange(0, 2).Draw(t, "messages") {
		var m wire.InputMessage
		for range rapid.IntRange(0, 2).Draw(t, "parts") {
			if rapid.Bool().Draw(t, "text?") {
				m.Content = append(m.Content, wire.TextPart(drawText(t, "text")))
			} else {
				m.Content = append(m.Content, wire.ImagePart(drawText(t, "url")))
			}
		}
		in = append(in, m)
	}
	return in
}

func drawTurn(t *rapid.T, seq uint64) core.TurnRecord {
	return core.TurnRecord{
		ID: fmt.Sprint("t-", seq), Seq: seq, Session: drawText(t, "session"),
		State:   rapid.SampledFrom([]core.TurnState{core.TurnQueued, core.TurnRunning, core.TurnFailed}).Draw(t, "state"),
		Input:   drawInput(t),
		Attempt: rapid.IntRange(0, 3).Draw(t, "attempt"), Retried: rapid.Bool().Draw(t, "retried"),
		RunID: drawText(t, "run"), Handle: drawText(t, "handle"), OutputSeen: rapid.Bool().Draw(t, "seen"),
		Cancel:         rapid.SampledFrom([]core.CancelState{core.CancelNone, core.CancelRequested}).Draw(t, "cancel"),
		CancelDeadline: drawTime(t, "deadline"), CancelOutcome: drawDone(t),
		EventCount: rapid.Uint64Range(0, 1<<62).Draw(t, "events"), Done: drawDone(t),
		EngineHTTPStatus: rapid.Int().Draw(t, "http"), Usage: drawUsage(t), ErrorDetail: drawText(t, "detail"),
	}
}

func drawPayload(t *rapid.T) wire.Payload {
	switch rapid.IntRange(0, 4).Draw(t, "payload") {
	case 0:
		return wire.Delta{ItemID: drawText(t, "item"), Delta: drawText(t, "delta"), Sequence: rapid.Uint64().Draw(t, "seq")}
	case 1:
		return wire.RunError{Error: drawText(t, "error"), Code: drawText(t, "code"), HTTPStatus: rapid.Int().Draw(t, "status")}
	case 2:
		u := drawUsage(t)
		if u == nil {
			u = &wire.Usage{}
		}
		return wire.UsageUpdate{Usage: *u}
	case 3:
		return wire.ToolCall{ID: drawText(t, "id"), Args: nilIfEmpty(drawRaw(t, "args")),
			Observation: &wire.ToolObservation{Cwd: drawPtr(t, "cwd", rapid.Just("/w")), ExitCode: drawPtr(t, "exit", rapid.Int64())}}
	default:
		if d := drawDone(t); d != nil {
			return *d
		}
		return wire.Done{}
	}
}

func TestRecordsRoundTripExactly(t *testing.T) {
	root := t.TempDir()
	n := 0
	rapid.Check(t, func(t *rapid.T) {
		n++
		dir := filepath.Join(root, fmt.Sprint(n))
		s, err := openStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		var turns []core.TurnRecord
		var events []core.RunEvent
		for i := range rapid.IntRange(1, 4).Draw(t, "turns") {
			turns = append(turns, drawTurn(t, uint64(i+1)))
			s.PutTurn(turns[i])
		}
		for i := range rapid.IntRange(0, 6).Draw(t, "n events") {
			p := drawPayload(t)
			events = append(events, core.RunEvent{Seq: uint64(i + 1), Type: p.MessageType(), Payload: p})
			s.AppendEvent("t-1", events[i])
		}
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s, err = openStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got := s.Turns(); !reflect.DeepEqual(got, turns) {
			t.Fatalf("turns:\n got  %+v\n want %+v", got, turns)
		}
		if got := s.Events("t-1"); !reflect.DeepEqual(got, nilIfNone(events)) {
			t.Fatalf("events:\n got  %#v\n want %#v", got, events)
		}
	})
}

func nilIfNone(ev []core.RunEvent) []core.RunEvent {
	if len(ev) == 0 {
		return nil
	}
	return ev
}

func openStore(dir string) (*sqlitestore.Store, error) { return sqlitestore.Open(dir) }
