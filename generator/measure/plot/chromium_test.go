package plot

import (
	"context"
	"encoding/json"
	"html"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/testenv"
)

// The page is tested as a person sees it: Debian's chromium, headless and cut off from the
// network, opens it from a file, and the test reads back what it rendered. The test skips
// runs where CLICKGEN_TIERS selects chromium (internal/testenv).

// chromiumPath finds the browser where the chromium tier runs.
func chromiumPath(t *testing.T) string {
	t.Helper()
	p, missing := testenv.MustHaveCommand("apt-get install chromium", "chromium", "chromium-browser")
	testenv.Need(t, testenv.Chromium, missing)
	if testing.Short() {
		t.Skip("chromium test skipped in -short mode")
	}
	return p
}

// chromium runs the headless browser on the file page with args added, and returns its
// stdout and the console lines of its log.
func chromium(t *testing.T, bin, page string, args ...string) (stdout string, console []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(),
		// No network: every host resolves to nothing and every fetch goes to a closed proxy.
		"--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
		"--enable-logging=stderr", "--v=0", "--hide-scrollbars",
	}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errs.String())
	}
	// Chromium logs every console message (script errors, blocked fetches, policy
	// violations) as "...:INFO:CONSOLE:1] ..." or "...:CONSOLE(1)] ...".
	for _, l := range strings.Split(errs.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			console = append(console, l)
		}
	}
	return out.String(), console
}

// TestChromiumRendersPage: chromium opens a page of a stress run and a garbage run (one
// labelled in Russian) with their inventory, the stress run following a consumer group, draws
// all eleven charts, logs nothing on the
// console, and the screenshot is not blank.
func TestChromiumRendersPage(t *testing.T) {
	bin := chromiumPath(t)
	inv := &world.Inventory{GeneratorVersion: "test", Days: []world.InventoryDay{{Day: 1, Messages: 1100, Garbage: map[string]int{"not_an_object": 60, "vanishing": 30}, Redelivered: 10}},
		Snapshots: []world.InventorySnapshot{{Day: 0, Messages: 52, Garbage: map[string]int{"field_invalid": 2}}}}
	p := Page{Title: "Нагрузка: stress против garbage", Runs: []Run{followedRun("stress 1000/s"), garbageRun("мусор «день 1»")}, Inventory: inv}
	dir := t.TempDir()
	page := filepath.Join(dir, "run.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WriteHTML(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	dom, console := chromium(t, bin, page, "--dump-dom")
	if n := strings.Count(dom, "<svg"); n != 11 {
		t.Errorf("the rendered DOM has %d charts, want 11", n)
	}
	if !strings.Contains(dom, "мусор «день 1»") || !strings.Contains(dom, "<title>Нагрузка: stress против garbage</title>") {
		t.Errorf("the rendered DOM lost the Russian label or title")
	}
	if len(console) > 0 {
		t.Errorf("console messages while rendering:\n%s", strings.Join(console, "\n"))
	}

	shot := filepath.Join(dir, "run.png")
	if _, console = chromium(t, bin, page, "--screenshot="+shot, "--window-size=1000,4400"); len(console) > 0 {
		t.Errorf("console messages while taking the screenshot:\n%s", strings.Join(console, "\n"))
	}
	ink, total := inkOf(t, shot)
	// Eleven charts of lines and bars, a table and headings cover a few percent of the page;
	// a blank or unstyled page covers almost nothing.
	if ink*100 < total*2 {
		t.Errorf("the screenshot is nearly blank: %d of %d pixels are not white", ink, total)
	}
	t.Logf("screenshot %s: %d of %d pixels not white", shot, ink, total)
}

// inkOf counts the pixels of a PNG that are not (nearly) white.
func inkOf(t *testing.T, path string) (ink, total int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				ink++
			}
		}
	}
	return ink, b.Dx() * b.Dy()
}

