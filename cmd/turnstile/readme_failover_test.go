package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// twoCoresDeadline bounds the README's two-Core block: the cluster's
// initdb, the build, two Cores, a lease expiry and two Turns.
const twoCoresDeadline = 5 * time.Minute

// TestReadmeTwoCores runs the README's "Two Cores on PostgreSQL" block as
// a user pasting it would: the whole block, unchanged but for its two
// ports, as one bash script at the repository root. It needs PostgreSQL's
// server binaries (Debian's postgresql, as .ci/run installs): without them
// it skips, except under CI, where it fails. The test checks, in order,
// that Core A became ready and Core B stayed a standby, that the first
// Turn completed on A, that B took over after A's SIGKILL and serves A's
// Turn as completed, that the daemon moved to B and ran the next Turn
// there, and that no log holds a secret.
func TestReadmeTwoCores(t *testing.T) {
	testgate.Long(t) // initdb, a build, two Cores and a lease expiry
	t.Parallel()     // waits on real processes and timers, using little CPU
	if out, err := exec.Command("../../scripts/pg-cluster.sh", "bin").CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL's server binaries are missing under CI: %v\n%s", err, out)
		}
		t.Skipf("no PostgreSQL server binaries (install postgresql): %s", out)
	}
	block := readmeBlock(t, "## Two Cores on PostgreSQL")
	a, b := freeAddr(t), freeAddr(t)
	for _, port := range []string{"localhost:8080", "localhost:8081"} {
		if strings.Count(block, port) < 2 {
			t.Fatalf("the block no longer talks to %s; update the port substitution:\n%s", port, block)
		}
	}
	script := strings.NewReplacer("localhost:8080", a, "localhost:8081", b).Replace(block)
	tmp := t.TempDir()
	out, errOut, runErr := runReadmeBlock(t, tmp, script, twoCoresDeadline)
	demo := readmeDemoDir(t, tmp)
	t.Cleanup(func() { stopReadmeCluster(t, filepath.Join(demo, "pg")) })
	logs := map[string]string{}
	for _, name := range []string{"core-a.log", "core-b.log", "daemon.log"} {
		b, _ := os.ReadFile(filepath.Join(demo, name))
		logs[name] = string(b)
	}
	if runErr != nil {
		t.Fatalf("the block failed: %v\nstdout:\n%s\nstderr:\n%s\ncore-a.log:\n%s\ncore-b.log:\n%s\ndaemon.log:\n%s",
			runErr, out, errOut, logs["core-a.log"], logs["core-b.log"], logs["daemon.log"])
	}
	want := []string{
		"ready",                                                                 // A's readyz
		"ok",                                                                    // B's healthz: it listens...
		"standby",                                                               // ...as the standby
		`"id":"s-1"`, "before the crash", "event: agent.session.turn.completed", // the first Turn, on A
		"ready",                                                                // B's readyz after A's SIGKILL
		`"status":"completed"`,                                                 // A's Turn, read from B
		`"id":"s-2"`, "after the crash", "event: agent.session.turn.completed", // the next Turn, on B
	}
	rest := out
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("the block's output lacks %q after the earlier steps:\n%s", w, out)
		}
		rest = rest[i+len(w):]
	}
	for name, w := range map[string]string{"core-b.log": "turnstile core standby", "daemon.log": "trying the next Core"} { //tidy:sorted each is checked alone
		if !strings.Contains(logs[name], w) {
			t.Fatalf("%s lacks %q:\n%s", name, w, logs[name])
		}
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

// stopReadmeCluster stops the block's cluster even when the block failed
// before its last line, and removes the directory that scripts/pg-cluster.sh
// moves it to when the postgres user cannot reach the scratch directory.
func stopReadmeCluster(t *testing.T, dir string) {
	if out, err := exec.Command("../../scripts/pg-cluster.sh", "stop", dir).CombinedOutput(); err != nil {
		t.Logf("stopping the block's cluster: %v\n%s", err, out)
	}
	sum := sha256.Sum256([]byte(dir))
	if moved := "/tmp/turnstile-pg-" + hex.EncodeToString(sum[:])[:12]; moved != dir {
		_ = os.RemoveAll(moved)
	}
}
