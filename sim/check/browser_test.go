package check

import (
	"context"
	"os/exec"
	"testing"
	"time"
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
