package contracttest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// canary is submitted content that must never appear in a refusal reason.
const canary = "contract-canary-5e1d"

// extension is one extension operation with the capability that declares
// it (unspecified when the owner, not a capability, decides).
type extension struct {
	name     string
	declared wire.CapabilitySupport
	call     func(ctx context.Context) error
}

// TestUnsupported checks every extension interface on the Executor and on a
// Turn: each must be implemented explicitly; a declared operation must not
// answer ErrUnsupportedOperation; a refusal's reason must not echo the
// submitted content and the refusal must have no native effect (checked
// with Fixture.Effects); refusals leave the Turn healthy. The required
// DurableSteerer must never answer ErrUnsupportedOperation.
func TestUnsupported(f agent.ExecutorFactory, fx Fixture) error {
	fx = fx.withDefaults()
	rep := &report{name: "TestUnsupported"}
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return rep.err()
	}
	checkExtensions(rep, fx, "Executor", workspaceExtensions(rep, "Executor", ex, ""))
	if fx.Hold != nil {
		fx.Hold()
	}
	r := start(rep, fx, ex, "unsupported-1", fx.Input)
	if r.turn == nil || r.startErr != nil {
		rep.errorf("Turn did not start: %v", r.startErr)
		closeExecutor(rep, fx, ex)
		return rep.err()
	}
	exts := append(turnExtensions(rep, fx, r.turn), workspaceExtensions(rep, "Turn", r.turn, r.runID)...)
	checkExtensions(rep, fx, "Turn", exts)
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	_, err := r.turn.SteerDurable(ctx, agent.SteerInput{InputID: "durable-1", Input: wire.TextInput("steer")})
	cancel()
	switch {
	case errors.Is(err, agent.ErrUnsupportedOperation):
		rep.errorf("required DurableSteerer answered Unsupported")
	case err != nil && fx.Hold != nil:
		rep.errorf("held Turn refused a durable input after the refusals: %v", err)
	}
	if fx.Hold != nil {
		cancelTurn(rep, fx, r)
	}
	settle(rep, fx, r)
	checkStream(rep, r, false)
	closeExecutor(rep, fx, ex)
	return rep.err()
}

func checkExtensions(rep *report, fx Fixture, owner string, exts []extension) {
	for _, x := range exts {
		before := effects(fx)
		ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
		err := x.call(ctx)
		cancel()
		// Let any effect of this call land before the next fingerprint.
		timer := time.NewTimer(fx.Window)
		<-timer.C
		if !errors.Is(err, agent.ErrUnsupportedOperation) {
			continue
		}
		if x.declared.IsSupported() {
			rep.errorf("%s.%s is declared but answered Unsupported", owner, x.name)
		}
		if strings.Contains(err.Error(), canary) {
			rep.errorf("%s.%s refusal reason echoes submitted content", owner, x.name)
		}
		if effects(fx) != before {
			rep.errorf("%s.%s answered Unsupported but had a native effect", owner, x.name)
		}
	}
}

func turnExtensions(rep *report, fx Fixture, t agent.Turn) []extension {
	var exts []extension
	caps := fx.Capabilities
	if s, ok := t.(agent.Steerer); ok {
		exts = append(exts, extension{"Steer", caps.Steering, func(ctx context.Context) error {
			return s.Steer(ctx, agent.SteerInput{InputID: "plain-1", Input: wire.TextInput(canary)})
		}})
	} else {
		rep.errorf("Turn does not implement agent.Steerer")
	}
	if s, ok := t.(agent.FunctionResultSubmitter); ok {
		exts = append(exts, extension{"SubmitFunctionResult", caps.FunctionTools, func(ctx context.Context) error {
			return s.SubmitFunctionResult(ctx, wire.FunctionResult{DeliveryID: "delivery-1", CallID: "call-1",
				Success: true, Content: []wire.InputContent{wire.TextPart(canary)}})
		}})
	} else {
		rep.errorf("Turn does not implement agent.FunctionResultSubmitter")
	}
	if s, ok := t.(agent.PermissionResponder); ok {
		exts = append(exts, extension{"RespondPermission", caps.Permissions, func(ctx context.Context) error {
			return s.RespondPermission(ctx, "permission-1", wire.PermissionDecision{DeliveryID: "delivery-2", Approved: true, Message: canary})
		}})
	} else {
		rep.errorf("Turn does not implement agent.PermissionResponder")
	}
	if s, ok := t.(agent.UserChoiceResponder); ok {
		exts = append(exts, extension{"RespondUserChoice", caps.Permissions, func(ctx context.Context) error {
			return s.RespondUserChoice(ctx, "ask-1", wire.UserChoiceDecision{DeliveryID: "delivery-3",
				QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q1", Answers: []string{canary}}}})
		}})
	} else {
		rep.errorf("Turn does not implement agent.UserChoiceResponder")
	}
	return exts
}

func workspaceExtensions(rep *report, owner string, v any, runID string) []extension {
	var exts []extension
	read := wire.WorkspaceRead{RunID: runID, EnvironmentID: "environment-1", Path: canary + ".txt", MaxBytes: 64}
	if runID == "" {
		read.Handle = "handle-1"
	}
	if s, ok := v.(agent.WorkspaceReader); ok {
		exts = append(exts, extension{"ReadWorkspaceFile", wire.CapabilityUnspecified, func(ctx context.Context) error {
			_, err := s.ReadWorkspaceFile(ctx, read)
			return err
		}})
	} else {
		rep.errorf("%s does not implement agent.WorkspaceReader", owner)
	}
	if s, ok := v.(agent.WorkspaceDirectoryLister); ok {
		list := read
		list.MaxBytes, list.Operation, list.MaxEntries, list.Path = 0, "directory", 16, canary
		exts = append(exts, extension{"ListWorkspaceDirectory", wire.CapabilityUnspecified, func(ctx context.Context) error {
			_, err := s.ListWorkspaceDirectory(ctx, list)
			return err
		}})
	} else {
		rep.errorf("%s does not implement agent.WorkspaceDirectoryLister", owner)
	}
	if s, ok := v.(agent.WorkspaceWriter); ok {
		sum := sha256.Sum256([]byte(canary))
		exts = append(exts, extension{"WriteWorkspaceFile", wire.CapabilityUnspecified, func(ctx context.Context) error {
			return s.WriteWorkspaceFile(ctx, agent.WorkspaceFile{Path: canary + ".txt", SizeBytes: int64(len(canary)),
				SHA256: hex.EncodeToString(sum[:]), Data: strings.NewReader(canary)})
		}})
	} else {
		rep.errorf("%s does not implement agent.WorkspaceWriter", owner)
	}
	return exts
}
