package linearize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

// manyPartitions is a history with forty healthy turns and one whose
// reads regress, as a campaign history is: many partitions, one of them
// illegal. Every turn runs natively, unsettled: its partition holds only
// its reads.
func manyPartitions() []porcupine.Operation {
	h := newHistory()
	for i := range 40 {
		s, tn := fmt.Sprintf("s%d", i), fmt.Sprintf("t%d", i)
		base := int64(i) * 100 * ms
		h.read(s, tn, base+10*ms, base+20*ms, TurnQueued)
		h.read(s, tn, base+30*ms, base+40*ms, TurnRunning)
	}
	// a long partition: its illegal point is far to the right
	for i := range 150 {
		at := 2000*ms + int64(i)*20*ms
		h.read("bad", "tbad", at, at+10*ms, TurnRunning)
	}
	h.read("bad", "tbad", 5030*ms, 5040*ms, TurnQueued)
	return h.ops()
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
	faults := []Fault{
		{At: 5 * ms, Until: 6 * ms, Kind: "early_fault", Detail: "long before the bad turn"},
		{At: 5020 * ms, Until: 9000 * ms, Kind: "conn_loss", Detail: "d1 conn c3 dropped"},
	}
	res := Check(manyPartitions(), Options{HTML: &html, Faults: faults})
	if res.Result != porcupine.Illegal || !res.HTMLWritten || res.Partitions < 40 {
		t.Fatalf("%s written=%v err=%v", res, res.HTMLWritten, res.HTMLError)
	}
	page := html.String()
	data := pageData(t, page)
	if parts := data["Partitions"].([]any); len(parts) != 1 {
		t.Fatalf("the page must hold only the illegal partition, has %d", len(parts))
	}
	for _, want := range []string{"Not linearizable: " + res.Illegal[0], "<title>" + res.Illegal[0] + " not linearizable",
		"d1 conn c3 dropped", "jump.dispatchEvent(new MouseEvent('click'))",
		// the violation in words: what was observed, what was allowed
		"<b>Observed:</b> <code>read tbad -&gt; queued</code> (called at 5.03s, returned at 5.04s)",
		"<b>Before it</b> 150 of the 151 operations linearize, the last <code>read tbad -&gt; running</code> (returned at 4.99s)",
		"<b>a linearizable history allows here</b> only running, failed, cancelled for Turn tbad: its public state never goes back",
		"151 operations from 2s to 5.04s; 1 faults overlap them"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "early_fault") {
		t.Error("a fault outside the partition's time must not widen the page")
	}
}

