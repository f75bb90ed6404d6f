package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Daemon log texts the probe test waits for.
const (
	markProbes = `msg="daemon metrics listening"`
	markReady  = `msg="daemon ready: connected and registered"`
)

var probeAddr = regexp.MustCompile(`msg="daemon metrics listening" addr=(\S+)`)

// probeGet fetches a daemon probe over its real socket.
func probeGet(t *testing.T, base, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// `turnstile daemon -metrics-addr` serves /healthz, /readyz and /metrics
// on a real socket: healthy at once, not ready while Core is out of
// reach, ready once connected and registered, and its metrics say so.
// Core's bootstrap address is a gate that accepts nothing until the
// test opens it, so "before connecting" is certain, not a race.
func TestDaemonProbesOverSockets(t *testing.T) {
	dir, tokenFile, _, cred := setup(t)
	core := startCore(t, dir, tokenFile)
	credFile := filepath.Join(t.TempDir(), "d1.credential")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gate, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()

	raw, _ := json.Marshal([]string{"daemon", "-core", "http://" + gate.Addr().String(), "-device", "d1",
		"-credential-file", credFile, "-metrics-addr", "127.0.0.1:0", "-kinds", "synthetic"})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(raw))
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	listening, ready, exited := make(chan string, 1), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(pipe)
		seenReady := false
		for sc.Scan() {
			line := sc.Text()
			stderr.Write([]byte(line + "\n"))
			if m := probeAddr.FindStringSubmatch(line); m != nil {
				listening <- m[1]
			}
			if !seenReady && strings.Contains(line, markReady) {
				seenReady = true
				close(ready)
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	var base string
	select {
	case a := <-listening:
		base = "http://" + a
	case <-exited:
		t.Fatalf("daemon exited before serving its probes:\n%s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("daemon never served its probes:\n%s", stderr.String())
	}

	if code, body := probeGet(t, base, "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Fatalf("healthz before connecting: %d %q", code, body)
	}
	if code, body := probeGet(t, base, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "not connected to Core") {
		t.Fatalf("readyz before connecting: %d %q", code, body)
	}
	if code, body := probeGet(t, base, "/metrics"); code != http.StatusOK ||
		!strings.Contains(body, "\nturnstile_daemon_connected 0\n") || !strings.Contains(body, "\nturnstile_daemon_connects_total 0\n") {
		t.Fatalf("metrics before connecting: %d\n%s", code, body)
	}

	// Open the gate: every connection to it is carried to Core.
	coreAddr := strings.TrimPrefix(core.base, "http://")
	go func() {
		for {
			c, err := gate.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", coreAddr)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, c); up.(*net.TCPConn).CloseWrite() }()
				_, _ = io.Copy(c, up)
			}()
		}
	}()
	select {
	case <-ready:
	case <-exited:
		t.Fatalf("daemon exited before connecting:\n%s", stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("daemon never connected:\n%s", stderr.String())
	}
	if code, body := probeGet(t, base, "/readyz"); code != http.StatusOK || body != "ready\n" {
		t.Fatalf("readyz once connected: %d %q", code, body)
	}
	code, body := probeGet(t, base, "/metrics")
	for _, s := range []string{"\nturnstile_daemon_connected 1\n", "\nturnstile_daemon_connects_total 1\n",
		"\nturnstile_daemon_reconnects_total 0\n", `turnstile_daemon_executors{phase="idle"} 0`, "\ngo_goroutines "} {
		if code != http.StatusOK || !strings.Contains(body, s) {
			t.Fatalf("metrics once connected lack %q: %d\n%s", s, code, body)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit after SIGTERM:\n%s", stderr.String())
	}
	if c := cmd.ProcessState.ExitCode(); c != exitOK || strings.Contains(stderr.String(), cred) {
		t.Fatalf("daemon exit %d (or its log holds the credential):\n%s", c, stderr.String())
	}
}

// A -metrics-addr the daemon cannot listen on refuses the start (exit 1,
// the flag named) before any request reaches Core.
func TestDaemonMetricsAddrRefused(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	core, err := net.Listen("tcp", "127.0.0.1:0") // accepts nothing: a request would hang
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	credFile := filepath.Join(t.TempDir(), "cred")
	if err := os.WriteFile(credFile, []byte("tsd_metrics-addr-test-credential\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{taken.Addr().String(), "not-an-address"} {
		var out, errOut strings.Builder
		code := run([]string{"daemon", "-core", "http://" + core.Addr().String(), "-device", "d1", "-credential-file", credFile,
			"-metrics-addr", addr, "-kinds", "synthetic"}, &out, &errOut)
		if code != exitFail || !strings.Contains(errOut.String(), "turnstile daemon: -metrics-addr: ") {
			t.Errorf("-metrics-addr %s: exit %d, stderr %q", addr, code, errOut.String())
		}
	}
	_ = core.(*net.TCPListener).SetDeadline(time.Now())
	if c, err := core.Accept(); err == nil {
		c.Close()
		t.Error("the daemon reached Core before refusing its -metrics-addr")
	}
}
