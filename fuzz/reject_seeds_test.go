package fuzz

import (
	"errors"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// rejectSeed is a corpus entry that must be rejected with want: for the
// family targets typ indexes the family's types and data is the payload.
type rejectSeed struct {
	typ  byte
	data string
	want error
}

const prepareHead = `{"session_id":"s","configuration":{"agent_kind":"k","conversation_id":"","run_id":""`

// rejectSeeds holds, per target, one seed for each error class the target
// can reach, so the fuzzer starts from the rejection paths as well. Outside
// the strict payload types an unknown member is ignored, so there the
// ErrUnknownField seed is a member that differs from a known one only in
// case.
var rejectSeeds = map[string][]rejectSeed{
	"FuzzDecodeEnvelope": {
		{0, `{"type":"no_such_type","id":"r"}`, wire.ErrUnknownType},
		{0, `{"type":"delta","id":"r","payload":{"delta":"x","sequence":0},"Payload":1}`, wire.ErrUnknownField},
		{0, `{"type":"delta","type":"delta"}`, wire.ErrDuplicateField},
		{0, `{"id":"r","payload":{}}`, wire.ErrMissingField},
		{0, `{"type":"delta","id":"r","payload":null}`, wire.ErrNull},
		{0, `{"type":"delta","id":7}`, wire.ErrWrongType},
		{0, `{"type":"delta","id":"` + strings.Repeat("i", wire.IDBytesMax+1) + `"}`, wire.ErrTooLarge},
		{0, `{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[]}}`, wire.ErrInvalid},
		{0, "{\"type\":\"delta\",\"id\":\"\xff\",\"payload\":{\"delta\":\"x\",\"sequence\":0}}", wire.ErrInvalidUTF8},
		{0, `{"type":"delta",`, wire.ErrSyntax},
		{0, `{"type":"delta","id":"r","payload":{"delta":"x","sequence":0}} {}`, wire.ErrTrailingData},
	},
	"FuzzAdmission": {
		{0, prepareHead + `,"disable_execution_environment":true,"AGENT_KIND":"j"}}`, wire.ErrUnknownField},
		{2, `{"handle":"h","handle":"h"}`, wire.ErrDuplicateField},
		{1, `{"executor_id":"e","handle":"h","run_id":"r"}`, wire.ErrMissingField},
		{0, `{"session_id":"s","configuration":null}`, wire.ErrNull},
		{3, `{"revision":-1,"state":"ready"}`, wire.ErrWrongType},
		{0, prepareHead + `,"disable_execution_environment":true,"agent_options":{"model":` + strings.Repeat("[", 201) + strings.Repeat("]", 201) + `}}}`, wire.ErrTooLarge},
		{0, prepareHead + `,"disable_execution_environment":true,"function_tools":[]}}`, wire.ErrInvalid},
		{3, `{"revision":0,"state":"rejected","error_code":"invalid_start","operation":"delta"}`, wire.ErrInvalid},
		{2, "{\"handle\":\"h\xc3\"}", wire.ErrInvalidUTF8},
		{4, `{"agent_kind":"k",`, wire.ErrSyntax},
	},
	"FuzzRunOutput": {
		{0, `{"delta":"x","sequence":0,"Delta":"y"}`, wire.ErrUnknownField},
		{3, `{"id":"c","name":"n","stage":"before","args":{"a":1,"a":2}}`, wire.ErrDuplicateField},
		{7, `{"native_id":"n"}`, wire.ErrMissingField},
		{1, `{"text":null}`, wire.ErrNull},
		{4, `{"input_tokens":2147483648}`, wire.ErrWrongType},
		{3, `{"id":"c","name":"n","stage":"before","result":` + strings.Repeat(`{"a":`, 201) + `1` + strings.Repeat("}", 201) + `}`, wire.ErrTooLarge},
		{2, `{"id":"m","status":"finished"}`, wire.ErrInvalid},
		{0, "{\"delta\":\"\xed\xa0\x80\",\"sequence\":0}", wire.ErrInvalidUTF8},
		{6, `{"content":"x"`, wire.ErrSyntax},
	},
	"FuzzInteractions": {
		{0, `{"request_id":"r","tool":"t","title":"x","Title":"y"}`, wire.ErrUnknownField},
		{2, `{"delivery_id":"d","approved":true,"approved":false}`, wire.ErrDuplicateField},
		{9, `{"delivery_id":"d","call_id":"c","success":true}`, wire.ErrMissingField},
		{9, `{"delivery_id":"d","call_id":"c","success":true,"content":null}`, wire.ErrNull},
		{3, `{"ask_id":"a","questions":{}}`, wire.ErrWrongType},
		{0, `{"request_id":"r","tool":"t","title":"x","payload":{"a":` + strings.Repeat("[", 201) + strings.Repeat("]", 201) + `}}`, wire.ErrTooLarge},
		{4, `{"delivery_id":"d","question_answers":[]}`, wire.ErrInvalid},
		{8, "{\"call_id\":\"c\",\"name\":\"n\",\"arguments\":{\"\xff\":1}}", wire.ErrInvalidUTF8},
		{5, `{"delivery_id":"d","applied":tru}`, wire.ErrSyntax},
	},
	"FuzzSteering": {
		{0, `{"input_id":"i","input":[{"content":[{"type":"input_text","text":"x","Text":"y"}]}]}`, wire.ErrUnknownField},
		{1, `{"input_id":"i","accepted":true,"accepted":true}`, wire.ErrDuplicateField},
		{1, `{"accepted":true}`, wire.ErrMissingField},
		{0, `{"input_id":"i","input":null}`, wire.ErrNull},
		{0, `{"input_id":"i","input":"hello"}`, wire.ErrWrongType},
		{1, `{"input_id":"` + strings.Repeat("i", wire.InputIDBytesMax+1) + `","accepted":true}`, wire.ErrTooLarge},
		{0, `{"input_id":"i","input":[]}`, wire.ErrInvalid},
		{0, "{\"input_id\":\"\xff\xfe\",\"input\":[{\"content\":[{\"type\":\"input_text\",\"text\":\"x\"}]}]}", wire.ErrInvalidUTF8},
		{1, `{"input_id":"i","accepted":true`, wire.ErrSyntax},
	},
	"FuzzWorkspace": {
		{2, `{"environment_id":"e","suspend_id":"s","Suspend_ID":"t"}`, wire.ErrUnknownField},
		{3, `{"environment_id":"e","suspend_id":"s","suspend_id":"t"}`, wire.ErrDuplicateField},
		{4, `{"environment_id":"e","suspend_id":"s"}`, wire.ErrMissingField},
		{1, `{"outcome":"completed","close_acknowledged":true,"directory":{"entries":[{"name":"a","kind":"file","size_bytes":1}],"truncated":null}}`, wire.ErrNull},
		{0, `{"environment_id":"e","path":"a","max_bytes":"1","run_id":"r"}`, wire.ErrWrongType},
		{0, `{"run_id":"r","environment_id":"e","path":"` + strings.Repeat("p", wire.WorkspacePathBytesMax+1) + `","max_bytes":1}`, wire.ErrTooLarge},
		{1, `{"outcome":"completed","close_acknowledged":true,"truncated":true,"directory":{"entries":[],"truncated":false}}`, wire.ErrInvalid},
		{1, "{\"outcome\":\"completed\",\"close_acknowledged\":true,\"directory\":{\"entries\":[{\"name\":\"a\xffb\",\"kind\":\"other\",\"size_bytes\":null}],\"truncated\":false}}", wire.ErrInvalidUTF8},
		{5, `{"environment_id":"e" "suspend_id":"s"}`, wire.ErrSyntax},
	},
	"FuzzTransfer": {
		{0, `{"step":"commit","STEP":"x"}`, wire.ErrUnknownField},
		{4, `{"step":"next","offset":1,"offset":2}`, wire.ErrDuplicateField},
		{5, `{"offset":0}`, wire.ErrMissingField},
		{3, `{"outcome":"ready","reason":null}`, wire.ErrNull},
		{2, `{"step":"chunk","offset":0,"data":"not base64!"}`, wire.ErrWrongType},
		{0, `{"step":"chunk","offset":52428800,"data":"QQ=="}`, wire.ErrTooLarge},
		{0, `{"step":"begin","environment_id":"` + sampleUUID + `","session_id":"` + sampleUUID + `","action":"initialize","initialization":{"action":"setup","network":"enabled","command":"make","env":{}}}`, wire.ErrInvalid},
		{1, "{\"outcome\":\"rejected\",\"error_code\":\"invalid_request\xc0\"}", wire.ErrInvalidUTF8},
		{5, `{"outcome":"chunk","offset":0,"data":"QQ=="]`, wire.ErrSyntax},
	},
	"FuzzCapabilities": {
		{0, `{"streaming":true,"telepathy":true}`, wire.ErrUnknownField},
		{0, `{"streaming":true,"streaming":true}`, wire.ErrDuplicateField},
		{0, `{}`, wire.ErrMissingField},
		{0, `{"streaming":null}`, wire.ErrNull},
		{0, `{"streaming":1}`, wire.ErrWrongType},
		{0, "{\"\xff\":true}", wire.ErrInvalidUTF8},
		{0, `{"streaming":true,`, wire.ErrSyntax},
	},
	"FuzzUserChoiceDecision": {
		{0, `{"delivery_id":"d","answers":[]}`, wire.ErrUnknownField},
		{0, `{"delivery_id":"d","cancelled":true,"cancelled":true}`, wire.ErrDuplicateField},
		{0, `{"question_answers":[{"question_id":"q1","answers":["a"]}]}`, wire.ErrMissingField},
		{0, `{"delivery_id":"d","question_answers":[{"question_id":"q1","answers":null}]}`, wire.ErrNull},
		{0, `{"delivery_id":"d","question_answers":{"q1":["a"]}}`, wire.ErrWrongType},
		{0, `{"delivery_id":"d","question_answers":[]}`, wire.ErrInvalid},
		{0, `{"delivery_id":"d","cancelled":true,"question_answers":[{"question_id":"q1","answers":[]}]}`, wire.ErrInvalid},
		{0, "{\"delivery_id\":\"d\",\"question_answers\":[{\"question_id\":\"q1\",\"answers\":[\"\xff\"]}]}", wire.ErrInvalidUTF8},
		{0, `{"delivery_id":"d",]`, wire.ErrSyntax},
	},
}

const sampleUUID = "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"

// rejectSeedBytes renders a seed in the target's input format.
func rejectSeedBytes(name string, s rejectSeed) []byte {
	if _, family := families[name]; family {
		return append([]byte{s.typ}, s.data...)
	}
	return []byte(s.data)
}

// targetFrame builds the frame a target decodes from its input.
func targetFrame(name string, in []byte) []byte {
	switch name {
	case "FuzzDecodeEnvelope":
		return in
	case "FuzzCapabilities":
		return []byte(`{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"k","available":true,"capabilities":` + string(in) + `}]}}`)
	case "FuzzUserChoiceDecision":
		return []byte(`{"type":"prompt_for_user_choice_decision","id":"ask","payload":` + string(in) + `}`)
	}
	return familyFrame(families[name], in)
}

// TestRejectionSeeds: every rejection seed is rejected, by Decode or by
// Validate, with its named error.
func TestRejectionSeeds(t *testing.T) {
	for _, name := range fuzzTargets {
		if len(rejectSeeds[name]) == 0 {
			t.Errorf("%s has no rejection seeds", name)
		}
		for i, s := range rejectSeeds[name] {
			f, err := wire.Decode(targetFrame(name, rejectSeedBytes(name, s)))
			if err == nil {
				err = wire.Validate(f.Payload)
			}
			if !errors.Is(err, s.want) {
				t.Errorf("%s rejection seed %d: got %v, want %v", name, i, err, s.want)
			}
		}
	}
}
