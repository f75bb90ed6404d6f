package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/openaisdk"
	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// sdkQuickstart is the README's quick start: a Node program with the
// official OpenAI SDK that runs one Turn on a local Core and daemon.
const sdkQuickstart = "../../examples/sdk-quickstart.mjs"

// The quick start runs exactly as written (the file's bytes, under Node,
// with only OPENAI_BASE_URL and OPENAI_API_KEY set) against a real
// `turnstile core` and `turnstile daemon` with the synthetic Harness,
// which echoes the input: it prints the streamed text and the completed
// Turn.
func TestSDKQuickstartRunsAsWritten(t *testing.T) {
	testgate.Long(t)
	modules := openaisdk.Modules(t)
	node := openaisdk.Node(t)
	dir, tokenFile, _, cred := setup(t)
	credFile := filepath.Join(filepath.Dir(tokenFile), "device.cred")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	key := sdkAPIKey(t, dir)
	core := startCore(t, dir, tokenFile)
	d := startDaemonProc(t, "-core", core.base, "-device", "d1", "-credential-file", credFile)

	work := t.TempDir()
	copyFile(t, sdkQuickstart, filepath.Join(work, "sdk-quickstart.mjs"))
	if err := os.Symlink(modules, filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	env := sdkEnv(map[string]string{"OPENAI_BASE_URL": core.base + "/v1", "OPENAI_API_KEY": key})
	out, err := runNodeScript(t, node, work, "sdk-quickstart.mjs", env, func(cmd string) error {
		t.Errorf("the quick start asked for %q", cmd)
		return nil
	})
	if err != nil {
		t.Fatalf("sdk-quickstart.mjs: %v\n%s--- core log (tail)\n%s--- daemon log (tail)\n%s",
			err, out, tail(core.stderr.String(), 40), tail(d.stderr.String(), 40))
	}
	if !regexp.MustCompile(`^Hello, Turnstile\nturn \S+: completed\n$`).MatchString(out) {
		t.Fatalf("the quick start printed %q, want the echoed input and the completed Turn", out)
	}
}
