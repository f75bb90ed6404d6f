package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/codex"
	"github.com/turnstile-sim/turnstile/adapters/codex/codextest"
	"github.com/turnstile-sim/turnstile/internal/openaisdk"
	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// sdkScriptDir holds the Agents API acceptance scripts: ES modules that
// import the official OpenAI SDK ('openai') and assert with node:assert.
// NAME.mjs runs against a daemon scripted by NAME.synthetic.json when that
// file exists; lib.mjs is their shared module.
const sdkScriptDir = "testdata/sdk"

// sdkControlPrefix starts a line a script writes to ask the test to act on
// the real processes; the test answers "ok" on the script's stdin.
const sdkControlPrefix = "@@turnstile "

// sdkScriptTimeout bounds one script run.
const sdkScriptTimeout = 2 * time.Minute

// sdkCodexPrefix starts the names of the scripts that run on the Codex
// Harness (TestSDKAcceptanceCodex) instead of the synthetic one.
const sdkCodexPrefix = "codex-"

// sdkScripts lists the acceptance scripts (NAME.mjs, without lib.mjs) whose
// names start with prefix ("": those of the synthetic Harness, every
// script not starting with sdkCodexPrefix).
func sdkScripts(t *testing.T, prefix string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(sdkScriptDir, "*.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".mjs")
		codexScript := strings.HasPrefix(name, sdkCodexPrefix)
		if name == "lib" || (prefix == "" && codexScript) || (prefix != "" && !strings.HasPrefix(name, prefix)) {
			continue
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		t.Fatalf("no acceptance script %s*.mjs in %s", prefix, sdkScriptDir)
	}
	return out
}

// Each acceptance script runs under Node with the pinned official OpenAI
// SDK against a real `turnstile core` and `turnstile daemon` (synthetic
// Harness), each script on its own data directory. A script fails by
// exiting non-zero; its output is the failure message.
func TestSDKAcceptance(t *testing.T) {
	testgate.Long(t)
	modules := openaisdk.Modules(t)
	node := openaisdk.Node(t)
	for _, name := range sdkScripts(t, "") {
		t.Run(name, func(t *testing.T) {
			var daemonArgs []string
			if script := filepath.Join(sdkScriptDir, name+".synthetic.json"); fileExists(script) {
				daemonArgs = append(daemonArgs, "-synthetic-script", script)
			}
			runSDKAcceptance(t, node, modules, name, daemonArgs, nil)
		})
	}
}

// The codex-*.mjs scripts run the same way on the Codex Harness: the
// daemon's only kind is codex, the pinned binary (make codex) against the
// fake model server, which answers each model request with the next
// queued reply.
func TestSDKAcceptanceCodex(t *testing.T) {
	testgate.Long(t)
	modules := openaisdk.Modules(t)
	node := openaisdk.Node(t)
	bin := codexBinary(t)
	for _, name := range sdkScripts(t, sdkCodexPrefix) {
		t.Run(name, func(t *testing.T) {
			m := codextest.NewModelServer(t)
			m.Queue(codextest.Reply{Deltas: []string{"Hello", ", world"}}, codextest.Reply{Deltas: []string{"again"}})
			daemonArgs := []string{"-kinds", codex.Kind, "-codex-bin", bin, "-codex-home", codextest.Home(t, m)}
			runSDKAcceptance(t, node, modules, name, daemonArgs, map[string]string{
				"TURNSTILE_HARNESS": codex.Kind, "TURNSTILE_MODEL": "gpt-5.5"})
		})
	}
}

// sdkRun is one script's world: Core, the daemon and the secrets the
// script must never see echoed.
type sdkRun struct {
	t         *testing.T
	dir       string
	tokenFile string
	// vaultKeyFile holds the key that seals Vault credentials at rest.
	vaultKeyFile string
	addr         string // Core's listen address, kept across restarts
	core         *coreProc
	daemon       *daemonProc
	coreLogs     []*syncBuffer // every Core process's stderr
	mu           sync.Mutex
	cores        []*coreProc // every Core process, stopped at the end
	secrets      map[string]string
}

func randomSecret(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return prefix + hex.EncodeToString(b)
}

// runSDKAcceptance runs script name against a fresh Core and a daemon with
// daemonArgs; env adds to the script's environment.
func runSDKAcceptance(t *testing.T, node, modules, name string, daemonArgs []string, env map[string]string) {
	dir, tokenFile, _, cred := setup(t)
	root := filepath.Dir(tokenFile)
	credFile := filepath.Join(root, "device.cred")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &sdkRun{t: t, dir: dir, tokenFile: tokenFile, secrets: map[string]string{
		"TURNSTILE_VAULT_SECRET": randomSecret(t, "vault-secret-"),
		"TURNSTILE_PROVIDER_KEY": randomSecret(t, "sk-provider-"),
	}}
	t.Cleanup(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, p := range r.cores {
			p.stop()
		}
	})
	key := sdkAPIKey(t, dir)
	r.secrets["OPENAI_API_KEY"] = key
	r.vaultKeyFile, r.secrets["vault key"] = writeVaultKey(t, root)
	if err := r.startCore(); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-core", r.core.base, "-device", "d1", "-credential-file", credFile, "-log-level", "debug"}, daemonArgs...)
	r.daemon = startDaemonProc(t, args...)

	work := sdkWorkDir(t, modules)
	set := map[string]string{"OPENAI_BASE_URL": r.core.base + "/v1", "OPENAI_API_KEY": key,
		"TURNSTILE_VAULT_SECRET": r.secrets["TURNSTILE_VAULT_SECRET"], "TURNSTILE_PROVIDER_KEY": r.secrets["TURNSTILE_PROVIDER_KEY"]}
	for k, v := range env {
		set[k] = v
	}
	out, err := runNodeScript(t, node, work, name+".mjs", sdkEnv(set), r.control)
	if err != nil {
		t.Fatalf("%s.mjs: %v\n--- script output\n%s--- core log (tail)\n%s--- daemon log (tail)\n%s",
			name, err, out, tail(r.core.stderr.String(), 40), tail(r.daemon.stderr.String(), 40))
	}
	r.checkSecrets()
}

