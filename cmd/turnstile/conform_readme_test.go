package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// conformGuide is the scenarios README's section for implementers.
const conformGuide = "## Conformance of another implementation"

// conformGuideText returns the section's text, up to the next level-2
// heading.
func conformGuideText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../scenarios/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+conformGuide+"\n")
	if !ok {
		t.Fatalf("scenarios/README.md has no %q", conformGuide)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// TestReadmeConformGuide runs every command of the guide's sh block, in
// order, in a fresh directory, as an implementer's CI would (Core's
// listen address is moved off 8080 through TURNSTILE_LISTEN), and checks
// that both conform runs report no failure. The section shows no other
// command: every code span that starts one is refused.
func TestReadmeConformGuide(t *testing.T) {
	testgate.Long(t) // builds the binary
	t.Parallel()     // waits on real processes and timers, using little CPU
	text := conformGuideText(t)
	if m := regexp.MustCompile("`((?:make|go run|go test|turnstile|bin/turnstile|\\./turnstile) [^`]*)`").FindString(text); m != "" {
		t.Fatalf("the guide shows %s outside its sh block; put it in the block, which this test runs", m)
	}
	_, block, _ := strings.Cut(text, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	env := append(os.Environ(), "TURNSTILE_LISTEN="+addr)
	var core *exec.Cmd
	conforms := 0
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		cmdline, runDir := strings.ReplaceAll(line, "localhost:8080", addr), dir
		if strings.HasPrefix(cmdline, "go build") {
			cmdline, runDir = strings.ReplaceAll(cmdline, "-o turnstile", "-o "+filepath.Join(dir, "turnstile")), root
		}
		if strings.HasSuffix(cmdline, "&") {
			core = exec.Command("bash", "-c", "exec "+strings.TrimSuffix(cmdline, "&"))
			core.Dir, core.Env, core.Stderr = dir, env, &bytes.Buffer{}
			if err := core.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if core.ProcessState == nil {
					_ = core.Process.Kill()
					_ = core.Wait()
				}
			})
			continue
		}
		out := runLine(t, runDir, env, cmdline)
		if strings.Contains(cmdline, " conform runtime ") || strings.Contains(cmdline, " conform core ") {
			conforms++
			if !strings.Contains(out, " 0 failed") || !strings.Contains(out, "PASS  ") {
				t.Errorf("%s:\n%s", line, out)
			}
		}
	}
	if core == nil || conforms != 2 {
		t.Fatalf("the guide's block started Core %v and ran conform %d times, want Core and 2", core != nil, conforms)
	}
	if err := core.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := core.Wait(); err != nil {
		t.Fatalf("turnstile core after SIGTERM: %v", err)
	}
}
