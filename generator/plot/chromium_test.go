package plot

import (
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/world"
)

// The page is tested as a person sees it: Debian's chromium, headless and cut off from the
// network, opens it from a file, and the test reads back what it rendered. The test skips
// when chromium is absent, unless CLICKGEN_REQUIRE_CHROMIUM=1 (set by .ci/run) makes it
// mandatory.

// chromiumPath finds the browser or skips the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("chromium test skipped in -short mode")
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CLICKGEN_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("chromium is not installed and CLICKGEN_REQUIRE_CHROMIUM=1 (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium); set CLICKGEN_REQUIRE_CHROMIUM=1 to make this test mandatory")
	return ""
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