// startCore starts Core on the run's data directory (and, after the first
// start, on the same address, so the daemon reconnects to it).
func (r *sdkRun) startCore() error {
	extra := []string{"-vault-key", r.vaultKeyFile}
	if r.addr != "" {
		extra = append(extra, "-listen", r.addr)
	}
	p, err := startCoreProc(r.dir, r.tokenFile, extra...)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.cores = append(r.cores, p)
	r.mu.Unlock()
	r.core = p
	r.addr = strings.TrimPrefix(p.base, "http://")
	r.coreLogs = append(r.coreLogs, p.stderr)
	return nil
}

// control acts on a script's request. It runs on the goroutine reading
// the script's output, so it reports failures as errors.
func (r *sdkRun) control(cmd string) error {
	switch cmd {
	case "restart-core":
		code, err := r.core.signalStop()
		if err != nil {
			return err
		}
		if code != 0 {
			return fmt.Errorf("core exited %d on SIGTERM:\n%s", code, r.core.stderr.String())
		}
		if err := r.startCore(); err != nil {
			return err
		}
		select {
		case <-r.daemon.connects:
			return nil
		case err := <-r.daemon.exited:
			return fmt.Errorf("daemon exited instead of reconnecting: %v\n%s", err, r.daemon.stderr.String())
		case <-time.After(30 * time.Second):
			return fmt.Errorf("daemon never reconnected after the restart:\n%s", r.daemon.stderr.String())
		}
	}
	return fmt.Errorf("unknown control request %q", cmd)
}

// checkSecrets fails when a Core log line, a daemon log line or a file of
// the data directory holds a secret in clear.
func (r *sdkRun) checkSecrets() {
	r.t.Helper()
	logs := r.daemon.stderr.String()
	for _, l := range r.coreLogs {
		logs += l.String()
	}
	for name, secret := range r.secrets {
		if strings.Contains(logs, secret) {
			r.t.Errorf("a log line holds %s", name)
		}
	}
	err := filepath.WalkDir(r.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for name, secret := range r.secrets {
			if bytes.Contains(b, []byte(secret)) {
				r.t.Errorf("%s holds %s in clear", path, name)
			}
		}
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
}

// writeVaultKey writes a fresh Vault key file (64 hex digits) into dir and
// returns its path and the key.
func writeVaultKey(t *testing.T, dir string) (path, key string) {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	key = hex.EncodeToString(b)
	path = filepath.Join(dir, "vault.key")
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, key
}

// sdkAPIKey issues an API key with `turnstile core key add`.
func sdkAPIKey(t *testing.T, dir string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run([]string{"core", "key", "add", "-data", dir, "acceptance"}, &out, &errOut); code != 0 {
		t.Fatalf("core key add: exit %d: %s", code, errOut.String())
	}
	key := strings.TrimSpace(out.String())
	if key == "" || strings.ContainsAny(key, " \n") {
		t.Fatalf("core key add printed %q, want the key alone", out.String())
	}
	return key
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// sdkWorkDir copies the scripts, unchanged, into a fresh directory next to
// a node_modules link to the pinned SDK: where Node resolves 'openai' from.
func sdkWorkDir(t *testing.T, modules string) string {
	t.Helper()
	work := t.TempDir()
	paths, err := filepath.Glob(filepath.Join(sdkScriptDir, "*.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		copyFile(t, p, filepath.Join(work, filepath.Base(p)))
	}
	if err := os.Symlink(modules, filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return work
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sdkEnv is the environment of a script: this process's, without any
// OPENAI_* variable of the machine, plus set.
func sdkEnv(set map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENAI_") {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// runNodeScript runs `node script` in dir and returns its output (stdout
// and stderr, interleaved). A control line on stdout calls control and
// answers "ok" on the script's stdin. err is set when the script exits
// non-zero, runs past sdkScriptTimeout or a control request fails.
func runNodeScript(t *testing.T, node, dir, script string, env []string, control func(string) error) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), sdkScriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = dir
	cmd.Env = env
	var out syncBuffer
	cmd.Stderr = &out
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var ctlErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 8<<20)
		for sc.Scan() {
			line := sc.Text()
			out.Write([]byte(line + "\n"))
			req, ok := strings.CutPrefix(line, sdkControlPrefix)
			if !ok {
				continue
			}
			if err := control(req); err != nil {
				ctlErr = err
				_ = cmd.Process.Kill()
				return
			}
			_, _ = io.WriteString(stdin, "ok\n")
		}
	}()
	wg.Wait()
	err = cmd.Wait()
	_ = stdin.Close()
	if ctx.Err() != nil {
		return out.String(), ctx.Err()
	}
	if ctlErr != nil {
		return out.String(), ctlErr
	}
	return out.String(), err
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "")
}
