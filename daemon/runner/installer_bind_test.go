package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

const (
	envA = "6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
	envB = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
)

// TestInstallerBindsEachEnvironmentUnderRoot: with Root, a transfer
// installs into its own Environment's workspace (Root/<environment_id>),
// and a setup command runs there with that Environment's configuration.
func TestInstallerBindsEachEnvironmentUnderRoot(t *testing.T) {
	dir := t.TempDir()
	in := &Installer{Root: filepath.Join(dir, "workspaces"), State: filepath.Join(dir, "staging")}
	for _, env := range []string{envA, envB} {
		body := []byte("for " + env)
		h := fileHeader("/workspace/in.txt", body)
		h.EnvironmentID = env
		stageAll(t, in, "x-"+env, body, 4)
		if r := in.Install(context.Background(), daemon.InstallTransfer{Transfer: "x-" + env, Header: h}); r.Outcome != daemon.InstallCompleted {
			t.Fatalf("install %s: %+v", env, r)
		}
	}
	for _, env := range []string{envA, envB} {
		if b, err := os.ReadFile(filepath.Join(in.Root, env, "in.txt")); err != nil || string(b) != "for "+env {
			t.Fatalf("%s: %q %v", env, b, err)
		}
	}
	cfg := daemon.InstallTransfer{Header: wire.RuntimePrepare{Action: wire.PrepareActionInitialize, EnvironmentID: envA,
		Initialization: &wire.Initialization{Action: "configure", Env: map[string]string{"WHO": "a"}}}}
	if r := in.Install(context.Background(), cfg); r.Outcome != daemon.InstallCompleted {
		t.Fatalf("configure %+v", r)
	}
	for _, env := range []string{envA, envB} {
		s := setup(`echo "x$WHO" > who.txt`, "")
		s.Header.EnvironmentID = env
		if r := in.Install(context.Background(), s); r.Outcome != daemon.InstallCompleted {
			t.Fatalf("setup %s: %+v", env, r)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(in.Root, envA, "who.txt")); string(b) != "xa\n" {
		t.Fatalf("setup of A ran with %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(in.Root, envB, "who.txt")); string(b) != "x\n" {
		t.Fatalf("setup of B saw A's configuration: %q", b)
	}
}

func TestInstallerRefusesAnEnvironmentThatLeavesRoot(t *testing.T) {
	dir := t.TempDir()
	in := &Installer{Root: filepath.Join(dir, "workspaces"), State: filepath.Join(dir, "staging")}
	for _, env := range []string{"", "..", "a/b"} {
		h := fileHeader("/workspace/in.txt", nil)
		h.EnvironmentID = env
		if r := in.Install(context.Background(), daemon.InstallTransfer{Transfer: "t", Header: h}); r.Outcome != daemon.InstallFailed || r.Err != reasonBadTarget {
			t.Fatalf("environment %q: %+v", env, r)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "in.txt")); !os.IsNotExist(err) {
		t.Fatal("installed outside the root")
	}
}