// TestChromiumSeesConsoleErrors is the control of the check above: a page that fetches from
// the network and runs a script is caught by it, so a clean page passing means something.
func TestChromiumSeesConsoleErrors(t *testing.T) {
	bin := chromiumPath(t)
	page := filepath.Join(t.TempDir(), "bad.html")
	bad := `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><img src="http://example.com/x.png">` +
		`<script>console.error("boom")</script></body></html>`
	if err := os.WriteFile(page, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, console := chromium(t, bin, page, "--dump-dom")
	if !strings.Contains(strings.Join(console, "\n"), "boom") {
		t.Errorf("console.error was not seen; console lines:\n%s", strings.Join(console, "\n"))
	}
}

// writePage writes p's HTML to path.
func writePage(t *testing.T, p Page, path string) string {
	t.Helper()
	var b strings.Builder
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// measuring is a copy of page that measures itself once laid out, with a script (the page
// forbids scripts: the copy drops the policy) that writes what it found, as JSON, into a
// <pre id="measured"> that --dump-dom shows: where the legend draws label (its whole text
// and the box of its glyphs), whether the line named small is drawn against a right-hand axis
// and how high it reaches, and the colour of the first "Not drawn" sentence.
func measuring(page, label, small string) string {
	const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	script := `<pre id="measured"></pre><script>
const out = {};
const span = [...document.querySelectorAll('.legend .label')].find(e => e.textContent.startsWith(` + q(label) + `));
if (span) {
  const r = document.createRange(); r.selectNodeContents(span);
  const rs = [...r.getClientRects()];
  out.label = {text: span.textContent, left: Math.min(...rs.map(x => x.left)), right: Math.max(...rs.map(x => x.right)),
    top: Math.min(...rs.map(x => x.top)), bottom: Math.max(...rs.map(x => x.bottom)),
    clipped: span.scrollWidth > span.clientWidth, page: document.documentElement.clientWidth};
}
const line = [...document.querySelectorAll('polyline')].find(p => p.querySelector('title').textContent === ` + q(small) + `);
if (line) {
  const svg = line.ownerSVGElement;
  out.small = {rightAxis: svg.querySelectorAll('.raxis').length > 0, top: line.getBBox().y,
    legend: [...svg.nextElementSibling.querySelectorAll('.label')].map(e => e.textContent)};
}
out.table = {right: document.querySelector('table').getBoundingClientRect().right, page: document.documentElement.clientWidth};
const nd = document.querySelector('.nodata');
if (nd) out.nodata = {text: nd.textContent, color: getComputedStyle(nd).color, fontStyle: getComputedStyle(nd).fontStyle};
document.getElementById('measured').textContent = JSON.stringify(out);
</script>`
	return strings.Replace(strings.Replace(page, csp, "", 1), "</body>", script+"</body>", 1)
}

// TestChromiumLabelsAxesNotDrawn (issue 31), as chromium renders the page: a 60-character
// label is whole in the legend, inside the page's width and not clipped, and its last
// character is on the screenshot (two pages differing only there differ in the pixels of its
// box), and a 300-letter label without a space wraps in the runs' table instead of widening
// it past the page; a 100/s run beside 20000/s ones is drawn against the right-hand axis,
// reaching the top half of the plot, and the legend says so; a chart without data says "Not
// drawn" in grey, not red italics.
func TestChromiumLabelsAxesNotDrawn(t *testing.T) {
	bin := chromiumPath(t)
	label := "A run whose label takes sixty characters, shown whole: end Z"
	if n := len([]rune(label)); n != 60 {
		t.Fatalf("the label has %d characters", n)
	}
	other := label[:len(label)-1] + "W"
	solid := strings.Repeat("Ж", 300) // no place to break it
	page := func(l string) Page {
		return Page{Runs: []Run{scaled(l, 20), scaled("small 100/s", 0.1), scaled(solid, 19)}}
	}
	dir := t.TempDir()
	html := writePage(t, page(label), filepath.Join(dir, "a.html"))
	writePage(t, page(other), filepath.Join(dir, "b.html"))
	m := filepath.Join(dir, "measure.html")
	if err := os.WriteFile(m, []byte(measuring(html, label, "small 100/s achieved")), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, console := chromium(t, bin, m, "--dump-dom", "--window-size=1000,1600", "--force-device-scale-factor=1")
	if len(console) > 0 {
		t.Errorf("console messages while measuring:\n%s", strings.Join(console, "\n"))
	}
	i, j := strings.Index(dom, `<pre id="measured">`), strings.Index(dom, "</pre>")
	if i < 0 || j < i {
		t.Fatalf("no measurement in the rendered DOM:\n%s", dom)
	}
	var got struct {
		Label *struct {
			Text                     string
			Left, Right, Top, Bottom float64
			Clipped                  bool
			Page                     float64
		}
		Small *struct {
			RightAxis bool
			Top       float64
			Legend    []string
		}
		Nodata *struct{ Text, Color, FontStyle string }
		Table  *struct{ Right, Page float64 }
	}
	if err := json.Unmarshal([]byte(html2text(dom[i+len(`<pre id="measured">`):j])), &got); err != nil {
		t.Fatalf("measurement %q: %v", dom[i:j], err)
	}
	t.Logf("label %+v; small %+v; not drawn %+v", got.Label, got.Small, got.Nodata)
	switch l := got.Label; {
	case l == nil:
		t.Errorf("the legend has no item %q", label+" achieved")
	case l.Text != label+" achieved" || l.Clipped || l.Left < 0 || l.Right > l.Page || l.Right-l.Left < 200:
		t.Errorf("the legend item %q is not whole and inside the page (%.0f to %.0f of %.0f px, clipped %v)", l.Text, l.Left, l.Right, l.Page, l.Clipped)
	default:
		a, b := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
		for page, shot := range map[string]string{filepath.Join(dir, "a.html"): a, filepath.Join(dir, "b.html"): b} {
			if _, console := chromium(t, bin, page, "--screenshot="+shot, "--window-size=1000,1600", "--force-device-scale-factor=1"); len(console) > 0 {
				t.Errorf("console messages while taking a screenshot:\n%s", strings.Join(console, "\n"))
			}
		}
		if n := differing(t, a, b, l.Left, l.Top, l.Right, l.Bottom); n == 0 {
			t.Errorf("the pages whose labels differ in their last character look the same in the legend's box: the end of the label is not drawn")
		} else {
			t.Logf("%d pixels of the legend item's box differ with its last character", n)
		}
	}
	switch s := got.Small; {
	case s == nil:
		t.Errorf("no line 'small 100/s achieved'")
	case !s.RightAxis || s.Top > padT+plotH/2 || !slices.Contains(s.Legend, "small 100/s achieved (right axis)"):
		t.Errorf("the small run's line: right axis %v, top at %.1f (the plot's half is %d), legend %q; want its own axis, high in the plot, said in the legend",
			s.RightAxis, s.Top, padT+plotH/2, s.Legend)
	}
	if tb := got.Table; tb == nil || tb.Right > tb.Page {
		t.Errorf("the runs' table, with a label of 300 letters without a space, is wider than the page: %+v", tb)
	}
	switch n := got.Nodata; {
	case n == nil:
		t.Errorf("no chart says it was not drawn")
	case !strings.HasPrefix(n.Text, "Not drawn for these reports: ") || n.Color != "rgb(85, 85, 85)" || n.FontStyle != "normal":
		t.Errorf("the not-drawn sentence %q is %s, %s; want it in plain grey, rgb(85, 85, 85)", n.Text, n.Color, n.FontStyle)
	}
}

// html2text undoes the escaping of text in the dumped DOM.
func html2text(s string) string { return html.UnescapeString(s) }

// differing counts the pixels that differ between the PNGs a and b within the box (x0, y0)
// to (x1, y1), in pixels.
func differing(t *testing.T, a, b string, x0, y0, x1, y1 float64) int {
	t.Helper()
	load := func(path string) image.Image {
		f, err := os.Open(path)
		if err != nil {
			t.Fatalf("no screenshot: %v", err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		return img
	}
	ia, ib := load(a), load(b)
	if ia.Bounds() != ib.Bounds() || y1 > float64(ia.Bounds().Max.Y) {
		t.Fatalf("screenshots of %v and %v, the box reaching %.0f", ia.Bounds(), ib.Bounds(), y1)
	}
	n := 0
	for y := int(y0); y < int(math.Ceil(y1)); y++ {
		for x := int(x0); x < int(math.Ceil(x1)); x++ {
			if ia.At(x, y) != ib.At(x, y) {
				n++
			}
		}
	}
	return n
}
