package core

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// DescribeFrame renders a frame as one canonical line: type, envelope ID
// and the payload members that matter for traces.
func DescribeFrame(f wire.Frame) string {
	if f.Payload == nil {
		return fmt.Sprintf("<nil> id=%s", f.ID)
	}
	head := f.Payload.MessageType() + " id=" + f.ID
	switch p := f.Payload.(type) {
	case wire.Heartbeat:
		kinds := ""
		for i, k := range p.SupportedAgentKinds {
			if i > 0 {
				kinds += ","
			}
			kinds += fmt.Sprintf("%s/%v", k.Kind, k.Available)
		}
		return fmt.Sprintf("%s kinds=[%s]", head, kinds)
	case wire.ExecutionPrepare:
		return fmt.Sprintf("%s session=%s kind=%s", head, p.SessionID, p.Configuration.AgentKind)
	case wire.ExecutionStart:
		return fmt.Sprintf("%s executor=%s handle=%s run=%s messages=%d", head, p.ExecutorID, p.Handle, p.RunID, len(p.Input))
	case wire.ExecutionRelease:
		return fmt.Sprintf("%s handle=%s", head, p.Handle)
	case wire.PreparationStatus:
		return fmt.Sprintf("%s state=%s rev=%d handle=%s run=%s code=%s op=%s",
			head, p.State, p.Revision, p.Handle, p.RunID, p.ErrorCode, p.Operation)
	case wire.PromptCancel:
		return fmt.Sprintf("%s delivery=%s", head, p.DeliveryID)
	case wire.PromptSteer:
		return fmt.Sprintf("%s input=%s durable=%v", head, p.InputID, p.DurableReceipt)
	case wire.PromptSteerAck:
		return fmt.Sprintf("%s input=%s accepted=%v written=%v code=%s", head, p.InputID, p.Accepted, p.Written, p.ErrorCode)
	case wire.InteractionDecisionAck:
		return fmt.Sprintf("%s delivery=%s applied=%v code=%s outcome=%v", head, p.DeliveryID, p.Applied, p.ErrorCode, p.Outcome != nil)
	case wire.Delta:
		return fmt.Sprintf("%s seq=%d bytes=%d", head, p.Sequence, len(p.Delta))
	case wire.RunError:
		return fmt.Sprintf("%s code=%s status=%d", head, p.Code, p.HTTPStatus)
	case wire.Done:
		return fmt.Sprintf("%s bytes=%d usage=%v", head, len(p.Content), p.Usage != nil)
	}
	return head
}
