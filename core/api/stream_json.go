package api

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/turnstile-sim/turnstile/wire"
)

// eventEncoder encodes the event data of one stream. A stream sends the
// objects of one Session, whose agent is frozen at its creation: the
// encoder renders that agent once (agent) and reuses it.
type eventEncoder struct {
	agent []byte
}

// appendEventData appends d as json.Marshal renders it, without
// reflection for the members every event carries (identifiers, text,
// indexes, the Turn, Session and item objects); the rarer nested objects
// (an engine error, a Turn's error or usage, required actions, an input
// receipt) go through json.Marshal. The stream encodes several events per Turn, so
// this is its main cost besides the network.
func (e *eventEncoder) appendEventData(b []byte, d *eventData) ([]byte, error) {
	b = append(b, '{')
	if d.ContentIndex != nil {
		b = strconv.AppendInt(append(b, `"content_index":`...), int64(*d.ContentIndex), 10)
		b = append(b, ',')
	}
	if d.Delta != nil {
		b = append(appendJSONString(append(b, `"delta":`...), *d.Delta), ',')
	}
	var err error
	if d.Error != nil {
		if b, err = appendMarshal(append(b, `"error":`...), d.Error); err != nil {
			return b, err
		}
		b = append(b, ',')
	}
	if d.byCursor {
		b = append(d.eventCursor.appendJSON(append(b, `"event_id":`...)), ',')
	} else {
		b = append(appendJSONString(append(b, `"event_id":`...), d.EventID), ',')
	}
	if d.Item != nil {
		if b, err = appendItem(append(b, `"item":`...), d.Item); err != nil {
			return b, err
		}
		b = append(b, ',')
	}
	if d.ItemID != "" {
		b = append(appendJSONString(append(b, `"item_id":`...), d.ItemID), ',')
	}
	if len(d.OutputIndex) > 0 {
		if b, err = appendRaw(append(b, `"output_index":`...), d.OutputIndex); err != nil {
			return b, err
		}
		b = append(b, ',')
	}
	if d.Session != nil {
		if b, err = e.appendSessionObject(append(b, `"session":`...), d.Session); err != nil {
			return b, err
		}
		b = append(b, ',')
	}
	if d.SessionID != "" {
		b = append(appendJSONString(append(b, `"session_id":`...), d.SessionID), ',')
	}
	if d.Text != nil {
		b = append(appendJSONString(append(b, `"text":`...), *d.Text), ',')
	}
	if d.Turn != nil {
		if b, err = appendTurnObject(append(b, `"turn":`...), d.Turn); err != nil {
			return b, err
		}
		b = append(b, ',')
	}
	if d.TurnID != "" {
		b = append(appendJSONString(append(b, `"turn_id":`...), d.TurnID), ',')
	}
	b = appendJSONString(append(b, `"type":`...), d.Type)
	if len(d.Usage) > 0 {
		if b, err = appendRaw(append(b, `,"usage":`...), d.Usage); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendTurnObject appends t as json.Marshal renders it.
func appendTurnObject(b []byte, t *TurnObject) ([]byte, error) {
	b = appendJSONString(append(b, `{"id":`...), t.ID)
	b = appendJSONString(append(b, `,"object":`...), t.Object)
	b = appendStringPtr(append(b, `,"agent_id":`...), t.AgentID)
	b = appendJSONString(append(b, `,"session_id":`...), t.SessionID)
	b = strconv.AppendInt(append(b, `,"created_at":`...), t.CreatedAt, 10)
	b = appendIntPtr(append(b, `,"started_at":`...), t.StartedAt)
	b = appendIntPtr(append(b, `,"completed_at":`...), t.CompletedAt)
	b = appendJSONString(append(b, `,"status":`...), t.Status)
	var err error
	b = append(b, `,"error":`...)
	if t.Error == nil {
		b = append(b, "null"...)
	} else if b, err = appendMarshal(b, t.Error); err != nil {
		return b, err
	}
	b = appendStringPtr(append(b, `,"subagent_id":`...), t.SubagentID)
	b = append(b, `,"usage":`...)
	if t.Usage == nil {
		b = append(b, "null"...)
	} else {
		b = appendUsage(b, t.Usage)
	}
	if x := t.XAgentsCore; x != nil {
		b = appendJSONString(append(b, `,"x_agents_core":{"state":`...), x.State)
		if x.Cancel != "" {
			b = appendJSONString(append(b, `,"cancel":`...), x.Cancel)
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendUsage appends u as json.Marshal renders it.
func appendUsage(b []byte, u *UsageJSON) []byte {
	b = strconv.AppendInt(append(b, `{"input_tokens":`...), u.InputTokens, 10)
	b = strconv.AppendInt(append(b, `,"input_tokens_details":{"cached_tokens":`...), u.InputTokensDetails.CachedTokens, 10)
	b = strconv.AppendInt(append(b, `},"output_tokens":`...), u.OutputTokens, 10)
	b = strconv.AppendInt(append(b, `,"output_tokens_details":{"reasoning_tokens":`...), u.OutputTokensDetails.ReasoningTokens, 10)
	b = strconv.AppendInt(append(b, `},"total_tokens":`...), u.TotalTokens, 10)
	return append(b, '}')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

func appendIntPtr(b []byte, n *int64) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *n, 10)
}

// appendMarshal appends v's json.Marshal rendering.
func appendMarshal(b []byte, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, raw...), nil
}

// appendRaw appends a raw member as json.Marshal renders it: the
// stream's own constants as they are, anything else compacted through
// json.Marshal.
func appendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	switch string(raw) {
	case "0", "null":
		return append(b, raw...), nil
	}
	return appendMarshal(b, raw)
}

// appendSessionObject appends s as json.Marshal renders it.
func (e *eventEncoder) appendSessionObject(b []byte, s *SessionObject) ([]byte, error) {
	b = appendJSONString(append(b, `{"id":`...), s.ID)
	b = appendJSONString(append(b, `,"object":`...), s.Object)
	if e.agent == nil {
		agent, err := json.Marshal(&s.Agent)
		if err != nil {
			return b, err
		}
		e.agent = agent
	}
	b = append(append(b, `,"agent":`...), e.agent...)
	b = strconv.AppendInt(append(b, `,"created_at":`...), s.CreatedAt, 10)
	b = strconv.AppendInt(append(b, `,"last_active_at":`...), s.LastActiveAt, 10)
	var err error
	b = append(b, `,"environment":`...)
	if s.Environment == nil {
		b = append(b, "null"...)
	} else if b, err = appendRaw(b, s.Environment); err != nil {
		return b, err
	}
	b = appendStringPtr(append(b, `,"error":`...), s.Error)
	b = append(b, `,"metadata":`...)
	if s.Metadata == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(s.Metadata)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(append(appendJSONString(b, k), ':'), s.Metadata[k])
		}
		b = append(b, '}')
	}
	b = append(b, `,"required_actions":`...)
	switch {
	case s.RequiredActions == nil:
		b = append(b, "null"...)
	case len(s.RequiredActions) == 0:
		b = append(b, "[]"...)
	default:
		if b, err = appendMarshal(b, s.RequiredActions); err != nil {
			return b, err
		}
	}
	b = appendJSONString(append(b, `,"status":`...), s.Status)
	b = append(b, `,"usage":`...)
	if s.Usage == nil {
		b = append(b, "null"...)
	} else if b, err = appendMarshal(b, s.Usage); err != nil {
		return b, err
	}
	b = append(b, `,"vault_ids":`...)
	if s.VaultIDs == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, id := range s.VaultIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, id)
		}
		b = append(b, ']')
	}
	x := s.XAgentsCore
	b = strconv.AppendBool(append(b, `,"x_agents_core":{"recovery_required":`...), x.RecoveryRequired)
	b = strconv.AppendBool(append(b, `,"usable":`...), x.Usable)
	b = appendStringPtr(append(b, `,"unusable_reason":`...), x.UnusableReason)
	return append(b, "}}"...), nil
}

