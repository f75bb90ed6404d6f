package controlled

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/scenarios"
)

// OwnedFunc reports the counts a Runtime owns, by name (executors, turns,
// calls, idle, closing); the host that runs the daemon provides it.
type OwnedFunc func(ctx context.Context) (map[string]int, error)

// OwnedCounts tallies a daemon's owned resources into the counts an
// OwnedFunc reports: resources by kind, and executors by state.
func OwnedCounts(res []daemon.Resource) map[string]int {
	have := map[string]int{"executors": 0, "turns": 0, "calls": 0, "idle": 0, "closing": 0}
	for _, r := range res {
		have[r.Kind+"s"]++
		if r.Kind == "executor" {
			state, _, _ := strings.Cut(r.State, ",")
			have[state]++
		}
	}
	return have
}

// Serve opens the control channel at url (ws://…/conform/control),
// trying again until it opens or ctx ends (the Runtime may start before
// the scripted Core listens), and applies every command it receives until
// ctx ends or the channel closes; it does not open the channel again.
// owned answers "owned" (nil: refused, so the check is reported as not
// checked). Each command is answered with its Seq.
func (c *Controlled) Serve(ctx context.Context, url string, owned OwnedFunc) error {
	var ws *websocket.Conn
	for {
		var err error
		if ws, _, err = websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: c.HTTPClient}); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("control channel %s: %w", url, err)
		case <-time.After(200 * time.Millisecond): // before the next attempt
		}
	}
	defer ws.CloseNow()
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			return nil // the channel ends with the run or the scenario
		}
		var cmd scenarios.ControlCommand
		rep := scenarios.ControlReply{}
		if err := json.Unmarshal(b, &cmd); err != nil {
			rep.Error = "control command is not JSON: " + err.Error()
		} else {
			rep = c.answer(ctx, cmd, owned)
		}
		out, _ := json.Marshal(rep)
		if err := ws.Write(ctx, websocket.MessageText, out); err != nil {
			return nil
		}
	}
}

func (c *Controlled) answer(ctx context.Context, cmd scenarios.ControlCommand, owned OwnedFunc) scenarios.ControlReply {
	rep := scenarios.ControlReply{Seq: cmd.Seq}
	if cmd.Action == "owned" {
		if owned == nil {
			rep.Error = "owned: not reported by this Runtime"
			return rep
		}
		m, err := owned(ctx)
		if err != nil {
			rep.Error = "owned: " + err.Error()
		}
		rep.Owned = m
		return rep
	}
	if err := c.Do(cmd); err != nil {
		rep.Error = err.Error()
	}
	return rep
}
