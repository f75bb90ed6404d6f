package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// manyPartitions is a ledger with forty healthy turns and one whose reads
// regress, as a campaign history is: many partitions, one of them illegal.
func manyPartitions() *Ledger {
	l := NewLedger()
	for i := range 40 {
		s, tn, r := fmt.Sprintf("s%d", i), fmt.Sprintf("t%d", i), fmt.Sprintf("r%d", i)
		turnWithRun(l, s, tn, r)
		base := int64(i) * 100 * ms
		l.ReadTurn(base+10*ms, base+20*ms, s, tn, TurnQueued)
		l.ReadTurn(base+30*ms, base+40*ms, s, tn, TurnRunning)
	}
	turnWithRun(l, "bad", "tbad", "rbad")
	// a long partition: its illegal point is far to the right
	for i := range 150 {
		at := 2000*ms + int64(i)*20*ms
		l.ReadTurn(at, at+10*ms, "bad", "tbad", TurnRunning)
	}
	l.ReadTurn(5030*ms, 5040*ms, "bad", "tbad", TurnQueued)
	return l
}

// pageData returns the visualization data embedded in a page.
func pageData(t *testing.T, page string) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`(?s)const data = (\{.*?\})\n`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no visualization data in the page")
	}
	var data map[string]any
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatal(err)
	}
	return data
}

func TestVisualizationHoldsOnlyTheIllegalPartition(t *testing.T) {
	var html bytes.Buffer
	faults := []FaultEvent{
		{At: 5 * ms, Until: 6 * ms, Kind: "early_fault", Detail: "long before the bad turn"},
		{At: 5020 * ms, Until: 9000 * ms, Kind: "conn_loss", Detail: "d1 conn c3 dropped"},
	}
	res := Linearize(manyPartitions(), LinearizeOptions{HTML: &html, Faults: faults})
	if res.Result != porcupine.Illegal || !res.HTMLWritten || res.Partitions < 40 {
		t.Fatalf("%s written=%v err=%v", res, res.HTMLWritten, res.HTMLError)
	}
	page := html.String()
	data := pageData(t, page)
	if parts := data["Partitions"].([]any); len(parts) != 1 {
		t.Fatalf("the page must hold only the illegal partition, has %d", len(parts))
	}
	for _, want := range []string{"Not linearizable: " + res.Illegal[0], "<title>" + res.Illegal[0] + " not linearizable",
		"d1 conn c3 dropped", "jump.dispatchEvent(new MouseEvent('click'))"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "early_fault") {
		t.Error("a fault outside the partition's time must not widen the page")
	}
}

// TestVisualizationInABrowser opens the page in headless Chromium: it must
// render one partition, whose height fits a screen, and open scrolled to
// the first illegal linearization point, which lies thousands of pixels to
// the right (without the jump it is at x≈31,700 of a 1,280-pixel viewport).
func TestVisualizationInABrowser(t *testing.T) {
	testgate.Long(t) // starts headless Chromium
	browser := findChromium()
	if browser == "" && os.Getenv("CI") != "" {
		t.Fatal("CI must run the browser check: .ci/run installs chromium")
	}
	if browser == "" {
		t.Skip("no chromium on this machine (apt-get install chromium); .ci/run installs it")
	}
	var html bytes.Buffer
	res := Linearize(manyPartitions(), LinearizeOptions{HTML: &html})
	if !res.HTMLWritten {
		t.Fatal(res.HTMLError)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "lin.html")
	if err := os.WriteFile(page, html.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := runChromium(t, browser, dir, "--dump-dom", "--window-size=1280,800", "file://"+page)
	var width, height float64
	for _, tag := range regexp.MustCompile(`<svg[^>]*>`).FindAllString(dom, -1) {
		w := regexp.MustCompile(` width="([0-9.]+)"`).FindStringSubmatch(tag)
		h := regexp.MustCompile(` height="([0-9.]+)"`).FindStringSubmatch(tag)
		if w != nil && h != nil && !strings.Contains(tag, "viewBox") { // the canvas, not the legend
			fmt.Sscan(w[1], &width)
			fmt.Sscan(h[1], &height)
		}
	}
	if width == 0 || height > 700 || width < 2*1280 {
		t.Fatalf("canvas %gx%g px: one partition must fit the screen's height (and this one is long)\n%.1500s",
			width, height, dom)
	}
	// where the first illegal point lies once the page has opened, in
	// viewport pixels, as the browser laid it out
	m := regexp.MustCompile(`data-first-error-at="(-?\d+),(-?\d+)" data-viewport="(\d+),(\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the page did not report its first error's position:\n%.1500s", dom)
	}
	var x, y, vw, vh int
	fmt.Sscan(m[1], &x)
	fmt.Sscan(m[2], &y)
	fmt.Sscan(m[3], &vw)
	fmt.Sscan(m[4], &vh)
	if x < 0 || x > vw || y < 0 || y > vh {
		t.Fatalf("the first illegal point is at (%d,%d) of a %dx%d viewport: the page must open at it", x, y, vw, vh)
	}
}
