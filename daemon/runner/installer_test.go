//go:build unix

package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

func newInstaller(t *testing.T) *Installer {
	dir := t.TempDir()
	in := &Installer{Workspace: filepath.Join(dir, "ws"), State: filepath.Join(dir, "state"), Grace: 200 * time.Millisecond}
	if err := os.MkdirAll(in.Workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	return in
}

func digest(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func fileHeader(p string, body []byte) wire.RuntimePrepare {
	return wire.RuntimePrepare{Step: wire.StepBegin, Action: wire.PrepareActionFile, File: &wire.PrepareFile{Path: p},
		SizeBytes: int64(len(body)), SHA256: digest(body)}
}

func stageAll(t *testing.T, in *Installer, id string, body []byte, chunk int) {
	t.Helper()
	for off := 0; off < len(body); off += chunk {
		end := min(off+chunk, len(body))
		if r := in.Stage(daemon.StageChunk{Transfer: id, Offset: int64(off), Data: body[off:end]}); r.Err != "" {
			t.Fatalf("stage at %d: %s", off, r.Err)
		}
	}
}

func TestInstallerVerifiesAndInstallsAFile(t *testing.T) {
	in := newInstaller(t)
	body := []byte("hello, workspace")
	stageAll(t, in, "g1/x", body, 5)
	r := in.Install(context.Background(), daemon.InstallTransfer{Transfer: "g1/x", Header: fileHeader("/workspace/dir/a.txt", body)})
	if r.Outcome != daemon.InstallCompleted {
		t.Fatalf("install %+v", r)
	}
	got, err := os.ReadFile(filepath.Join(in.Workspace, "dir", "a.txt"))
	if err != nil || string(got) != string(body) {
		t.Fatalf("installed %q %v", got, err)
	}
	if _, err := os.Stat(in.staging("g1/x")); !os.IsNotExist(err) {
		t.Fatal("staging left behind")
	}
}

func TestInstallerEmptyFile(t *testing.T) {
	in := newInstaller(t)
	r := in.Install(context.Background(), daemon.InstallTransfer{Transfer: "g1/e", Header: fileHeader("/workspace/empty", nil)})
	if r.Outcome != daemon.InstallCompleted {
		t.Fatalf("install %+v", r)
	}
	if st, err := os.Stat(filepath.Join(in.Workspace, "empty")); err != nil || st.Size() != 0 {
		t.Fatalf("empty file: %v", err)
	}
}

// TestInstallerRefusesADigestOrSizeMismatch: nothing is installed
// without a matching digest.
func TestInstallerRefusesADigestOrSizeMismatch(t *testing.T) {
	for name, edit := range map[string]func(*wire.RuntimePrepare){
		"digest": func(h *wire.RuntimePrepare) { h.SHA256 = digest([]byte("other")) },
		"size":   func(h *wire.RuntimePrepare) { h.SizeBytes++ },
	} {
		t.Run(name, func(t *testing.T) {
			in := newInstaller(t)
			body := []byte("payload")
			stageAll(t, in, "g1/x", body, 64)
			h := fileHeader("/workspace/a.txt", body)
			edit(&h)
			r := in.Install(context.Background(), daemon.InstallTransfer{Transfer: "g1/x", Header: h})
			if r.Outcome != daemon.InstallMismatch {
				t.Fatalf("install %+v, want mismatch", r)
			}
			if _, err := os.Stat(filepath.Join(in.Workspace, "a.txt")); !os.IsNotExist(err) {
				t.Fatal("installed despite the mismatch")
			}
		})
	}
}

func TestInstallerStageRejectsAGap(t *testing.T) {
	in := newInstaller(t)
	if r := in.Stage(daemon.StageChunk{Transfer: "g1/x", Offset: 3, Data: []byte("a")}); r.Err != reasonStageOffset {
		t.Fatalf("stage %+v", r)
	}
	stageAll(t, in, "g1/x", []byte("abc"), 3)
	if r := in.Discard(daemon.DiscardTransfer{Transfer: "g1/x"}); r.Err != "" {
		t.Fatal(r.Err)
	}
	if _, err := os.Stat(in.staging("g1/x")); !os.IsNotExist(err) {
		t.Fatal("discard left staging")
	}
}

func TestInstallerSkillAndPluginNamesStayInTheirRoot(t *testing.T) {
	in := newInstaller(t)
	body := []byte("archive")
	stageAll(t, in, "g1/s", body, 64)
	h := wire.RuntimePrepare{Action: wire.PrepareActionSkill, Skill: &wire.PackageMeta{Type: "inline", Name: "../evil", Description: "d"},
		SizeBytes: int64(len(body)), SHA256: digest(body)}
	if r := in.Install(context.Background(), daemon.InstallTransfer{Transfer: "g1/s", Header: h}); r.Outcome != daemon.InstallFailed || r.Err != reasonBadTarget {
		t.Fatalf("install %+v", r)
	}
	stageAll(t, in, "g1/p", body, 64)
	h = wire.RuntimePrepare{Action: wire.PrepareActionPlugin, Slot: 2, Plugin: &wire.PackageMeta{Type: "inline", Name: "tools", Description: "d"},
		SizeBytes: int64(len(body)), SHA256: digest(body)}
	if r := in.Install(context.Background(), daemon.InstallTransfer{Transfer: "g1/p", Header: h}); r.Outcome != daemon.InstallCompleted {
		t.Fatalf("install %+v", r)
	}
	if _, err := os.Stat(filepath.Join(in.State, "plugins", "2-tools.archive")); err != nil {
		t.Fatal(err)
	}
}

func setup(cmd, cwd string) daemon.InstallTransfer {
	return daemon.InstallTransfer{Transfer: "g1/i", Header: wire.RuntimePrepare{Action: wire.PrepareActionInitialize,
		Initialization: &wire.Initialization{Action: "setup", Command: cmd, Cwd: cwd, Network: "disabled"}}}
}

func TestInstallerSetupUsesConfiguredEnvAndReportsExitCodes(t *testing.T) {
	in := newInstaller(t)
	cfg := daemon.InstallTransfer{Header: wire.RuntimePrepare{Action: wire.PrepareActionInitialize,
		Initialization: &wire.Initialization{Action: "configure", Env: map[string]string{"GREETING": "hi"}}}}
	if r := in.Install(context.Background(), cfg); r.Outcome != daemon.InstallCompleted {
		t.Fatalf("configure %+v", r)
	}
	if err := os.MkdirAll(filepath.Join(in.Workspace, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := in.Install(context.Background(), setup(`echo "$GREETING" > out.txt`, "/workspace/sub")); r.Outcome != daemon.InstallCompleted {
		t.Fatalf("setup %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(in.Workspace, "sub", "out.txt")); string(b) != "hi\n" {
		t.Fatalf("setup output %q", b)
	}
	r := in.Install(context.Background(), setup("exit 3", ""))
	if r.Outcome != daemon.InstallFailed || r.ExitCode != 3 {
		t.Fatalf("failing setup %+v", r)
	}
}

// TestInstallerHangingSetupIsStopped: a setup command that ignores TERM
// and never ends is killed after its timeout and grace and reported
// failed with the KILL status.
func TestInstallerHangingSetupIsStopped(t *testing.T) {
	in := newInstaller(t)
	in.SetupTimeout = 200 * time.Millisecond
	r := in.Install(context.Background(), setup(`trap '' TERM; sleep 600 & while :; do sleep 1; done`, ""))
	if r.Outcome != daemon.InstallFailed || r.ExitCode != 137 {
		t.Fatalf("hanging setup %+v", r)
	}
}
