package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// Installer stages and installs runtime_prepare transfers into the bound
// workspace. Staging lives under State, one file per transfer; an
// installation verifies the staged size and SHA-256 before anything is
// installed: files move into Workspace (the directory /workspace maps to),
// skills and plugins into State/skills and State/plugins, a configure
// initialization is written to State/env, and npm, python and setup run
// under the daemon's process ownership (Owned) with SetupTimeout. Errors
// are fixed reasons: never a path, command, output or credential.
//
// With Root, installations bind per Environment instead: the workspace of
// a transfer is Root/<environment_id> (the layout of the daemon's
// workspace owner, one directory per Environment ID) and its installed
// state that workspace's .turnstile directory; staging stays under State.
type Installer struct {
	Workspace    string
	Root         string
	State        string
	Clock        clock.Clock   // nil: the real clock
	Grace        time.Duration // zero: ProcessGrace
	SetupTimeout time.Duration // zero: DefaultSetupTimeout
}

// DefaultSetupTimeout bounds an initialization command; it stays inside
// Core's 195 s exchange timeout.
const DefaultSetupTimeout = 180 * time.Second

// Installer failure reasons.
const (
	reasonStageOffset  = "staged bytes do not end at the chunk offset"
	reasonStageIO      = "staging write failed"
	reasonInstallIO    = "installation write failed"
	reasonBadTarget    = "installation target outside its root"
	reasonSetupStart   = "initialization command could not start"
	reasonNoInstaller  = "no installer configured"
	reasonUnknownInit  = "unknown initialization action"
	reasonInstallPanic = "installer panicked"
)

func (in *Installer) staging(transfer string) string {
	return filepath.Join(in.State, "staging", strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(transfer)+".part")
}

// Stage appends op.Data at op.Offset; the staged file must end exactly at
// the offset (the machine confirms chunks in order, one at a time).
func (in *Installer) Stage(op daemon.StageChunk) daemon.StageResult {
	p := in.staging(op.Transfer)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return daemon.StageResult{Err: reasonStageIO}
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return daemon.StageResult{Err: reasonStageIO}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return daemon.StageResult{Err: reasonStageIO}
	}
	if st.Size() != op.Offset {
		return daemon.StageResult{Err: reasonStageOffset}
	}
	if _, err := f.WriteAt(op.Data, op.Offset); err != nil {
		return daemon.StageResult{Err: reasonStageIO}
	}
	if err := f.Sync(); err != nil {
		return daemon.StageResult{Err: reasonStageIO}
	}
	return daemon.StageResult{}
}

// Discard removes a transfer's staging.
func (in *Installer) Discard(op daemon.DiscardTransfer) daemon.DiscardResult {
	if err := os.Remove(in.staging(op.Transfer)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return daemon.DiscardResult{Err: reasonStageIO}
	}
	return daemon.DiscardResult{}
}

// Install verifies and installs a committed transfer.
func (in *Installer) Install(ctx context.Context, op daemon.InstallTransfer) daemon.InstallResult {
	h := op.Header
	staged := in.staging(op.Transfer)
	in, ok := in.bind(h.EnvironmentID)
	if !ok {
		os.Remove(staged)
		return daemon.InstallResult{Outcome: daemon.InstallFailed, Err: reasonBadTarget}
	}
	switch h.Action {
	case wire.PrepareActionInitialize:
		return in.initialize(ctx, h.Initialization)
	case wire.PrepareActionFinalize:
		return in.writeState("sources.json", h.Sources)
	}
	defer os.Remove(staged)
	if ok, err := verify(staged, h.SizeBytes, h.SHA256); err != nil {
		return daemon.InstallResult{Outcome: daemon.InstallFailed, Err: reasonInstallIO}
	} else if !ok {
		return daemon.InstallResult{Outcome: daemon.InstallMismatch}
	}
	dest, ok := in.target(h)
	if !ok {
		return daemon.InstallResult{Outcome: daemon.InstallFailed, Err: reasonBadTarget}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return daemon.InstallResult{Outcome: daemon.InstallFailed, Err: reasonInstallIO}
	}
	if err := moveStaged(staged, dest); err != nil {
		return daemon.InstallResult{Outcome: daemon.InstallUnknown, Err: reasonInstallIO}
	}
	return daemon.InstallResult{Outcome: daemon.InstallCompleted}
}

