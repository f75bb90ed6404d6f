package runner_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/wire"
)

// workspaceRegistry installs the local owner as the read-only profile of
// every kind and no Executor factory.
type workspaceRegistry struct{}

func (workspaceRegistry) Executors(string) (agent.ExecutorFactory, bool) { return nil, false }
func (workspaceRegistry) Preparations(string) (agent.PreparationFactory, bool, bool) {
	return localworkspace.Preparations{}, true, true
}

// nativeRig runs native calls one at a time and returns their results.
type nativeRig struct {
	t   *testing.T
	n   *runner.Native
	out chan daemon.Event
	seq int
}

func newNativeRig(t *testing.T, base string) *nativeRig {
	r := &nativeRig{t: t, out: make(chan daemon.Event, 4)}
	r.n = runner.NewNative(context.Background(), workspaceRegistry{}, slog.New(slog.DiscardHandler),
		func(ev daemon.Event) { r.out <- ev })
	r.n.SetWorkspaces(localworkspace.Binding{Base: base})
	t.Cleanup(r.n.Wait)
	return r
}

func (r *nativeRig) call(op daemon.Op) daemon.Result {
	r.t.Helper()
	r.seq++
	id := daemon.CallID("c-" + string(rune('0'+r.seq)))
	r.n.Run(daemon.NativeCall{Call: id, Op: op})
	var ev daemon.NativeResult
	for e := range r.out { // a started Turn's events may come first
		if res, ok := e.(daemon.NativeResult); ok {
			ev = res
			break
		}
	}
	if ev.Call != id {
		r.t.Fatalf("result for %s, want %s", ev.Call, id)
	}
	return ev.Result
}

// TestNativeWorkspaceCallsServeTheBoundDirectory: a read-only profile
// opens the Environment's bound directory, reads and lists it; a write is
// installed there; the export is a tar of it; the close is confirmed.
func TestNativeWorkspaceCallsServeTheBoundDirectory(t *testing.T) {
	base := t.TempDir()
	const env = "env-1"
	if err := os.MkdirAll(filepath.Join(base, env), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, env, "a.txt"), []byte("alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newNativeRig(t, base)
	if res := r.call(daemon.OpenWorkspace{Reader: "rd-1", Kind: "k", Session: "s", Environment: env}); res != (daemon.OpenWorkspaceResult{}) {
		t.Fatalf("open: %+v", res)
	}
	target := daemon.ReadTarget{Reader: "rd-1"}
	got := r.call(daemon.ReadWorkspace{Target: target, Environment: env,
		Request: wire.WorkspaceRead{Handle: "h", EnvironmentID: env, Path: "a.txt", MaxBytes: 3}}).(daemon.ReadWorkspaceResult)
	if string(got.Result.Data) != "alp" || !got.Result.Truncated || !got.Result.CloseAcknowledged {
		t.Fatalf("read: %+v", got.Result)
	}
	body := []byte("written")
	sum := sha256.Sum256(body)
	w := r.call(daemon.WriteWorkspace{Mutation: "m", Session: "s", Environment: env, Path: "d/b.txt",
		SizeBytes: int64(len(body)), SHA256: hex.EncodeToString(sum[:]), Data: body}).(daemon.WriteWorkspaceResult)
	if w.Outcome != wire.OutcomeCompleted {
		t.Fatalf("write: %+v", w)
	}
	for _, reserved := range []string{".turnstile/capabilities/x", ".TURNSTILE/x", ".turnstile"} {
		w = r.call(daemon.WriteWorkspace{Mutation: "m-r", Session: "s", Environment: env, Path: reserved,
			SizeBytes: int64(len(body)), SHA256: hex.EncodeToString(sum[:]), Data: body}).(daemon.WriteWorkspaceResult)
		if w.Outcome != wire.OutcomeRejected || w.Reason != agent.WriteReasonUnsafeDestination {
			t.Fatalf("write into %s: %+v", reserved, w)
		}
		if _, err := os.Stat(filepath.Join(base, env, ".turnstile")); !os.IsNotExist(err) {
			t.Fatalf("the reserved directory was created: %v", err)
		}
	}
	w = r.call(daemon.WriteWorkspace{Mutation: "m2", Session: "s", Environment: env, Path: "d",
		SizeBytes: 1, SHA256: hex.EncodeToString(sum[:]), Data: []byte("x")}).(daemon.WriteWorkspaceResult)
	if w.Outcome != wire.OutcomeRejected || w.Reason != agent.WriteReasonDestinationDirectory {
		t.Fatalf("write over a directory: %+v", w)
	}
	ls := r.call(daemon.ReadWorkspace{Target: target, Environment: env, Request: wire.WorkspaceRead{Handle: "h",
		EnvironmentID: env, Operation: wire.ReadOperationDirectory, MaxEntries: 8}}).(daemon.ReadWorkspaceResult)
	if ls.Result.Directory == nil || len(ls.Result.Directory.Entries) != 2 {
		t.Fatalf("listing: %+v", ls.Result)
	}
	x := r.call(daemon.ExportWorkspace{Reader: "rd-1", Environment: env}).(daemon.ExportWorkspaceResult)
	names := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(x.Archive))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("archive: %v", err)
		}
		b, _ := io.ReadAll(tr)
		names[h.Name] = string(b)
	}
	if names["a.txt"] != "alpha" || names["d/b.txt"] != "written" {
		t.Fatalf("archive entries %v", names)
	}
	if res := r.call(daemon.CloseWorkspace{Reader: "rd-1"}); res != (daemon.CloseResult{}) {
		t.Fatalf("close: %+v", res)
	}
}

// TestNativeWorkspaceRefusesUnboundEnvironments: an Environment without a
// binding, or a workspace_directory that is not the binding, never opens.
func TestNativeWorkspaceRefusesUnboundEnvironments(t *testing.T) {
	base := t.TempDir()
	r := newNativeRig(t, base)
	for _, op := range []daemon.OpenWorkspace{
		{Reader: "rd-1", Kind: "k", Session: "s", Environment: "../etc"},
		{Reader: "rd-2", Kind: "k", Session: "s", Environment: "missing"},
		{Reader: "rd-3", Kind: "k", Session: "s", Environment: "e", Directory: "/tmp/elsewhere"},
	} {
		res := r.call(op).(daemon.OpenWorkspaceResult)
		if res.Err == "" || res.Retained {
			t.Errorf("open %+v: %+v", op, res)
		}
	}
	w := r.call(daemon.WriteWorkspace{Mutation: "m", Environment: "../x", Path: "f", Data: []byte{}}).(daemon.WriteWorkspaceResult)
	if w.Outcome != wire.OutcomeRejected {
		t.Fatalf("write to an unbound environment: %+v", w)
	}
}
