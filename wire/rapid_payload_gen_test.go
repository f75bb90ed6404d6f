package wire

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

func genUserChoicePrompt(t *rapid.T) Payload {
	p := UserChoicePrompt{AskID: genID.Draw(t, "ask"), ToolUseID: optString(t, "tool_use"),
		AutoResolutionMS: rapid.Uint64().Draw(t, "auto")}
	for _, id := range distinctWords(t, "questions", 1, 3) {
		q := UserQuestion{ID: id, Question: genPlain.Draw(t, "question"), Header: optString(t, "header"),
			MultiSelect: rapid.Bool().Draw(t, "multi"), Options: []UserOption{}}
		for n := rapid.IntRange(0, 2).Draw(t, "options"); n > 0; n-- {
			q.Options = append(q.Options, UserOption{Label: genPlain.Draw(t, "label"), Description: optString(t, "odesc")})
		}
		p.Questions = append(p.Questions, q)
	}
	return p
}

func genDecisionAck(t *rapid.T) Payload {
	a := InteractionDecisionAck{DeliveryID: genID.Draw(t, "delivery"), Applied: rapid.Bool().Draw(t, "applied")}
	switch {
	case a.Applied && rapid.Bool().Draw(t, "outcome"):
		d := genDone(t)
		a.Outcome = &d
	case !a.Applied:
		a.ErrorCode = rapid.SampledFrom(append(append([]string{}, InteractionAckCodes...), CancelAckCodes...)).Draw(t, "code")
		a.Error = optString(t, "error")
	}
	return a
}

func genSteerAck(t *rapid.T) Payload {
	a := PromptSteerAck{InputID: genID.Draw(t, "input_id")}
	switch rapid.IntRange(0, 2).Draw(t, "variant") {
	case 0:
		a.Accepted = true
	case 1:
		a.Written = true
	default:
		a.ErrorCode, a.Error = rapid.SampledFrom(SteerAckCodes).Draw(t, "code"), optString(t, "error")
	}
	return a
}

func genWorkspaceRead(t *rapid.T) Payload {
	r := WorkspaceRead{EnvironmentID: genID.Draw(t, "env"), Path: genWord.Draw(t, "path")}
	if rapid.Bool().Draw(t, "by_handle") {
		r.Handle = genID.Draw(t, "handle")
	} else {
		r.RunID = genID.Draw(t, "run")
	}
	if rapid.Bool().Draw(t, "directory") {
		r.Operation, r.MaxEntries = ReadOperationDirectory, rapid.IntRange(1, DirectoryEntriesMax).Draw(t, "entries")
	} else {
		r.MaxBytes = rapid.IntRange(1, ReadResultBytesMax).Draw(t, "bytes")
	}
	return r
}

func genReadResult(t *rapid.T) Payload {
	switch rapid.IntRange(0, 2).Draw(t, "variant") {
	case 0:
		return genDirectoryResult(t)
	case 1:
		return WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true,
			Data: rapid.SliceOfN(rapid.Byte(), 1, 64).Draw(t, "data"), Truncated: rapid.Bool().Draw(t, "truncated")}
	}
	return WorkspaceReadResult{Outcome: OutcomeRejected, ErrorCode: rapid.SampledFrom(ReadRejectedCodes).Draw(t, "code")}
}

func genDirectoryResult(t *rapid.T) Payload {
	entries := []DirectoryEntry{}
	for _, n := range distinctWords(t, "names", 0, 5) {
		e := DirectoryEntry{Name: n, Kind: rapid.SampledFrom([]string{EntryFile, EntryDirectory, EntrySymlink, EntryOther}).Draw(t, "kind")}
		if e.Kind == EntryFile {
			e.SizeBytes = ptr(rapid.Int64Min(0).Draw(t, "size"))
		}
		entries = append(entries, e)
	}
	return WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true,
		Directory: &WorkspaceDirectoryResult{Entries: entries, Truncated: rapid.Bool().Draw(t, "truncated")}}
}

func genWorkspaceWrite(t *rapid.T) Payload {
	switch rapid.IntRange(0, 2).Draw(t, "variant") {
	case 0:
		return WorkspaceWrite{Step: StepBegin, EnvironmentID: genUUID.Draw(t, "env"), SessionID: genUUID.Draw(t, "session"),
			Path: genWord.Draw(t, "dir") + "/" + genWord.Draw(t, "file"), SizeBytes: rapid.Int64Range(0, TransferBytesMax).Draw(t, "size"),
			SHA256: sampleDigest}
	case 1:
		return WorkspaceWrite{Step: StepChunk, Offset: rapid.Int64Range(0, TransferBytesMax-ChunkBytesMax).Draw(t, "offset"),
			Data: rapid.SliceOfN(rapid.Byte(), 1, 256).Draw(t, "data")}
	}
	return WorkspaceWrite{Step: StepCommit}
}

