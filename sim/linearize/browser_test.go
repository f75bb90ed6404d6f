package linearize

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// findChromium returns the path of a headless-capable Chromium, or "".
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// needChromium returns the browser, failing the test in CI (CI set: .ci/run
// installs chromium) and skipping it elsewhere only when none is installed.
func needChromium(t *testing.T) string {
	t.Helper()
	testgate.Long(t) // starts headless Chromium
	browser := findChromium()
	if browser == "" && os.Getenv("CI") != "" {
		t.Fatal("CI must run the browser check: .ci/run installs chromium")
	}
	if browser == "" {
		t.Skip("no chromium on this machine (apt-get install chromium); .ci/run installs it")
	}
	return browser
}

// runChromium runs headless Chromium with a bounded time and returns its
// standard output.
func runChromium(t *testing.T, browser, profile string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
		"--virtual-time-budget=5000", "--hide-scrollbars"}
	out, err := exec.CommandContext(ctx, browser, append(base, args...)...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", browser, args, err)
	}
	return string(out)
}
