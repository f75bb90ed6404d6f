package codex

import "github.com/turnstile-sim/turnstile/adapters/agent"

// One assertion per contract interface. Every method is written out in this
// package; nothing is embedded.
var (
	_ agent.ExecutorFactory = (*Harness)(nil)
	_ agent.Factory         = (*Harness)(nil)

	_ agent.Executor                 = (*Executor)(nil)
	_ agent.Prepared                 = (*Executor)(nil)
	_ agent.PreparedCancellation     = (*Executor)(nil)
	_ agent.WorkspaceReader          = (*Executor)(nil)
	_ agent.WorkspaceDirectoryLister = (*Executor)(nil)
	_ agent.WorkspaceWriter          = (*Executor)(nil)

	_ agent.Turn                     = (*Turn)(nil)
	_ agent.Session                  = (*Turn)(nil)
	_ agent.DurableSteerer           = (*Turn)(nil)
	_ agent.Steerer                  = (*Turn)(nil)
	_ agent.FunctionResultSubmitter  = (*Turn)(nil)
	_ agent.PermissionResponder      = (*Turn)(nil)
	_ agent.UserChoiceResponder      = (*Turn)(nil)
	_ agent.WorkspaceReader          = (*Turn)(nil)
	_ agent.WorkspaceDirectoryLister = (*Turn)(nil)
	_ agent.WorkspaceWriter          = (*Turn)(nil)
	_ agent.AppliedReceipt           = (*receipt)(nil)

	_ agent.Session = (*Session)(nil)
)
