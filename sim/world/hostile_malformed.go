package world

import (
	"bytes"

	"github.com/turnstile-sim/turnstile/wire"
)

// Malformed frames of the hostile_core_frames fault: each breaks one rule
// of the wire decoder or validator (wire reference §1, §3.3, §3.7, §5),
// which the daemon must refuse with the documented answer as it refuses
// any undecodable frame of that type — an execution_prepare with rejected
// invalid_request, a prompt_steer with an invalid_input receipt — and
// without acting on it.

// malformedPrepare is an execution_prepare of a Session of the injector's
// own, broken in one way drawn from the decoder's rules.
func (in *injector) malformedPrepare(req string) []byte {
	h := &in.u.hostile
	s := h.mint("s")
	good := encodeFrame(req, wire.ExecutionPrepare{SessionID: s, Configuration: hostileConfig(s, "m")})
	sess := []byte(`"session_id":` + quote(s))
	switch in.r.IntN(5) {
	case 0: // mistyped members
		return []byte(`{"type":"execution_prepare","id":` + quote(req) + `,"payload":{"session_id":7,"configuration":[]}}`)
	case 1: // a member repeated: never "the last one wins"
		return bytes.Replace(good, sess, append([]byte(`"session_id":`+quote(h.mint("s"))+`,`), sess...), 1)
	case 2: // null for a member that is not nullable
		return bytes.Replace(good, sess, []byte(`"session_id":null`), 1)
	case 3: // a required member missing
		return bytes.Replace(good, append(sess, ','), nil, 1)
	default: // a member repeated inside the configuration
		return bytes.Replace(good, []byte(`"strict_resume":true`), []byte(`"strict_resume":true,"strict_resume":true`), 1)
	}
}

// malformedSteer is a prompt_steer for run broken in one way drawn from
// the decoder's and the message-input rules.
func (in *injector) malformedSteer(run string) []byte {
	head := `{"type":"prompt_steer","id":` + quote(run) + `,"payload":{`
	text := `"input":[{"content":[{"type":"input_text","text":"malformed"}]}]`
	switch in.r.IntN(6) {
	case 0: // input of the wrong type
		return []byte(head + `"input_id":"x-i","input":"text","durable_receipt":true}}`)
	case 1: // a whitespace-only input_id
		return []byte(head + `"input_id":"   ",` + text + `,"durable_receipt":true}}`)
	case 2: // an image part whose URL is only whitespace
		return []byte(head + `"input_id":"x-i",` + `"input":[{"content":[{"type":"input_image","image_url":" \t"}]}],"durable_receipt":true}}`)
	case 3: // a message whose only text is empty has no content
		return []byte(head + `"input_id":"x-i",` + `"input":[{"content":[{"type":"input_text","text":""}]}],"durable_receipt":true}}`)
	case 4: // a member repeated
		return []byte(head + `"input_id":"x-i","input_id":"x-j",` + text + `,"durable_receipt":true}}`)
	default: // null for a member that is not nullable
		return []byte(head + `"input_id":null,` + text + `,"durable_receipt":true}}`)
	}
}