// bind is the installer of one Environment (itself without Root),
// creating its workspace directory.
func (in *Installer) bind(env string) (*Installer, bool) {
	if in.Root == "" {
		return in, true
	}
	if env == "" || env == "." || env == ".." || filepath.Base(env) != env || strings.ContainsAny(env, `/\`) {
		return nil, false
	}
	b := *in
	b.Workspace = filepath.Join(in.Root, env)
	b.State = filepath.Join(b.Workspace, stateDirName)
	return &b, os.MkdirAll(b.Workspace, 0o755) == nil
}

// verify checks the staged file (absent means empty) against size and digest.
func verify(p string, size int64, digest string) (bool, error) {
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		sum := sha256.Sum256(nil)
		return size == 0 && hex.EncodeToString(sum[:]) == digest, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return false, err
	}
	return n == size && hex.EncodeToString(h.Sum(nil)) == digest, nil
}

func moveStaged(staged, dest string) error {
	if _, err := os.Stat(staged); errors.Is(err, os.ErrNotExist) {
		return os.WriteFile(dest, nil, 0o644)
	}
	return os.Rename(staged, dest)
}

// target maps a header to its installation path, refusing any name that
// would leave its root.
func (in *Installer) target(h wire.RuntimePrepare) (string, bool) {
	name := func(n string) (string, bool) {
		ok := n != "" && n != "." && n != ".." && !strings.ContainsAny(n, "/\\\x00")
		return n, ok
	}
	switch h.Action {
	case wire.PrepareActionFile:
		rel := strings.TrimPrefix(h.File.Path, "/workspace/")
		if rel == h.File.Path || path.Clean(rel) != rel || strings.HasPrefix(rel, "../") {
			return "", false
		}
		return filepath.Join(in.Workspace, filepath.FromSlash(rel)), true
	case wire.PrepareActionSkill:
		n, ok := name(h.Skill.Name)
		return filepath.Join(in.State, "skills", n+".archive"), ok
	case wire.PrepareActionPlugin:
		n, ok := name(h.Plugin.Name)
		return filepath.Join(in.State, "plugins", strconv.Itoa(h.Slot)+"-"+n+".archive"), ok
	}
	return "", false
}

func (in *Installer) writeState(name string, data []byte) daemon.InstallResult {
	if err := os.MkdirAll(in.State, 0o700); err != nil {
		return daemon.InstallResult{Outcome: daemon.InstallFailed, Err: reasonInstallIO}
	}
	if err := os.WriteFile(filepath.Join(in.State, name), data, 0o600); err != nil {
		return daemon.InstallResult{Outcome: daemon.InstallUnknown, Err: reasonInstallIO}
	}
	return daemon.InstallResult{Outcome: daemon.InstallCompleted}
}

// initialize applies one initialization: configure records the
// environment; npm, python and setup run a command under ownership.
func (in *Installer) initialize(ctx context.Context, init *wire.Initialization) daemon.InstallResult {
	switch init.Action {
	case "configure":
		keys := make([]string, 0, len(init.Env))
		for k := range init.Env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s=%s\n", k, init.Env[k])
		}
		return in.writeState("env", []byte(b.String()))
	case "npm":
		return in.runOwned(ctx, "npm", append([]string{"install", "--"}, init.Packages...), "", init.Network)
	case "python":
		return in.runOwned(ctx, "python3", append([]string{"-m", "pip", "install", "--"}, init.Packages...), "", init.Network)
	case "setup":
		return in.runOwned(ctx, "/bin/sh", []string{"-c", init.Command}, init.Cwd, init.Network)
	}
	return daemon.InstallResult{Outcome: daemon.InstallFailed, Err: reasonUnknownInit}
}

func (in *Installer) runOwned(ctx context.Context, prog string, args []string, cwd, network string) daemon.InstallResult {
	dir := in.Workspace
	if rel := strings.TrimPrefix(cwd, "/workspace"); cwd != "" && rel != cwd {
		dir = filepath.Join(in.Workspace, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
	}
	timeout := in.SetupTimeout
	if timeout == 0 {
		timeout = DefaultSetupTimeout
	}
	clk := in.Clock
	if clk == nil {
		clk = clock.New()
	}
	ctx, cancel := clk.WithTimeout(ctx, timeout)
	defer cancel()
	path, err := lookPath(prog)
	if err != nil {
		return daemon.InstallResult{Outcome: daemon.InstallFailed, Err: reasonSetupStart}
	}
	res, err := Owned{Path: path, Args: args, Dir: dir, Env: in.environ(network), Clock: clk, Grace: in.Grace}.Run(ctx)
	switch {
	case err != nil:
		return daemon.InstallResult{Outcome: daemon.InstallFailed, Err: reasonSetupStart}
	case res.ExitCode == 0 && !res.Stopped:
		return daemon.InstallResult{Outcome: daemon.InstallCompleted}
	}
	code := res.ExitCode
	if code < 0 || code > 255 {
		code = 255
	}
	return daemon.InstallResult{Outcome: daemon.InstallFailed, ExitCode: code}
}

// environ is the process environment plus the configured entries; a
// disabled network asks package managers to stay offline.
func (in *Installer) environ(network string) []string {
	env := os.Environ()
	if b, err := os.ReadFile(filepath.Join(in.State, "env")); err == nil {
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if line != "" {
				env = append(env, line)
			}
		}
	}
	if network == "disabled" {
		env = append(env, "NPM_CONFIG_OFFLINE=true", "PIP_NO_INDEX=1")
	}
	return env
}

// transfer runs one transfer call on the installer.
func (n *Native) transfer(op daemon.Op) daemon.Result {
	in := n.Installer
	if in == nil {
		return transferFailure(op, reasonNoInstaller)
	}
	switch op := op.(type) {
	case daemon.StageChunk:
		return in.Stage(op)
	case daemon.InstallTransfer:
		return in.Install(n.ctx, op)
	case daemon.DiscardTransfer:
		return in.Discard(op)
	}
	panic(fmt.Sprintf("runner: transfer call of unknown op %T", op))
}

// transferFailure is the result that claims nothing: not staged, an
// installation whose outcome is unknown, a discard not confirmed.
func transferFailure(op daemon.Op, reason string) daemon.Result {
	switch op.(type) {
	case daemon.StageChunk:
		return daemon.StageResult{Err: reason}
	case daemon.InstallTransfer:
		if reason == reasonNoInstaller {
			return daemon.InstallResult{Outcome: daemon.InstallFailed, Err: reason}
		}
		return daemon.InstallResult{Outcome: daemon.InstallUnknown, Err: reason}
	}
	return daemon.DiscardResult{Err: reason}
}
