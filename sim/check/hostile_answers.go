package check

import "github.com/turnstile-sim/turnstile/wire"

// answerOf renders the frame as a probe answer, or "" when it is no
// answer to a control operation or input.
func answerOf(f wire.Frame) string {
	switch p := f.Payload.(type) {
	case wire.PreparationStatus:
		if p.State == wire.StateRejected {
			return "rejected/" + p.ErrorCode
		}
		return p.State
	case wire.PromptSteerAck:
		if p.ErrorCode != "" {
			return "ack/" + p.ErrorCode
		}
		return "ack/ok"
	case wire.InteractionDecisionAck:
		if p.ErrorCode != "" {
			return "ack/" + p.ErrorCode
		}
		return "ack/applied"
	case wire.WorkspaceWriteResult:
		return "write/" + p.Outcome + "/" + p.ErrorCode
	}
	return ""
}
