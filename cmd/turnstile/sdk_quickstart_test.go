package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
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

// The README shows the quick start as a js block under "With the official
// OpenAI SDK": it is the example file, byte for byte.
func TestReadmeSDKQuickstartIsTheExample(t *testing.T) {
	want, err := os.ReadFile(sdkQuickstart)
	if err != nil {
		t.Fatal(err)
	}
	readme := readmeText(t)
	i := strings.Index(readme, "\n### With the official OpenAI SDK\n")
	if i < 0 {
		t.Fatal("README has no section \"With the official OpenAI SDK\"")
	}
	rest := readme[i:]
	a := strings.Index(rest, "\n```js\n")
	if a < 0 {
		t.Fatal("the section has no js block")
	}
	block, _, ok := strings.Cut(rest[a+len("\n```js\n"):], "```\n")
	if !ok || block != string(want) {
		t.Fatalf("the README's quick start differs from %s:\n%s", sdkQuickstart, block)
	}
}