func genWriteResult(t *rapid.T) Payload {
	n := rapid.Int64Range(0, TransferBytesMax)
	switch rapid.IntRange(0, 4).Draw(t, "variant") {
	case 0:
		return WorkspaceWriteResult{Outcome: OutcomeReady}
	case 1:
		return WorkspaceWriteResult{Outcome: OutcomeReceived, Offset: n.Draw(t, "offset")}
	case 2:
		return WorkspaceWriteResult{Outcome: OutcomeCompleted, SizeBytes: n.Draw(t, "size")}
	case 3:
		r := WorkspaceWriteResult{Outcome: OutcomeRejected, ErrorCode: rapid.SampledFrom(WriteRejectedCodes).Draw(t, "code")}
		if r.ErrorCode == WriteRejected {
			r.Reason = optString(t, "reason")
		}
		return r
	}
	return WorkspaceWriteResult{Outcome: OutcomeUnknown, ErrorCode: WriteUnconfirmed}
}

func genExport(t *rapid.T) Payload {
	switch rapid.IntRange(0, 2).Draw(t, "variant") {
	case 0:
		return WorkspaceExport{Step: StepBegin, Handle: genID.Draw(t, "handle"), EnvironmentID: genID.Draw(t, "env")}
	case 1:
		return WorkspaceExport{Step: StepNext, Offset: rapid.Int64Range(0, ExportBytesMax).Draw(t, "offset")}
	}
	return WorkspaceExport{Step: StepCancel}
}

func genExportResult(t *rapid.T) Payload {
	off := rapid.Int64Range(0, ExportBytesMax-ChunkBytesMax).Draw(t, "offset")
	switch rapid.IntRange(0, 2).Draw(t, "variant") {
	case 0:
		return WorkspaceExportResult{Outcome: OutcomeCompleted, Offset: off}
	case 1:
		return WorkspaceExportResult{Outcome: OutcomeChunk, Offset: off, Data: rapid.SliceOfN(rapid.Byte(), 1, 128).Draw(t, "data")}
	}
	return WorkspaceExportResult{Outcome: genWord.Draw(t, "outcome"), ErrorCode: genWord.Draw(t, "code")}
}

func genSuspension(t *rapid.T) (string, string, bool, string) {
	accepted := rapid.Bool().Draw(t, "accepted")
	code := ""
	if !accepted {
		code = optString(t, "code")
	}
	return genID.Draw(t, "env"), genID.Draw(t, "suspend"), accepted, code
}

