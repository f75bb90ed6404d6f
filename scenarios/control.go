package scenarios

import "encoding/json"

// ControlPath is the route of the control channel on the scripted Core's
// listener (turnstile conform runtime): a Runtime under test that wants
// its harness steps driven opens a WebSocket there.
const ControlPath = "/conform/control"

// ControlCommand is one harness step sent over the control channel to the
// Runtime's controlled Harness adapter. Action is a harness action (see
// HarnessActions), "settle" (Args: content, session, reusable, reason) or
// "owned" (report the owned counts). Emit carries the native event's
// type and JSON payload.
type ControlCommand struct {
	Seq     int               `json:"seq"`
	Action  string            `json:"action"`
	Type    string            `json:"type,omitempty"`
	Payload json.RawMessage   `json:"payload,omitempty"`
	Args    map[string]string `json:"args,omitempty"`
}

// ControlReply answers the command with the same Seq: an empty Error
// means done. Owned answers "owned": counts by name (executors, turns,
// calls, idle, closing, records); a name left out is not checked.
type ControlReply struct {
	Seq   int            `json:"seq"`
	Error string         `json:"error,omitempty"`
	Owned map[string]int `json:"owned,omitempty"`
}

// HarnessCommand is the control command of a harness step. A file step
// carries its environment and path in Args and its content as a JSON
// string in Payload.
func HarnessCommand(st Step) ControlCommand {
	cmd := ControlCommand{Action: st.Action, Type: st.Args["type"], Payload: json.RawMessage(st.Input)}
	if st.Action == "file" {
		content, _ := json.Marshal(st.Input)
		cmd.Type, cmd.Payload = "", content
		cmd.Args = map[string]string{"environment": st.Args["environment"], "path": st.Args["path"]}
	}
	return cmd
}
