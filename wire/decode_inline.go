package wire

import (
	"errors"
	"reflect"
)

// decodeInline is Decode in one pass over the whole frame, for the usual
// shape where `type` comes before `payload`: the payload is decoded where
// it stands instead of being skipped first and scanned again. It reports
// false for anything else — an error of any kind, a payload before its
// type — and Decode then takes the two-pass path, which gives the same
// result and every error message.
func decodeInline(frame []byte) (Frame, bool) {
	if len(frame) > FrameBytesMax {
		return Frame{}, false
	}
	sc := newScanner(frame, "envelope")
	sc.anyDup = true // as scanEnvelope: only a trace value is skipped here
	sc.skipSpace()
	if sc.pos >= len(frame) || frame[sc.pos] != '{' {
		return Frame{}, false
	}
	sc.pos++
	sc.push(pathSegment{})
	var env envelopeParts
	var mt *messageType
	var p Payload
	var seen uint8
	for first := true; ; first = false {
		sc.skipSpace()
		if first && sc.pos < len(frame) && frame[sc.pos] == '}' {
			return Frame{}, false // no type
		}
		key, err := sc.decodeMemberName()
		if err != nil {
			return Frame{}, false
		}
		bit, name := envelopeMember(key)
		if bit == 0 || seen&bit != 0 {
			return Frame{}, false
		}
		seen |= bit
		switch name {
		case "payload":
			if p, err = mt.inlinePayload(&sc); err != nil {
				return Frame{}, false
			}
		case "type":
			// looked up without building the string
			sc.skipSpace()
			if sc.pos >= len(frame) || frame[sc.pos] != '"' {
				return Frame{}, false
			}
			raw, escaped, err := sc.str()
			if err != nil || escaped {
				return Frame{}, false
			}
			if mt = registry[string(raw)]; mt == nil {
				return Frame{}, false
			}
		default:
			if sc.envelopeValue(&env, name) != nil || env.idLen > 0 {
				return Frame{}, false
			}
		}
		if done, err := sc.endMember('}'); err != nil || done {
			if err != nil {
				return Frame{}, false
			}
			break
		}
	}
	sc.skipSpace()
	if sc.pos != len(frame) || mt == nil {
		return Frame{}, false
	}
	if p == nil {
		var err error
		if p, err = mt.absentPayload(); err != nil {
			return Frame{}, false
		}
	}
	return Frame{ID: env.id, Trace: env.trace, Payload: p}, true
}

// errNotInline sends a frame to the two-pass path; it never leaves Decode.
var errNotInline = errors.New("wire: payload not decodable inline")

// inlinePayload decodes the payload at the envelope scanner's position
// and moves the envelope scanner past it.
func (mt *messageType) inlinePayload(env *scanner) (Payload, error) {
	if mt == nil {
		return nil, errNotInline
	}
	env.skipSpace()
	if mt.direct != nil {
		if p, end, ok := mt.direct(env.data, env.pos); ok {
			env.pos = end
			return p, nil
		}
	}
	pv := reflect.New(mt.typ)
	sc := scanner{data: env.data, pos: env.pos, root: mt.name}
	if err := sc.decodeValue(mt.schema, false, pv.Elem()); err != nil {
		return nil, err
	}
	env.pos = sc.pos
	return mt.finished(pv.Elem().Interface().(Payload)), nil
}
