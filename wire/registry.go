package wire

import (
	"reflect"
	"sort"
)

// messageType is the registry entry of one type string.
type messageType struct {
	name     string
	schema   *schema
	bodyless bool    // a frame without payload is legal and decodes to zero
	zero     Payload // the zero payload
	typ      reflect.Type
	// finish normalises a decoded payload when its type reads members
	// leniently (the error run event); nil for the others.
	finish func(Payload) Payload
	// direct reads the payload's canonical JSON without reflection, when
	// the type has such a reader (decode_direct.go); the one-pass
	// decoder reads what it refuses.
	direct func(data []byte, pos int) (Payload, int, bool)
}

// registry maps every type string to its payload type. It is filled during
// package initialisation and read-only afterwards.
var registry = map[string]*messageType{}

// register adds payload type P. bodyless marks the types of which a frame
// without payload is legal: prompt_cancel (cancel without receipt),
// permission_cancel (no payload at all) and device_shutdown (no reason).
func register[P Payload](bodyless bool) {
	var zero P
	t := reflect.TypeFor[P]()
	mt := &messageType{name: zero.MessageType(), schema: schemaOf(t), bodyless: bodyless, zero: zero, typ: t}
	if d, ok := any(zero).(directDecoder); ok {
		mt.direct = d.decodeDirect
	}
	markDescribe(t)
	assert.That(registry[mt.name] == nil, "wire: type %q registered twice", mt.name)
	registry[mt.name] = mt
}

// decodePayload decodes raw strictly in one walk (decode_value.go).
func (mt *messageType) decodePayload(raw []byte) (Payload, error) {
	if raw == nil {
		return mt.absentPayload()
	}
	return mt.onePass(raw)
}

// finished applies the type's finish step to a decoded payload.
func (mt *messageType) finished(p Payload) Payload {
	if mt.finish == nil {
		return p
	}
	return mt.finish(p)
}

func (mt *messageType) absentPayload() (Payload, error) {
	if !mt.bodyless {
		return nil, missing(mt.name + ".payload")
	}
	return mt.zero, nil
}

// Types lists every registered type string in sorted order.
func Types() []string {
	out := make([]string, 0, len(registry))
	for name := range registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Bodyless reports whether a frame of type typ may omit its payload.
func Bodyless(typ string) bool {
	mt, ok := registry[typ]
	return ok && mt.bodyless
}

// ZeroPayload returns the zero payload of a registered type string.
func ZeroPayload(typ string) (Payload, bool) {
	mt, ok := registry[typ]
	if !ok {
		return nil, false
	}
	return mt.zero, true
}

func init() {
	register[Heartbeat](false)
	register[RuntimePrepare](false)
	register[RuntimePrepareResult](false)
	register[ExecutionPrepare](false)
	register[ExecutionStart](false)
	register[ExecutionRelease](false)
	register[PreparationStatus](false)
	register[PromptCancel](true)
	register[DeviceShutdown](true)
	register[Delta](false)
	register[Thinking](false)
	register[OutputMessage](false)
	register[ToolCall](false)
	register[UsageUpdate](false)
	register[RunError](false)
	registry[TypeError].finish = classifyRunError
	register[Done](false)
	register[PermissionRequest](false)
	register[PermissionCancel](true)
	register[PermissionDecision](false)
	register[UserChoicePrompt](false)
	register[UserChoiceDecision](false)
	register[InteractionDecisionAck](false)
	register[PromptSteer](false)
	register[PromptSteerAck](false)
	register[FunctionCall](false)
	register[FunctionResult](false)
	register[WorkspaceRead](false)
	register[WorkspaceReadResult](false)
	register[WorkspaceWrite](false)
	register[WorkspaceWriteResult](false)
	register[WorkspaceExport](false)
	register[WorkspaceExportResult](false)
	register[EnvironmentQuiesce](false)
	register[EnvironmentResume](false)
	register[EnvironmentQuiesced](false)
	register[EnvironmentResumed](false)
}
