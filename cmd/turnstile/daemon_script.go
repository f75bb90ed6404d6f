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
//	 "turns": [{"thinking": "…", "deltas": ["Hello, ", "world"], "interval": "300ms",
//	            "hold": true, "cancel_latency": "2s", "steer_apply_latency": "1s",
//	            "retire": "", "usage": {"input_tokens": 3, "output_tokens": 2},
//	            "error": {"error": "…", "code": "server_error"}}]}
//
// Turns take the scripts in order; once they are used up every Turn echoes
// its input as one delta.
type syntheticFile struct {
	FailCloses int             `json:"fail_closes"`
	Turns      []syntheticTurn `json:"turns"`
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
}

// errScript reports an unusable synthetic script; the message names the
// field.
var errScript = errors.New("synthetic script")

// loadSyntheticScript reads and queues a script file into h.
func loadSyntheticScript(path string, h *synthetic.Harness) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %w", errScript, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, syntheticScriptBytesMax+1))
	if err != nil {
		return fmt.Errorf("%w: %w", errScript, err)
	}
	if len(b) > syntheticScriptBytesMax {
		return fmt.Errorf("%w: %s is larger than %d bytes", errScript, path, syntheticScriptBytesMax)
	}
	scripts, failCloses, err := parseSyntheticScript(b)
	if err != nil {
		return err
	}
	h.Script(scripts...)
	h.FailCloses(failCloses)
	return nil
}

func parseSyntheticScript(b []byte) ([]synthetic.TurnScript, int, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var file syntheticFile
	if err := dec.Decode(&file); err != nil {
		return nil, 0, fmt.Errorf("%w: %w", errScript, err)
	}
	if dec.More() {
		return nil, 0, fmt.Errorf("%w: trailing data after the JSON object", errScript)
	}
	if file.FailCloses < 0 {
		return nil, 0, fmt.Errorf("%w: fail_closes is negative", errScript)
	}
	out := make([]synthetic.TurnScript, len(file.Turns))
	for i, t := range file.Turns {
		s, err := t.script()
		if err != nil {
			return nil, 0, fmt.Errorf("%w: turns[%d].%w", errScript, i, err)
		}
		out[i] = s
	}
	return out, file.FailCloses, nil
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
	return s, nil
}
