package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// plainDecode is the interim strict-ish decoder: unknown fields rejected.
func plainDecode[P any](b []byte, p *P) error {
	if len(b) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

func init() {
	register(plainDecode[Heartbeat])
	register(plainDecode[RuntimePrepare])
	register(plainDecode[RuntimePrepareResult])
	register(plainDecode[ExecutionPrepare])
	register(plainDecode[ExecutionStart])
	register(plainDecode[ExecutionRelease])
	register(plainDecode[PreparationStatus])
	register(plainDecode[PromptCancel])
	register(plainDecode[DeviceShutdown])
	register(plainDecode[Delta])
	register(plainDecode[Thinking])
	register(plainDecode[OutputMessage])
	register(plainDecode[ToolCall])
	register(plainDecode[UsageUpdate])
	register(plainDecode[RunError])
	register(plainDecode[Done])
	register(plainDecode[PermissionRequest])
	register(plainDecode[PermissionCancel])
	register(plainDecode[PermissionDecision])
	register(plainDecode[UserChoicePrompt])
	register(plainDecode[UserChoiceDecision])
	register(plainDecode[InteractionDecisionAck])
	register(plainDecode[PromptSteer])
	register(plainDecode[PromptSteerAck])
	register(plainDecode[FunctionCall])
	register(plainDecode[FunctionResult])
	register(plainDecode[WorkspaceRead])
	register(plainDecode[WorkspaceReadResult])
	register(plainDecode[WorkspaceWrite])
	register(plainDecode[WorkspaceWriteResult])
	register(plainDecode[WorkspaceExport])
	register(plainDecode[WorkspaceExportResult])
	register(plainDecode[EnvironmentQuiesce])
	register(plainDecode[EnvironmentResume])
	register(plainDecode[EnvironmentQuiesced])
	register(plainDecode[EnvironmentResumed])
}
