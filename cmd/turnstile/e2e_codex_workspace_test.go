package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/codex"
	"github.com/turnstile-sim/turnstile/adapters/codex/codextest"
	"github.com/turnstile-sim/turnstile/core/api"
)

// A Turn of a self_hosted Session end to end over processes: `turnstile
// core`, `turnstile daemon -kinds codex -workspaces DIR` running the
// pinned Codex binary against the fake model server. Core qualifies the
// placement (the Codex profile), the device declares local_environment,
// and the Runtime prepares the Executor in its binding of the Session's
// Environment (DIR/<environment_id>): the model's apply_patch creates a
// file there, the model request names that directory as the working
// directory, and the Environment's Files list shows the file through /v1.
func TestEndToEndCodexSelfHostedTurnRunsInTheBoundWorkspace(t *testing.T) {
	bin := codexBinary(t)
	m := codextest.NewModelServer(t)
	dir, tokenFile, token, cred := setup(t)
	credFile := filepath.Join(filepath.Dir(tokenFile), "device.cred")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	workspaces := t.TempDir()
	core := startCore(t, dir, tokenFile)
	d := startDaemonProc(t, "-core", core.base, "-device", "d1", "-credential-file", credFile,
		"-kinds", codex.Kind, "-codex-bin", bin, "-codex-home", codextest.Home(t, m), "-workspaces", workspaces)
	c := newAPIClient(t, core.base, dir, token)
	sid := c.createSession(`{"agent":{"model":"gpt-5.5","x_agents_core":{"harness":"codex"}},` +
		`"environment":{"type":"self_hosted","workspace_directory":"/workspace"}}`)
	var sess struct {
		Environment struct {
			ID string `json:"id"`
		} `json:"environment"`
	}
	if err := json.Unmarshal([]byte(c.must("GET", "/v1/agents/sessions/"+sid, "", 200)), &sess); err != nil {
		t.Fatal(err)
	}
	envID := sess.Environment.ID
	var env api.EnvironmentInfo
	if err := json.Unmarshal([]byte(c.must("GET", "/v1/agents/environments/"+envID, "", 200)), &env); err != nil ||
		env.XAgentsCore.EnvironmentID == "" {
		t.Fatalf("environment %s: %+v %v", envID, env, err)
	}
	root := filepath.Join(workspaces, env.XAgentsCore.EnvironmentID)

	m.Queue(codextest.Reply{Patch: "*** Begin Patch\n*** Add File: notes/bound.txt\n+written by the model\n*** End Patch\n"},
		codextest.Reply{Deltas: []string{"patched"}})
	tid := c.submit(sid, "write the notes")
	evs, err := c.events(tid, "")
	names, text := sseText(evs)
	if err != nil || text != "patched" || names[len(names)-1] != api.EvTurnCompleted {
		t.Fatalf("events %v text %q err %v\ndaemon:\n%s", names, text, err, d.stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(root, "notes", "bound.txt")); err != nil || string(b) != "written by the model\n" {
		t.Fatalf("the model's file in the bound workspace %s: %q, %v", root, b, err)
	}
	reqs := m.Requests()
	if len(reqs) != 2 || !strings.Contains(codextest.InputText(reqs[0]), root) {
		t.Fatalf("%d model requests; the first does not name the bound workspace %s as the working directory", len(reqs), root)
	}
	files := c.must("GET", "/v1/agents/environments/"+envID+"/files?path=/workspace/notes", "", 200)
	if !strings.Contains(files, `"/workspace/notes/bound.txt"`) {
		t.Fatalf("the Environment's files do not list the model's file: %s", files)
	}
	if code := d.terminate(t); code != 0 {
		t.Fatalf("daemon exit %d:\n%s", code, d.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(root, "notes", "bound.txt")); err != nil {
		t.Fatalf("the daemon's shutdown removed the Environment's workspace: %v", err)
	}
	_ = core.terminate()
}
