package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// operatingCoreDeadline bounds the README's operating block: the build,
// the certificates, Core over TLS, a daemon and one Turn.
const operatingCoreDeadline = 4 * time.Minute

// TestReadmeOperatingCore runs the README's "Operating Core" block as a
// user pasting it would: the whole block, unchanged but for its two ports,
// as one bash script at the repository root. It checks, in order, that
// Core answered ready over TLS, that the daemon's own readyz turned 200
// once it connected, that the Turn streamed to completion over HTTPS, that
// the administration API lists the device enrolled through it, that both
// metrics endpoints show the Turn and the connection, that SIGHUP reloaded
// the certificate, that the revocation went through the API, and that no
// log holds a secret.
func TestReadmeOperatingCore(t *testing.T) {
	testgate.Long(t) // builds the binary, runs Core and a daemon
	if _, err := exec.LookPath("openssl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("openssl is missing under CI")
		}
		t.Skip("no openssl")
	}
	block := readmeBlock(t, "## Operating Core")
	core, probes := freeAddr(t), freeAddr(t)
	for _, port := range []string{"localhost:8443", "localhost:9464"} {
		if strings.Count(block, port) < 2 {
			t.Fatalf("the block no longer talks to %s; update the port substitution:\n%s", port, block)
		}
	}
	script := strings.NewReplacer("localhost:8443", core, "localhost:9464", probes).Replace(block)
	tmp := t.TempDir()
	out, errOut, runErr := runReadmeBlock(t, tmp, script, operatingCoreDeadline)
	demo := readmeDemoDir(t, tmp)
	logs := map[string]string{}
	for _, name := range []string{"core.log", "daemon.log"} {
		b, _ := os.ReadFile(filepath.Join(demo, name))
		logs[name] = string(b)
	}
	if runErr != nil {
		t.Fatalf("the block failed: %v\nstdout:\n%s\nstderr:\n%s\ncore.log:\n%s\ndaemon.log:\n%s",
			runErr, out, errOut, logs["core.log"], logs["daemon.log"])
	}
	want := []string{
		"ready", // Core's readyz over TLS
		"ready", // the daemon's readyz on its probes address
		"event: agent.session.created", "over TLS", "event: agent.session.turn.completed",
		`"id":"d1"`, // GET /core/v1/devices
		`turnstile_core_turns_finished_total{code="none",state="completed"} 1`, // Core's metrics
		"turnstile_daemon_connected 1",                                         // the daemon's metrics
	}
	rest := out
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("the block's output lacks %q after the earlier steps:\n%s", w, out)
		}
		rest = rest[i+len(w):]
	}
	for _, w := range []string{"TLS certificate reloaded", "turn transition", `"tls":true`} {
		if !strings.Contains(logs["core.log"], w) {
			t.Fatalf("core.log lacks %q:\n%s", w, logs["core.log"])
		}
	}
	if !strings.Contains(logs["daemon.log"], "everything released") {
		t.Fatalf("daemon.log lacks its clean stop:\n%s", logs["daemon.log"])
	}
	// The revocation went through the running Core, into its store.
	if code, listed, errList := (cli{t: t}).run("core", "device", "list", "-data", filepath.Join(demo, "turnstile-data")); code != exitOK ||
		!strings.Contains(listed, "revoked") {
		t.Fatalf("device list after the block: exit %d\n%s%s", code, listed, errList)
	}
	secrets := []string{strings.TrimSpace(readFile(t, filepath.Join(demo, "d1.credential"))),
		strings.TrimSpace(readFile(t, filepath.Join(demo, "operator.token"))),
		strings.TrimSpace(readFile(t, filepath.Join(demo, "api.key")))}
	for name, log := range logs { //tidy:sorted each is checked alone
		for _, secret := range secrets {
			if secret == "" || strings.Contains(log, secret) {
				t.Fatalf("%s holds a secret (or a secret is empty):\n%s", name, log)
			}
		}
	}
}