// payloadGens maps every registered type string to a valid payload generator.
var payloadGens = map[string]func(*rapid.T) Payload{
	TypeRuntimePrepare:       genRuntimePrepare,
	TypeRuntimePrepareResult: genPrepareResult,
	TypeExecutionPrepare:     genExecutionPrepare,
	TypeExecutionRelease:     func(t *rapid.T) Payload { return ExecutionRelease{Handle: genID.Draw(t, "handle")} },
	TypePromptCancel:         func(t *rapid.T) Payload { return PromptCancel{DeliveryID: optString(t, "delivery")} },
	TypeDeviceShutdown:       func(t *rapid.T) Payload { return DeviceShutdown{Reason: optString(t, "reason")} },
	TypePermissionCancel:     func(*rapid.T) Payload { return PermissionCancel{} },
	TypeOutputMessage: func(t *rapid.T) Payload {
		m := OutputMessage{ID: genID.Draw(t, "id"), Status: OutputStatusInProgress, Phase: optString(t, "phase")}
		if rapid.Bool().Draw(t, "completed") {
			m.Status, m.Text = OutputStatusCompleted, ptr(genText.Draw(t, "text"))
		}
		return m
	},
	TypeToolCall: genToolCall,
	TypeDone:     func(t *rapid.T) Payload { return genDone(t) },
	TypePermissionRequest: func(t *rapid.T) Payload {
		return PermissionRequest{RequestID: genID.Draw(t, "request"), Tool: genWord.Draw(t, "tool"), Title: genPlain.Draw(t, "title"),
			Detail: optString(t, "detail"), Payload: optRaw(t, "payload")}
	},
	TypePermissionDecision: func(t *rapid.T) Payload {
		return PermissionDecision{DeliveryID: genID.Draw(t, "delivery"), Approved: rapid.Bool().Draw(t, "approved"),
			Message: optString(t, "message"), UpdatedInput: optRaw(t, "updated")}
	},
	TypeUserChoicePrompt:       genUserChoicePrompt,
	TypeInteractionDecisionAck: genDecisionAck,
	TypePromptSteerAck:         genSteerAck,
	TypeFunctionCall: func(t *rapid.T) Payload {
		args, _ := json.Marshal(rapid.SliceOfN(genText, 0, 2).Draw(t, "args"))
		return FunctionCall{CallID: genID.Draw(t, "call"), Name: genWord.Draw(t, "name"), Arguments: args}
	},
	TypeWorkspaceRead:         genWorkspaceRead,
	TypeWorkspaceReadResult:   genReadResult,
	TypeWorkspaceWrite:        genWorkspaceWrite,
	TypeWorkspaceWriteResult:  genWriteResult,
	TypeWorkspaceExport:       genExport,
	TypeWorkspaceExportResult: genExportResult,
	TypeEnvironmentQuiesce: func(t *rapid.T) Payload {
		return EnvironmentQuiesce{EnvironmentID: genID.Draw(t, "env"), SuspendID: genID.Draw(t, "suspend"), Rollback: rapid.Bool().Draw(t, "rb")}
	},
	TypeEnvironmentResume: func(t *rapid.T) Payload {
		return EnvironmentResume{EnvironmentID: genID.Draw(t, "env"), SuspendID: genID.Draw(t, "suspend"), Rollback: rapid.Bool().Draw(t, "rb")}
	},
	TypeEnvironmentQuiesced: func(t *rapid.T) Payload {
		e, s, a, c := genSuspension(t)
		return EnvironmentQuiesced{EnvironmentID: e, SuspendID: s, Accepted: a, ErrorCode: c}
	},
	TypeEnvironmentResumed: func(t *rapid.T) Payload {
		e, s, a, c := genSuspension(t)
		return EnvironmentResumed{EnvironmentID: e, SuspendID: s, Accepted: a, ErrorCode: c}
	},
	TypePromptRequest: genPromptRequest,
	TypeSubagentIdentity: func(t *rapid.T) Payload {
		return SubagentIdentity{NativeID: genID.Draw(t, "native"), ParentNativeID: optString(t, "parent"),
			NativeCreatedAt: rapid.Int64Min(0).Draw(t, "created"), Name: optPtr(t, genText, "name"), Instructions: optPtr(t, genText, "instructions")}
	},
	TypeSubagentLifecycle: func(t *rapid.T) Payload {
		return SubagentLifecycle{NativeID: genID.Draw(t, "native"), EffectID: optString(t, "effect"), Status: genWord.Draw(t, "status"),
			OccurredAtMS: rapid.Int64Min(0).Draw(t, "at")}
	},
	TypeSubagentTurn: func(t *rapid.T) Payload {
		return SubagentTurn{NativeID: genID.Draw(t, "native"), TurnID: genID.Draw(t, "turn"), Status: genWord.Draw(t, "status"),
			StartedAtMS: optPtr(t, rapid.Int64Min(0), "started"), CompletedAtMS: optPtr(t, rapid.Int64Min(0), "done"), Usage: genUsage(t)}
	},
	TypeSubagentItem: func(t *rapid.T) Payload {
		return SubagentItem{NativeID: genID.Draw(t, "native"), TurnID: genID.Draw(t, "turn"), ItemID: genID.Draw(t, "item"),
			Position: rapid.Int32Min(0).Draw(t, "position"), Kind: genWord.Draw(t, "kind"), Payload: genRawObject(t, "payload")}
	},
	TypeAuthoringRequest: func(t *rapid.T) Payload {
		return AuthoringRequest{RequestID: optString(t, "request"), Operation: rapid.SampledFrom(AuthoringOperations).Draw(t, "op"),
			CapabilityID: optString(t, "capability"), Content: genText.Draw(t, "content")}
	},
	TypeAuthoringResponse: func(t *rapid.T) Payload {
		if rapid.Bool().Draw(t, "error") {
			return AuthoringResponse{RequestID: optString(t, "request"), Error: genPlain.Draw(t, "message")}
		}
		return AuthoringResponse{RequestID: optString(t, "request"), Data: genRawObject(t, "data")}
	},
}

// TestPayloadGensComplete: every registered type has a generator, so the
// round-trip property covers it.
func TestPayloadGensComplete(t *testing.T) {
	for _, typ := range Types() {
		if payloadGens[typ] == nil && genFrameLegacy[typ] == nil {
			t.Errorf("no generator for %s", typ)
		}
	}
}