// jsonPlain marks the bytes a JSON string carries as they are in
// json.Marshal's rendering: printable ASCII except the quote, the
// backslash and the HTML characters < > &.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString appends s as json.Marshal renders a string: a string
// of plain bytes (the stream's identifiers and types) is copied in one
// go, any other goes through wire.AppendJSONString.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !jsonPlain[s[i]] {
			return wire.AppendJSONString(b, s)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// appendItem appends it as json.Marshal renders it.
func appendItem(b []byte, it *ItemJSON) ([]byte, error) {
	b = appendJSONString(append(b, `{"id":`...), it.ID)
	b = appendJSONString(append(b, `,"type":`...), it.Type)
	b = appendJSONString(append(b, `,"turn_id":`...), it.TurnID)
	b = appendJSONString(append(b, `,"status":`...), it.Status)
	if it.Role != "" {
		b = appendJSONString(append(b, `,"role":`...), it.Role)
	}
	if it.Phase != nil {
		b = appendJSONString(append(b, `,"phase":`...), *it.Phase)
	}
	if len(it.Content) > 0 {
		b = appendContent(append(b, `,"content":`...), it.Content)
	}
	if it.CallID != "" {
		b = appendJSONString(append(b, `,"call_id":`...), it.CallID)
	}
	if it.Name != "" {
		b = appendJSONString(append(b, `,"name":`...), it.Name)
	}
	var err error
	if len(it.Arguments) > 0 {
		if b, err = appendRaw(append(b, `,"arguments":`...), it.Arguments); err != nil {
			return b, err
		}
	}
	if len(it.Output) > 0 {
		b = appendContent(append(b, `,"output":`...), it.Output)
	}
	if it.Error != nil {
		b = appendJSONString(append(b, `,"error":`...), *it.Error)
	}
	if it.XAgentsCore != nil {
		if b, err = appendMarshal(append(b, `,"x_agents_core":`...), it.XAgentsCore); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendContent appends content parts as json.Marshal renders them.
func appendContent(b []byte, parts []ContentJSON) []byte {
	b = append(b, '[')
	for i, c := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(append(b, `{"type":`...), c.Type)
		if c.Text != nil {
			b = appendJSONString(append(b, `,"text":`...), *c.Text)
		}
		if c.ImageURL != nil {
			b = appendJSONString(append(b, `,"image_url":`...), *c.ImageURL)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}