// illegalPage writes the visualization of manyPartitions to a file and
// returns its path and directory (also the browser's profile).
func illegalPage(t *testing.T) (page, dir string) {
	t.Helper()
	var html bytes.Buffer
	res := Check(manyPartitions(), Options{HTML: &html})
	if !res.HTMLWritten {
		t.Fatal(res.HTMLError)
	}
	dir = t.TempDir()
	page = filepath.Join(dir, "lin.html")
	if err := os.WriteFile(page, html.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return page, dir
}

// TestVisualizationInABrowser opens the page in headless Chromium: it must
// render one partition, whose height fits a screen, and open unscrolled
// with the violation banner in view; opened with #first-error (or through
// the banner's link) it scrolls to the first illegal linearization point,
// which lies thousands of pixels to the right (at x≈31,700 of a
// 1,280-pixel viewport without the jump).
func TestVisualizationInABrowser(t *testing.T) {
	browser := needChromium(t)
	page, dir := illegalPage(t)
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
	ints := func(s string) []int {
		var out []int
		for _, f := range strings.Split(s, ",") {
			var n int
			fmt.Sscan(f, &n)
			out = append(out, n)
		}
		return out
	}
	m := regexp.MustCompile(`data-viewport="(\d+,\d+)" data-scroll="(-?\d+,-?\d+)" data-banner="(-?\d+,-?\d+,-?\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the page did not report its scroll and banner:\n%.1500s", dom)
	}
	vp, scroll, banner := ints(m[1]), ints(m[2]), ints(m[3])
	if scroll[0] != 0 || scroll[1] != 0 {
		t.Fatalf("the page scrolled on load to %v: the banner must be the first thing seen", scroll)
	}
	if banner[0] < 0 || banner[1] < 0 || banner[2] > vp[1]/2 {
		t.Fatalf("the banner (left %d, top %d, bottom %d) must sit in the top half of a %v viewport", banner[0], banner[1], banner[2], vp)
	}
	// on request, the page opens at the first illegal point
	dom = runChromium(t, browser, dir, "--dump-dom", "--window-size=1280,800", "file://"+page+"#first-error")
	m = regexp.MustCompile(`data-first-error-at="(-?\d+,-?\d+)" data-viewport="(\d+,\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("#first-error did not jump:\n%.1500s", dom)
	}
	at, vp := ints(m[1]), ints(m[2])
	if at[0] < 0 || at[0] > vp[0] || at[1] < 0 || at[1] > vp[1] {
		t.Fatalf("the first illegal point is at %v of a %v viewport: #first-error must open at it", at, vp)
	}
}

// bannerColor is the banner's background in bannerStyle.
var bannerColor = [3]uint8{0x7a, 0x00, 0x19}

// TestVisualizationScreenshotShowsTheViolation takes a headless Chromium
// screenshot of the page as it opens and decodes it: the violation banner
// (bannerColor) must cover a substantial area of the screenshot's top, with
// its words drawn on it (light pixels inside the banner), and the page must
// not be blank.
func TestVisualizationScreenshotShowsTheViolation(t *testing.T) {
	browser := needChromium(t)
	page, dir := illegalPage(t)
	shot := filepath.Join(dir, "shot.png")
	runChromium(t, browser, dir, "--screenshot="+shot, "--window-size=1280,800", "file://"+page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	bounds := img.Bounds()
	if bounds.Dx() != 1280 || bounds.Dy() != 800 {
		t.Fatalf("screenshot is %v, want 1280x800", bounds)
	}
	near := func(c color.Color, want [3]uint8, tol int) bool {
		r, g, b, _ := c.RGBA()
		d := func(v uint32, w uint8) bool { x := int(v>>8) - int(w); return x >= -tol && x <= tol }
		return d(r, want[0]) && d(g, want[1]) && d(b, want[2])
	}
	top := 320 // the top 40% of the screenshot
	banner, nonWhite := 0, 0
	minX, minY, maxX, maxY := bounds.Max.X, bounds.Max.Y, -1, -1
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			c := img.At(x, y)
			if !near(c, [3]uint8{255, 255, 255}, 8) {
				nonWhite++
			}
			if y < top && near(c, bannerColor, 6) {
				banner++
				minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
			}
		}
	}
	if area := bounds.Dx() * top; banner < area/4 {
		t.Fatalf("the banner colour covers %d of %d pixels of the top %d rows (%.1f%%): the violation is not shown above the fold",
			banner, area, top, 100*float64(banner)/float64(area))
	}
	if total := bounds.Dx() * bounds.Dy(); nonWhite < total/10 {
		t.Fatalf("only %d of %d pixels are not white: the page is blank", nonWhite, total)
	}
	text := 0 // the statement's words: light pixels inside the banner's box
	for y := minY; y <= maxY; y++ {
		for x := minX; x <= maxX; x++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r>>8 > 200 && g>>8 > 180 && b>>8 > 150 {
				text++
			}
		}
	}
	if box := (maxX - minX + 1) * (maxY - minY + 1); text < box/50 {
		t.Fatalf("the banner (%d,%d)-(%d,%d) holds %d light pixels of %d: no words on it", minX, minY, maxX, maxY, text, box)
	}
}

// allowedNext states, for each family of the model, what a linearizable
// history allows from a state, in the banner's words.
func TestAllowedNextInWords(t *testing.T) {
	for _, c := range []struct {
		state any
		in    Input
		want  string
	}{
		{turnModel{rank: 3, terminal: TurnCancelled}, Input{Op: OpRead, Turn: "t1"},
			"only cancelled for Turn t1, which it already showed: a terminal state never changes"},
		{turnModel{rank: 1}, Input{Op: OpRead, Turn: "t1"},
			"only preparing, running, failed, cancelled for Turn t1: its public state never goes back"},
		{turnModel{rank: 2, truth: truthCompleted}, Input{Op: OpRead, Turn: "t1"},
			"only running, completed, failed, cancelled for Turn t1"},
		{nil, Input{Op: OpRead, Turn: "t1"}, "only queued, preparing, running, failed, cancelled for Turn t1"},
		{inputModel{pos: 1}, Input{Op: OpSteer, Turn: "t2", Input: "i3", Log: []string{"i1", "i2"}},
			"only if its input is the next one the Harness applied (i2; applied in order: [i1 i2])"},
		{inputModel{pos: 1}, Input{Op: OpEnd, Turn: "t2", Log: []string{"i1", "i2"}},
			"the end of Turn t2 only once every input the Harness applied ([i1 i2]) was claimed by a steer, but 1 of 2 were"},
		{fileModel{known: true, val: File{Present: true, Value: "v1"}}, Input{Op: OpGet},
			`only "v1", the file's value after the last write`},
		{fileModel{known: true}, Input{Op: OpGet}, "only absent,"},
	} {
		if got := allowedNext(c.state, c.in); !strings.Contains(got, c.want) {
			t.Errorf("allowedNext(%+v, %v):\n%s\nwant it to contain %q", c.state, c.in.Op, got, c.want)
		}
	}
}
