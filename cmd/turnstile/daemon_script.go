package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// syntheticScriptBytesMax bounds a synthetic script file.
const syntheticScriptBytesMax = 1 << 20

// syntheticFile is the JSON file that scripts the synthetic Harness:
//
//	{"fail_closes": 0,
//	 "extensions": {"permissions": true, "function_tools": true},
//	 "turns": [{"thinking": "…", "deltas": ["Hello, ", "world"], "interval": "300ms",
//	            "hold": true, "cancel_latency": "2s", "steer_apply_latency": "1s",
//	            "retire": "", "usage": {"input_tokens": 3, "output_tokens": 2},
//	            "error": {"error": "…", "code": "server_error"},
//	            "asks": [{"type": "permission_request", "request_id": "perm-1", "tool": "shell", "title": "Run ls"},
//	                     {"type": "function_call", "call_id": "call-1", "name": "lookup", "arguments": {"q": "x"}}]}]}
//
// Turns take the scripts in order; once they are used up every Turn echoes
// its input as one delta. A Turn's asks are emitted after its deltas and
// each waits for its answer; answering needs the matching extension.
type syntheticFile struct {
	FailCloses int                  `json:"fail_closes"`
	Extensions *syntheticExtensions `json:"extensions"`
	Turns      []syntheticTurn      `json:"turns"`
}

// syntheticExtensions are the synthetic Harness's qualified extensions.
type syntheticExtensions struct {
	Permissions   bool `json:"permissions"`
	FunctionTools bool `json:"function_tools"`
}

// syntheticAsk is one interaction a scripted Turn emits: a permission
// request or a function call.
type syntheticAsk struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Tool      string          `json:"tool"`
	Title     string          `json:"title"`
	Detail    string          `json:"detail"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Kinds of a syntheticAsk.
const (
	askPermission   = "permission_request"
	askFunctionCall = "function_call"
)

func (a syntheticAsk) payload() (wire.Payload, error) {
	var p wire.Payload
	switch a.Type {
	case askPermission:
		if a.CallID != "" || a.Name != "" || a.Arguments != nil {
			return nil, fmt.Errorf("a permission_request has no call_id, name or arguments")
		}
		p = wire.PermissionRequest{RequestID: a.RequestID, Tool: a.Tool, Title: a.Title, Detail: a.Detail}
	case askFunctionCall:
		if a.RequestID != "" || a.Tool != "" || a.Title != "" || a.Detail != "" {
			return nil, fmt.Errorf("a function_call has no request_id, tool, title or detail")
		}
		args := a.Arguments
		if args == nil {
			args = json.RawMessage(`{}`)
		}
		p = wire.FunctionCall{CallID: a.CallID, Name: a.Name, Arguments: args}
	default:
		return nil, fmt.Errorf("type: %q is not %s or %s", a.Type, askPermission, askFunctionCall)
	}
	if err := wire.Validate(p); err != nil {
		return nil, err
	}
	return p, nil
}

// syntheticScript is a parsed script file.
type syntheticScript struct {
	turns      []synthetic.TurnScript
	failCloses int
	ext        synthetic.Extensions
}

type syntheticTurn struct {
	Thinking          string         `json:"thinking"`
	Deltas            []string       `json:"deltas"`
	Interval          string         `json:"interval"`
	Hold              bool           `json:"hold"`
	CancelLatency     string         `json:"cancel_latency"`
	SteerApplyLatency string         `json:"steer_apply_latency"`
	Retire            string         `json:"retire"`
	Usage             *wire.Usage    `json:"usage"`
	Error             *wire.RunError `json:"error"`
	Asks              []syntheticAsk `json:"asks"`
}

// errScript reports an unusable synthetic script; the message names the
// field.
var errScript = errors.New("synthetic script")

// loadSyntheticScript reads a script file and returns the synthetic
// Harness it scripts: its extensions qualified, its Turns queued.
func loadSyntheticScript(path string) (*synthetic.Harness, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errScript, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, syntheticScriptBytesMax+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errScript, err)
	}
	if len(b) > syntheticScriptBytesMax {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", errScript, path, syntheticScriptBytesMax)
	}
	sc, err := parseSyntheticScript(b)
	if err != nil {
		return nil, err
	}
	h := synthetic.NewWith(sc.ext)
	h.Script(sc.turns...)
	h.FailCloses(sc.failCloses)
	return h, nil
}

func parseSyntheticScript(b []byte) (syntheticScript, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var file syntheticFile
	if err := dec.Decode(&file); err != nil {
		return syntheticScript{}, fmt.Errorf("%w: %w", errScript, err)
	}
	if dec.More() {
		return syntheticScript{}, fmt.Errorf("%w: trailing data after the JSON object", errScript)
	}
	if file.FailCloses < 0 {
		return syntheticScript{}, fmt.Errorf("%w: fail_closes is negative", errScript)
	}
	out := syntheticScript{turns: make([]synthetic.TurnScript, len(file.Turns)), failCloses: file.FailCloses}
	if e := file.Extensions; e != nil {
		out.ext = synthetic.Extensions{Permissions: e.Permissions, FunctionTools: e.FunctionTools}
	}
	for i, t := range file.Turns {
		s, err := t.script()
		if err != nil {
			return syntheticScript{}, fmt.Errorf("%w: turns[%d].%w", errScript, i, err)
		}
		out.turns[i] = s
	}
	return out, nil
}

func (t syntheticTurn) script() (synthetic.TurnScript, error) {
	s := synthetic.TurnScript{Thinking: t.Thinking, Deltas: t.Deltas, Hold: t.Hold, Retire: t.Retire, Usage: t.Usage, Error: t.Error}
	for _, d := range []struct {
		name string
		raw  string
		into *time.Duration
	}{
		{"interval", t.Interval, &s.EventInterval},
		{"cancel_latency", t.CancelLatency, &s.CancelLatency},
		{"steer_apply_latency", t.SteerApplyLatency, &s.SteerApplyLatency},
	} {
		if d.raw == "" {
			continue
		}
		v, err := time.ParseDuration(d.raw)
		if err != nil || v < 0 {
			return s, fmt.Errorf("%s: %q is not a non-negative duration such as 300ms", d.name, d.raw)
		}
		*d.into = v
	}
	if t.Error != nil {
		if t.Error.Error == "" {
			return s, fmt.Errorf("error.error: the error text is empty")
		}
		if err := wire.Validate(*t.Error); err != nil {
			return s, fmt.Errorf("error: %w", err)
		}
	}
	if t.Usage != nil {
		if err := wire.Validate(wire.UsageUpdate{Usage: *t.Usage}); err != nil {
			return s, fmt.Errorf("usage: %w", err)
		}
	}
	for i, a := range t.Asks {
		p, err := a.payload()
		if err != nil {
			return s, fmt.Errorf("asks[%d]: %w", i, err)
		}
		s.Asks = append(s.Asks, p)
	}
	return s, nil
}
