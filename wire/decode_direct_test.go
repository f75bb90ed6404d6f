package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// onePassPayload reads a payload at pos with the one-pass decoder alone.
func onePassPayload(mt *messageType, data []byte, pos int) (Payload, int, error) {
	pv := reflect.New(mt.typ)
	sc := scanner{data: data, pos: pos, root: mt.name}
	if err := sc.decodeValue(mt.schema, false, pv.Elem()); err != nil {
		return nil, 0, err
	}
	return pv.Elem().Interface().(Payload), sc.pos, nil
}

var genDirectPlain = rapid.StringMatching(`[a-z0-9 ._:-]{0,10}`)

// nearCanonical draws the JSON of a payload as json.Marshal renders it,
// then perhaps breaks it the way a hostile peer might: members swapped,
// repeated or dropped, whitespace, escapes, numbers the schema refuses or
// that sit at the edge of its range, truncation, a stray byte.
func nearCanonical(t *rapid.T, p Payload) []byte {
	raw, err := json.Marshal(p)
	if err != nil {
		t.Skip("a payload json.Marshal refuses") // never on the wire
	}
	edits := []func([]byte) []byte{
		func(b []byte) []byte { return b },
		func(b []byte) []byte { return bytes.Replace(b, []byte(`,`), []byte(` , `), 1) },
		func(b []byte) []byte { return append([]byte(" "), b...) },
		func(b []byte) []byte { return bytes.Replace(b, []byte(`"revision":`), []byte(`"revision":0`), 1) },
		func(b []byte) []byte { return bytes.Replace(b, []byte(`"revision":`), []byte(`"revision":-`), 1) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"revision":`), []byte(`"revision":99999999999999999999`), 1)
		},
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"revision":`), []byte(`"revision":1.5,"x":`), 1)
		},
		func(b []byte) []byte { return bytes.Replace(b, []byte(`"state":`), []byte(`"state":"a","state":`), 1) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`,"state":`), []byte(`,"revision":1,"state":`), 1)
		},
		func(b []byte) []byte { return bytes.Replace(b, []byte(`"state"`), []byte(`"stat\u0065"`), 1) },
		func(b []byte) []byte { return bytes.Replace(b, []byte(`"state"`), []byte(`"State"`), 1) },
		func(b []byte) []byte { return bytes.Replace(b, []byte(`"expires_at":`), []byte(`"expires_at":-0`), 1) },
		func(b []byte) []byte { return bytes.Replace(b, []byte(`"reused":true`), []byte(`"reused":tru`), 1) },
		func(b []byte) []byte { return bytes.Replace(b, []byte(`true`), []byte(`null`), 1) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"revision":`), []byte(`"revision":1e3,"x":`), 1)
		},
		func(b []byte) []byte { return b[:len(b)-1] },
		func(b []byte) []byte { return append(b[:len(b)-1:len(b)-1], `,}`...) },
		func(b []byte) []byte { return append(b, `,"more":1}`...) },
		func(b []byte) []byte { return []byte(`{}`) },
		func(b []byte) []byte { return []byte(`{"revision":1,"state":"ready"}`) },
		func(b []byte) []byte { return []byte(`{"state":"ready","revision":1}`) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"strict_resume":true`), []byte(`"strict_resume":true,"strict_resume":true`), 1)
		},
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"agent_options":{`), []byte(`"agent_options":{},"x":{`), 1)
		},
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"agent_options":{`), []byte(`"agent_options":{"model":"a",`), 1)
		},
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"function_tools":[`), []byte(`"function_tools":[],"x":[`), 1)
		},
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"function_tools":[`), []byte(`"function_tools":[null,`), 1)
		},
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"local_environment":`), []byte(`"local_environment":null,"x":`), 1)
		},
		func(b []byte) []byte { return bytes.Replace(b, []byte(`"schema":`), []byte(`"schema":[1],"x":`), 1) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"parameters":`), []byte(`"parameters":"s","x":`), 1)
		},
		func(b []byte) []byte { return bytes.Replace(b, []byte(`":"`), []byte(`":null,"x":"`), 1) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`{"agent_kind"`), []byte(`{"run_id":"r","agent_kind"`), 1)
		},
		func(b []byte) []byte { return bytes.Replace(b, []byte(`,"run_id":""`), []byte(``), 1) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"max_concurrent_subagents":`), []byte(`"max_concurrent_subagents":-0.5,"x":`), 1)
		},
	}
	b := edits[rapid.IntRange(0, len(edits)-1).Draw(t, "edit")](raw)
	if rapid.IntRange(0, 7).Draw(t, "stray") == 0 && len(b) > 0 {
		i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
		b = append(b[:i:i], append([]byte{rapid.Byte().Draw(t, "byte")}, b[i+1:]...)...)
	}
	return b
}

// TestDirectDecodeMatchesOnePass: whatever the direct reader accepts, the
// one-pass decoder accepts too, with the same payload and end; and the
// direct reader accepts the canonical JSON of plain payloads.
func TestDirectDecodeMatchesOnePass(t *testing.T) {
	gens := map[string]func(*rapid.T) Payload{
		TypePreparationStatus: func(t *rapid.T) Payload {
			str := hostileStr
			if rapid.Bool().Draw(t, "plain") { // strings the direct reader takes
				str = func(t *rapid.T, label string) string { return genDirectPlain.Draw(t, label) }
			}
			return PreparationStatus{ExecutorID: str(t, "executor"), Reused: rapid.Bool().Draw(t, "reused"),
				Handle: str(t, "handle"), Revision: rapid.Uint64().Draw(t, "revision"), State: str(t, "state"),
				ExpiresAt: rapid.Int64().Draw(t, "expires"), RunID: str(t, "run"), ErrorCode: str(t, "code"),
				Operation: str(t, "operation")}
		},
	}
	gens[TypeExecutionPrepare] = func(t *rapid.T) Payload {
		if rapid.Bool().Draw(t, "valid") {
			return genExecutionPrepare(t)
		}
		p := ExecutionPrepare{SessionID: hostileStr(t, "session"), Configuration: hostileConfiguration(t)}
		if rapid.Bool().Draw(t, "plain") { // strings the direct reader takes
			c := &p.Configuration
			for _, f := range []*string{&p.SessionID, &c.AgentKind, &c.ConversationID, &c.RunID, &c.AgentSessionID, &c.AgentStateKey} {
				*f = genDirectPlain.Draw(t, "plain_string")
			}
			if c.ExecutionControls != nil {
				c.ExecutionControls.WebSearch, c.ExecutionControls.TextVerbosity = "disabled", genDirectPlain.Draw(t, "verbosity")
				if c.ExecutionControls.OutputFormat != nil {
					c.ExecutionControls.OutputFormat.Type = genDirectPlain.Draw(t, "format_type")
				}
			}
			if le := c.LocalEnvironment; le != nil {
				le.ID, le.WorkspaceDirectory, le.NetworkAccess = genDirectPlain.Draw(t, "env"), "", genDirectPlain.Draw(t, "network")
			}
			for i := range c.FunctionTools {
				c.FunctionTools[i].Name, c.FunctionTools[i].Description = genDirectPlain.Draw(t, "fname"), genDirectPlain.Draw(t, "fdesc")
			}
			opts := map[string]json.RawMessage{}
			for k, v := range c.AgentOptions { //tidy:sorted rebuilt with plain keys
				if json.Valid(v) {
					opts[rapid.SampledFrom([]string{"model", "system_prompt", "harness_config", "k-1"}).Draw(t, "key")+k[:0]] = v
				}
			}
			c.AgentOptions = opts
		}
		return p
	}
	for typ, gen := range gens {
		mt := registry[typ]
		if mt.direct == nil {
			t.Fatalf("%s has no direct reader", typ)
		}
		t.Run(typ, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				data := nearCanonical(t, gen(t))
				pos := 0
				for pos < len(data) && data[pos] == ' ' {
					pos++
				}
				p, end, ok := mt.direct(data, pos)
				if !ok {
					return
				}
				want, wantEnd, err := onePassPayload(mt, data, pos)
				if err != nil {
					t.Fatalf("direct reader accepted %q, the one-pass decoder refuses it: %v", data, err)
				}
				if !reflect.DeepEqual(p, want) || end != wantEnd {
					t.Fatalf("%q:\n direct %+v (end %d)\none-pass %+v (end %d)", data, p, end, want, wantEnd)
				}
			})
		})
	}
}

func TestDirectDecodeReadsCanonicalStatus(t *testing.T) {
	for _, p := range []PreparationStatus{
		{Revision: 0, State: StatePreparing},
		{ExecutorID: "ex-1", Reused: true, Handle: "h-1", Revision: 12, State: StateReady, ExpiresAt: 1767226549649, RunID: "r", ErrorCode: "c", Operation: "o"},
		{Revision: 999999999999999999, State: StateFailed, ExpiresAt: -5},
	} {
		raw, _ := json.Marshal(p)
		got, end, ok := p.decodeDirect(raw, 0)
		if !ok || end != len(raw) || got != p {
			t.Errorf("%s: got %+v, end %d, ok %v", raw, got, end, ok)
		}
		f, err := Decode(append(append([]byte(`{"type":"preparation_status","id":"p-1","payload":`), raw...), '}'))
		if err != nil || f.Payload != p {
			t.Errorf("Decode %s: %+v, %v", raw, f.Payload, err)
		}
	}
}

// The execution_prepare Core sends in the simulation (agent options,
// controls with an output schema, an Environment, function tools) is
// read directly, the same payload as the one-pass decoder's.
func TestDirectDecodeReadsCanonicalPrepare(t *testing.T) {
	two := 2
	p := ExecutionPrepare{SessionID: "s-1", Configuration: ExecutionConfiguration{AgentKind: "synthetic", MaxConcurrentSubagents: &two,
		AgentOptions: map[string]json.RawMessage{"model": json.RawMessage(`"m-1"`), "harness_config": json.RawMessage(`{"a":[1,{"b":null}]}`),
			"system_prompt": json.RawMessage(`"be brief <ok>"`)},
		ExecutionControls: &ExecutionControls{WebSearch: "disabled", TextVerbosity: "low",
			OutputFormat: &OutputFormat{Type: OutputFormatJSONSchema, Schema: json.RawMessage(`{"type":"object"}`)}},
		LocalEnvironment: &LocalEnvironment{ID: "00000000-0000-4000-8000-000000001001", Capabilities: true, NetworkAccess: "enabled"},
		AgentStateKey:    "agents-api-s-1", StrictResume: true, ObserveMessages: true,
		FunctionTools: []FunctionTool{{Name: "f", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`), DeferLoading: true}, {Name: "g"}},
		ToolSearch:    true, DisableSubagents: true}}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	got, end, ok := p.decodeDirect(raw, 0)
	want, wantEnd, err := onePassPayload(registry[TypeExecutionPrepare], raw, 0)
	if !ok || err != nil || end != len(raw) || wantEnd != end || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n direct %+v (%v)\none-pass %+v (%v)", raw, got, ok, want, err)
	}
}
