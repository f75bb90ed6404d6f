package main

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/conform"
)

// conformLine is one scenario's line of a conform report.
var conformLine = regexp.MustCompile(`(?m)^(PASS|FAIL|SKIP)  (\S+)`)

// checkConformReport requires a report in which nothing failed, some
// scenarios passed and every skip has a reason that is the run's nature
// (a scenario of the other side, or fake time), never a missing hook.
func checkConformReport(t *testing.T, code int, out, errOut string, minPass int) {
	t.Helper()
	lines := conformLine.FindAllStringSubmatch(out, -1)
	pass := 0
	for _, l := range lines {
		switch l[1] {
		case "PASS":
			pass++
		case "FAIL":
			t.Errorf("scenario %s failed", l[2])
		}
	}
	for _, bad := range []string{"needs harness control", "needs the public API", "FAIL"} {
		if strings.Contains(out, bad) {
			t.Errorf("report has %q", bad)
		}
	}
	if code != exitOK || pass < minPass || !strings.Contains(out, " 0 failed") {
		t.Fatalf("exit %d, %d passed (want >= %d):\n%s\nstderr:\n%s", code, pass, minPass, out, errOut)
	}
}

// TestConformRuntimeAgainstDaemon plays every scenario's scripted Core
// against real `turnstile daemon` child processes, one per scenario.
func TestConformRuntimeAgainstDaemon(t *testing.T) {
	testgate.Long(t)
	t.Parallel() // waits on real processes and timers, using little CPU
	// The children below are `turnstile daemon`: env hands them the
	// command line (a parallel test cannot set the process's environment).
	code, out, errOut := cli{t: t}.run("conform", "runtime", "--", "env", childArgsEnv+`=["daemon"]`, os.Args[0], "-test.run=^$")
	checkConformReport(t, code, out, errOut, 30)
	for _, want := range []string{
		"PASS  shutdown_close_failure_serial_retry",
		"PASS  incompatible_version",
		"PASS  workspace_directory_read_on_the_read_only_profile",
		"PASS  workspace_file_read_truncated_at_max_bytes",
		"PASS  workspace_write_begin_chunk_commit_then_read_back",
		"PASS  workspace_export_begin_chunk_next_completed",
		"SKIP  idle_expiry\n      needs fake time",
		"SKIP  steer_unknown_after_30s\n      needs fake time",
		"not checked: testdata/admission_record_limit_64.txt",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestConformCoreAgainstCore plays every scenario's scripted Runtime
// against a real `turnstile core` child process over a SQLite file.
func TestConformCoreAgainstCore(t *testing.T) {
	testgate.Long(t)
	t.Parallel() // waits on real processes and timers, using little CPU
	dir, tokenFile, _, cred := setup(t)
	p := startCore(t, dir, tokenFile)
	credFile := filepath.Join(t.TempDir(), "d1.credential")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "api.key")
	if err := os.WriteFile(keyFile, []byte(issueKey(t, dir)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cli{t: t}.run("conform", "core", "-url", p.base, "-device", "d1",
		"-credential-file", credFile, "-api-key-file", keyFile, "-operator-token-file", tokenFile)
	checkConformReport(t, code, out, errOut, 24)
	for _, want := range []string{
		"PASS  incompatible_version",
		"PASS  usage_snapshots_replace",
		"PASS  shutdown_close_failure_serial_retry",
		"PASS  permission_decision_applied_once",
		"PASS  function_result_applied_to_its_call",
		"PASS  quiesce_fences_new_work_until_resume",
		"PASS  quiesce_refused_while_a_turn_runs",
		"PASS  quiesce_reply_lost_then_resume_with_rollback",
		"PASS  workspace_directory_read_on_the_read_only_profile",
		"PASS  workspace_file_read_truncated_at_max_bytes",
		"PASS  workspace_write_begin_chunk_commit_then_read_back",
		"PASS  workspace_export_begin_chunk_next_completed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if code := p.terminate(); code != 0 {
		t.Fatalf("core exited %d:\n%s", code, p.stderr.String())
	}
}

// TestConformReportsFailure: a scenario the daemon does not follow fails
// with the first differing frame and exit status 1.
func TestConformReportsFailure(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../scenarios/testdata/run_completes_with_done.txt")
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(src), "runtime done id=$run\n{\"content\":\"", "runtime done id=$run\n{\"content\":\"not-", 1)
	if broken == string(src) {
		t.Fatal("the done frame to break is not in the scenario")
	}
	if err := os.MkdirAll(filepath.Join(dir, "include"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"run_completes_with_done.txt": broken} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, inc := range []string{"connected", "started"} {
		b, err := os.ReadFile("../../scenarios/testdata/include/" + inc + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "include", inc+".txt"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(childArgsEnv, `["daemon"]`)
	code, out, errOut := cli{t: t}.run("conform", "runtime", "-scenarios", dir, "--", os.Args[0], "-test.run=^$")
	if code != exitFail || !strings.Contains(out, "FAIL  run_completes_with_done") ||
		!strings.Contains(out, `done: payload.content: sent "hi", want "not-hi"`) || !strings.Contains(out, "1 failed") {
		t.Fatalf("exit %d:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestConformUsageErrors: every bad invocation exits 2 with a named error.
func TestConformUsageErrors(t *testing.T) {
	cred := filepath.Join(t.TempDir(), "cred")
	if err := os.WriteFile(cred, []byte("c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"conform"}, ErrConformSide.Error()},
		{[]string{"conform", "both"}, ErrConformSide.Error()},
		{[]string{"conform", "runtime"}, ErrConformTarget.Error()},
		{[]string{"conform", "runtime", "-listen", "127.0.0.1:0", "--", "x"}, ErrConformTarget.Error()},
		{[]string{"conform", "runtime", "-run", "(", "--", "x"}, ErrConformRun.Error()},
		{[]string{"conform", "runtime", "-scenarios", "/nonexistent-dir", "--", "x"}, "no scenarios"},
		{[]string{"conform", "runtime", "-run", "nonesuch", "--", "x"}, "matches no scenario"},
		{[]string{"conform", "runtime", "--", "/nonexistent/runtime"}, "the Runtime's command"},
		{[]string{"conform", "core"}, ErrConformCoreURL.Error()},
		{[]string{"conform", "core", "-url", "http://127.0.0.1:1"}, ErrConformCoreURL.Error()},
		{[]string{"conform", "core", "-url", "http://127.0.0.1:1", "-credential-file", cred, "extra"}, "unexpected arguments"},
		{[]string{"conform", "core", "-url", "http://127.0.0.1:1", "-credential-file", cred + ".missing"}, "credential file"},
		{[]string{"conform", "core", "-nonesuch"}, "flag provided but not defined"},
	}
	for _, c := range cases {
		code, out, errOut := cli{t: t}.run(c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 naming %q", c.args, code, errOut, out, c.want)
		}
	}
}

// TestConformRuntimeListen: a daemon started separately, and started
// again whenever it exits (device_shutdown ends each scenario), connects
// to the scripted Core at -listen.
func TestConformRuntimeListen(t *testing.T) {
	testgate.Long(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	all, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var decl []byte
	for _, sc := range all {
		if hb, ok, _ := sc.Declaration(); ok && sc.Name == "run_completes_with_done" {
			decl, _ = json.Marshal(conform.Declaration{DaemonVersion: hb.DaemonVersion, SupportedAgentKinds: hb.SupportedAgentKinds})
		}
	}
	cred := filepath.Join(t.TempDir(), "cred")
	if err := os.WriteFile(cred, []byte(conform.RuntimeCredential+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := superviseDaemon(t, addr, cred, decl)
	code, out, errOut := cli{t: t}.run("conform", "runtime", "-listen", addr,
		"-run", "run_completes|cancellation_waits|executor_reuse|disconnect_is|shutdown_close|capability_missing|incompatible")
	starts := stop()
	for _, want := range []string{
		"PASS  run_completes_with_done", "PASS  cancellation_waits_for_settlement", "PASS  executor_reuse_across_two_turns",
		"PASS  disconnect_is_unknown_and_reconnect_does_not_replay", "PASS  shutdown_close_failure_serial_retry",
		"SKIP  capability_missing_no_dispatch\n      declares other kinds",
		"PASS  incompatible_version (0s)\n      not checked: testdata/incompatible_version.txt:5: version-refused version=0.7.0: the Runtime was started separately",
		"6 passed, 0 failed, 1 skipped",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if code != exitOK || starts < 6 || !strings.Contains(errOut, "scripted Core at http://"+addr) {
		t.Errorf("exit %d after %d daemon starts:\n%s\nstderr:\n%s", code, starts, out, errOut)
	}
}

// superviseDaemon keeps one `turnstile daemon` child in conformance mode
// running against addr, starting it again whenever it exits, until the
// returned stop, which reports how many it started.
func superviseDaemon(t *testing.T, addr, cred string, decl []byte) func() int {
	stop := make(chan struct{})
	loop := make(chan int)
	go func() { // the supervisor: one daemon at a time, until stop
		starts := 0
		for {
			select {
			case <-stop:
				loop <- starts
				return
			default:
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childArgsEnv+`=["daemon"]`, conform.EnvCoreURL+"=http://"+addr,
				conform.EnvDevice+"="+conform.RuntimeDevice, conform.EnvCredential+"="+cred,
				conform.EnvControl+"=ws://"+addr+scenarios.ControlPath, conform.EnvDeclaration+"="+string(decl))
			if err := cmd.Start(); err != nil {
				t.Error(err)
				loop <- starts
				return
			}
			starts++
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-stop:
				_ = cmd.Process.Kill()
				<-done
				loop <- starts
				return
			}
		}
	}()
	return func() int {
		close(stop)
		return <-loop
	}
}

// TestDaemonConformDeclarationRefused: a conformance declaration that
// does not parse, names an unknown member or lacks the daemon version
// refuses the daemon's start.
func TestDaemonConformDeclarationRefused(t *testing.T) {
	cred := writeFile(t, "cred", testCredential)
	for _, c := range []struct{ decl, want string }{
		{`{`, conform.EnvDeclaration + ": unexpected EOF"},
		{`{"daemon_version":"v","kinds":[]}`, `unknown field "kinds"`},
		{`{"daemon_version":" ","supported_agent_kinds":[]}`, "daemon_version is empty"},
	} {
		t.Setenv(conform.EnvDeclaration, c.decl)
		code, _, errOut := (cli{t: t}).run("daemon", "-core", "http://127.0.0.1:1", "-device", "d", "-credential-file", cred)
		if code != exitUsage || !strings.Contains(errOut, "refusing to start") || !strings.Contains(errOut, c.want) {
			t.Errorf("declaration %s: exit %d, stderr %q; want exit 2 naming %q", c.decl, code, errOut, c.want)
		}
	}
}

// TestConformCoreWithoutOperatorToken: against a real `turnstile core`
// process, conform core without -api-key-file, or without
// -operator-token-file, skips every scenario with api steps; that run did
// not check what it was asked to, so it fails with a named error (the
// credential, how many skipped) and exit 4 even though nothing failed. A
// run in which every selected scenario is skipped played nothing and
// exits 4 as well.
func TestConformCoreWithoutOperatorToken(t *testing.T) {
	dir, tokenFile, _, cred := setup(t)
	keyFile := filepath.Join(t.TempDir(), "api.key")
	if err := os.WriteFile(keyFile, []byte(issueKey(t, dir)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startCore(t, dir, tokenFile)
	credFile := filepath.Join(t.TempDir(), "d1.credential")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags              []string
		credential, reason string
	}{
		{[]string{"-operator-token-file", tokenFile}, conform.CredentialAPIKey, "needs the Agents API"},
		{[]string{"-api-key-file", keyFile}, conform.CredentialOperatorToken, "needs the operator routes"},
	} {
		code, out, errOut := cli{t: t}.run(append([]string{"conform", "core", "-url", p.base, "-device", "d1", "-credential-file", credFile,
			"-run", "^(incompatible_version|cancellation_waits_for_settlement|cancel_racing_done)$"}, c.flags...)...)
		want := "turnstile conform core: " + ErrConformCredential.Error() + ": 2 of 3 scenarios skipped for lack of " +
			c.credential + "; give it to play them"
		if code != exitVacuous || !strings.Contains(errOut, want) ||
			!strings.Contains(out, "PASS  incompatible_version") ||
			!strings.Contains(out, "SKIP  cancellation_waits_for_settlement\n      "+c.reason) ||
			!strings.Contains(out, "1 passed, 0 failed, 2 skipped") {
			t.Fatalf("exit %d (want %d)\n%s\nstderr:\n%s\nwant stderr %q", code, exitVacuous, out, errOut, want)
		}
	}
	code, out, errOut := cli{t: t}.run("conform", "core", "-url", p.base, "-device", "d1", "-credential-file", credFile,
		"-api-key-file", keyFile, "-operator-token-file", tokenFile, "-run", "^(idle_expiry|steer_unknown_after_30s)$")
	if code != exitVacuous || !strings.Contains(errOut, ErrConformNothingPlayed.Error()+" (2 scenarios, all skipped)") ||
		!strings.Contains(out, "0 passed, 0 failed, 2 skipped") || strings.Contains(errOut, ErrConformCredential.Error()) {
		t.Fatalf("nothing played: exit %d\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code := p.terminate(); code != 0 {
		t.Fatalf("core exited %d:\n%s", code, p.stderr.String())
	}
}
