package contracttest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Owner is a contract object an interface is implemented on.
type Owner string

// The owners of contract interfaces.
const (
	OwnerExecutorFactory    Owner = "ExecutorFactory"
	OwnerFactory            Owner = "Factory"
	OwnerPreparationFactory Owner = "PreparationFactory"
	OwnerExecutor           Owner = "Executor"
	OwnerTurn               Owner = "Turn"
	OwnerPrepared           Owner = "Prepared"
	OwnerReceipt            Owner = "AppliedReceipt"
)

// Contract classifies one interface of package agent: the owners that
// implement it, whether it is a required obligation (never answered with
// ErrUnsupportedOperation) or an extension, and for an extension the
// capability that declares it and a call with submitted content. Every
// exported interface of package agent must be classified here (the
// package's tests enforce it), so that a new contract interface is judged
// by every kit as soon as it exists.
type Contract struct {
	Interface string
	Owners    []Owner
	Required  bool
	// Capability returns the declaration member that states support; nil
	// when the resource owner, not a capability, decides.
	Capability func(wire.AgentKindCapabilities) wire.CapabilitySupport
	// Implemented reports whether v implements the interface.
	Implemented func(v any) bool
	// Call invokes the extension's operation on v with content as the
	// submitted data (extensions only).
	Call func(ctx context.Context, v any, runID, content string) error
	// Identity: Call names a call or interaction the Turn never emitted,
	// which a declared implementation answers with ErrNotPending.
	Identity bool
}

// Contracts returns the classification of every contract interface.
func Contracts() []Contract {
	req := func(name string, impl func(any) bool, owners ...Owner) Contract {
		return Contract{Interface: name, Owners: owners, Required: true, Implemented: impl}
	}
	c := []Contract{
		req("ExecutorFactory", is[agent.ExecutorFactory], OwnerExecutorFactory),
		req("Factory", is[agent.Factory], OwnerFactory),
		req("PreparationFactory", is[agent.PreparationFactory], OwnerPreparationFactory),
		req("Executor", is[agent.Executor], OwnerExecutor),
		req("Session", is[agent.Session], OwnerTurn),
		req("Turn", is[agent.Turn], OwnerTurn),
		req("DurableSteerer", is[agent.DurableSteerer], OwnerTurn),
		req("AppliedReceipt", is[agent.AppliedReceipt], OwnerReceipt),
		req("Prepared", is[agent.Prepared], OwnerPrepared),
		req("PreparedCancellation", is[agent.PreparedCancellation], OwnerPrepared),
	}
	return append(c, extensionContracts()...)
}

func is[T any](v any) bool {
	_, ok := v.(T)
	return ok
}

func extensionContracts() []Contract {
	steering := func(c wire.AgentKindCapabilities) wire.CapabilitySupport { return c.Steering }
	functions := func(c wire.AgentKindCapabilities) wire.CapabilitySupport { return c.FunctionTools }
	permissions := func(c wire.AgentKindCapabilities) wire.CapabilitySupport { return c.Permissions }
	workspace := []Owner{OwnerTurn, OwnerExecutor, OwnerPrepared}
	return []Contract{
		{Interface: "Steerer", Owners: []Owner{OwnerTurn}, Capability: steering, Implemented: is[agent.Steerer],
			Call: func(ctx context.Context, v any, _, content string) error {
				return v.(agent.Steerer).Steer(ctx, agent.SteerInput{InputID: "plain-1", Input: wire.TextInput(content)})
			}},
		{Interface: "FunctionResultSubmitter", Owners: []Owner{OwnerTurn}, Identity: true, Capability: functions,
			Implemented: is[agent.FunctionResultSubmitter],
			Call: func(ctx context.Context, v any, _, content string) error {
				return v.(agent.FunctionResultSubmitter).SubmitFunctionResult(ctx, wire.FunctionResult{
					DeliveryID: "delivery-1", CallID: "call-1", Success: true,
					Content: []wire.InputContent{wire.TextPart(content)}})
			}},
		{Interface: "PermissionResponder", Owners: []Owner{OwnerTurn}, Identity: true, Capability: permissions,
			Implemented: is[agent.PermissionResponder],
			Call: func(ctx context.Context, v any, _, content string) error {
				return v.(agent.PermissionResponder).RespondPermission(ctx, "permission-1",
					wire.PermissionDecision{DeliveryID: "delivery-2", Approved: true, Message: content})
			}},
		{Interface: "UserChoiceResponder", Owners: []Owner{OwnerTurn}, Identity: true, Capability: permissions,
			Implemented: is[agent.UserChoiceResponder],
			Call: func(ctx context.Context, v any, _, content string) error {
				return v.(agent.UserChoiceResponder).RespondUserChoice(ctx, "ask-1", wire.UserChoiceDecision{
					DeliveryID: "delivery-3", QuestionAnswers: []wire.QuestionAnswer{{QuestionID: "q1", Answers: []string{content}}}})
			}},
		{Interface: "WorkspaceReader", Owners: workspace, Implemented: is[agent.WorkspaceReader],
			Call: func(ctx context.Context, v any, runID, content string) error {
				_, err := v.(agent.WorkspaceReader).ReadWorkspaceFile(ctx, workspaceRead(runID, content))
				return err
			}},
		{Interface: "WorkspaceDirectoryLister", Owners: workspace, Implemented: is[agent.WorkspaceDirectoryLister],
			Call: func(ctx context.Context, v any, runID, content string) error {
				list := workspaceRead(runID, content)
				list.MaxBytes, list.Operation, list.MaxEntries, list.Path = 0, "directory", 16, content
				_, err := v.(agent.WorkspaceDirectoryLister).ListWorkspaceDirectory(ctx, list)
				return err
			}},
		// Exports are served by a read-only preparation profile (the
		// daemon falls back to its local owner), never by a running Turn.
		{Interface: "WorkspaceExporter", Owners: []Owner{OwnerPrepared}, Implemented: is[agent.WorkspaceExporter],
			Call: func(ctx context.Context, v any, _, _ string) error {
				_, err := v.(agent.WorkspaceExporter).ExportWorkspace(ctx, io.Discard)
				return err
			}},
		// The Runtime's own workspace service: implemented by the daemon's
		// local owner (adapters/localworkspace), never by an adapter's
		// contract objects, so no owner carries them.
		{Interface: "WorkspaceOwner", Implemented: is[agent.WorkspaceOwner]},
		{Interface: "WorkspaceBinding", Implemented: is[agent.WorkspaceBinding]},
		{Interface: "WorkspaceWriter", Owners: workspace, Implemented: is[agent.WorkspaceWriter],
			Call: func(ctx context.Context, v any, _, content string) error {
				sum := sha256.Sum256([]byte(content))
				return v.(agent.WorkspaceWriter).WriteWorkspaceFile(ctx, agent.WorkspaceFile{Path: content + ".txt",
					SizeBytes: int64(len(content)), SHA256: hex.EncodeToString(sum[:]), Data: strings.NewReader(content)})
			}},
	}
}

func workspaceRead(runID, content string) wire.WorkspaceRead {
	read := wire.WorkspaceRead{RunID: runID, EnvironmentID: "environment-1", Path: content + ".txt", MaxBytes: 64}
	if runID == "" {
		read.Handle = "handle-1"
	}
	return read
}

// ownedBy returns the contracts an owner must implement.
func ownedBy(o Owner, extensionsOnly bool) []Contract {
	var out []Contract
	for _, c := range Contracts() {
		if extensionsOnly && c.Required {
			continue
		}
		for _, owner := range c.Owners {
			if owner == o {
				out = append(out, c)
			}
		}
	}
	return out
}
