package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// Issue 24, round three of hostile input: absurd values refused with exit 2 before anything is
// sent, naming the flag and its bound.

// refused runs clickgen with args and fails unless it exits 2 with want in stderr and file
// (if not "") was not created. It returns stderr's first line, the refusal.
func refused(t *testing.T, file, want string, args ...string) string {
	t.Helper()
	_, errs, code := clickgen(t, args...)
	if code != 2 || !strings.Contains(errs, want) {
		t.Fatalf("%v: exit %d, stderr %q; want exit 2 saying %q", args, code, errs, want)
	}
	if file != "" {
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("%v: %s was created before the refusal", args, file)
		}
	}
	line, _, _ := strings.Cut(errs, "\n")
	return line
}

// TestWorkersBounded is issue 24 item 1: --workers 1000000000 grew to 23.4 GB (World.Play made
// a channel of 2 × workers and started that many goroutines). Every verb with --workers
// refuses more than world.MaxWorkers in one wording; the bound itself plays, and the memory
// check counts the workers' window of batches.
func TestWorkersBounded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	for _, n := range []string{"1025", "100000", "1000000000", "-1"} {
		for _, args := range [][]string{
			{"batch", "--day", "0", "--file", file},
			{"inventory", "--day", "0"},
			{"verify", "--day", "0", "--brokers", "127.0.0.1:1"},
			{"run", "smoke"},
		} {
			line := refused(t, file, "--workers "+n+": want 0 (all cores) to 1024", append(args, "--workers", n)...)
			if n == "1000000000" {
				t.Logf("%s: %s", args[0], line)
			}
		}
	}
	if _, errs, code := clickgen(t, "inventory", "--day", "0", "--scale", "0.01", "--workers", "1024"); code != 0 {
		t.Errorf("inventory --workers 1024: exit %d, %s", code, errs)
	}
	// At scale 100 a day is 1465 batches: 1024 workers hold 2048 in flight, 7 GB more than two.
	line := refused(t, file, "with --workers 1024 needs about", "batch", "--day", "0", "--scale", "100", "--workers", "1024", "--max-memory", "4GiB", "--file", file)
	t.Logf("memory: %s", line)
}

// TestGarbageWeightsBounded is issue 24 item 4 at the command line: a weight past the bound
// is refused as --garbage-mix before anything is sent (field_invalid=4294967296 panicked at
// the first snapshot after all hits were sent; not_an_object=4294967296 panicked inventory).
func TestGarbageWeightsBounded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	for _, tc := range [][]string{
		{"inventory", "--day", "0", "--garbage", "0.1", "--garbage-mix", "not_an_object=4294967296"},
		{"batch", "--day", "0", "--file", file, "--garbage", "0.1", "--garbage-mix", "not_an_object=9223372036854775807,keyset_mismatch=9223372036854775807"},
		{"run", "fill", "--garbage", "0.01", "--garbage-mix", "key_field_unparsed=1,field_invalid=4294967296"},
		{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--garbage", "0.01", "--garbage-mix", "field_invalid=1000001"},
	} {
		t.Logf("%s: %s", tc[0], refused(t, file, "weight", tc...))
		_, errs, _ := clickgen(t, tc...)
		if !strings.Contains(errs, "want at most 1000000") || !strings.Contains(errs, "garbage-mix") {
			t.Errorf("%v: stderr %q; want --garbage-mix named with the bound 1000000", tc, errs)
		}
	}
	// Within the bound weights still weigh: a mix scaled by 500 000 gives the same class
	// counts. (That the bytes of weights within the bound are unchanged is the garbage golden
	// files' test, generator/produce/world TestGarbageGolden.)
	a := inventoryOf(t, "--day", "0", "--scale", "0.05", "--garbage", "0.1", "--garbage-mix", "not_an_object=1,keyset_mismatch=2")
	b := inventoryOf(t, "--day", "0", "--scale", "0.05", "--garbage", "0.1", "--garbage-mix", "not_an_object=500000,keyset_mismatch=1000000")
	if fmt.Sprint(a.Days[0].Garbage) != fmt.Sprint(b.Days[0].Garbage) || len(a.Days[0].Garbage) == 0 {
		t.Errorf("garbage of weights 1:2 %v, of 500000:1000000 %v; want the same draws", a.Days[0].Garbage, b.Days[0].Garbage)
	}
}

// TestInjectDayBounded is issue 24 item 5: inject had no day bound (--day 2147483647 panicked,
// 9223372036854775807 ran out of memory, 29105 put 1970 into UTCEventTime). It now refuses
// what every other verb refuses, in the same words.
func TestInjectDayBounded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.jsonl")
	for _, tc := range [][]string{
		{"--kind", "hits", "--class", "accepted_bad", "--day", "29105"},
		{"--kind", "hits", "--class", "accepted_bad", "--day", "2147483647"},
		{"--kind", "hits", "--class", "accepted_bad", "--day", "9223372036854775807"},
		{"--kind", "orders", "--class", "field_invalid", "--day", "100000"},
	} {
		day := tc[len(tc)-1]
		line := refused(t, file, "--day: day "+day+": the last model day is 29104 (2106-02-06)", append([]string{"inject", "--file", file}, tc...)...)
		t.Logf("--day %s: %s", day, line)
	}
	_, errs, _ := clickgen(t, "batch", "--day", "29105", "--file", file)
	if !strings.Contains(errs, "day 29105: the last model day is 29104 (2106-02-06): UTCEventTime is a DateTime, which ends in 2106") {
		t.Errorf("batch --day 29105: %q; want the wording inject now shares", errs)
	}
	if _, errs, code := clickgen(t, "inject", "--file", file, "--kind", "hits", "--class", "accepted_bad", "--day", "29104"); code != 0 {
		t.Errorf("inject --day 29104: exit %d, %s", code, errs)
	}
}

// catalogFile writes the embedded catalog with its first product's row replaced by row.
func catalogFile(t *testing.T, row string) string {
	t.Helper()
	lines := strings.Split(string(world.DefaultCatalogCSV), "\n")
	lines[1] = row
	path := filepath.Join(t.TempDir(), "catalog.csv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCatalogValuesBounded is issue 24 medium item 5 and low item 15: a price of
// 9223372036854775807 made a negative productPrice and an unencodable snapshot, SKUs with
// "\%<>' made invalid product URLs. Both are refused at load, naming the line, the column and
// the bound; the dearest allowed price plays a whole snapshot, and the stand's fixture and the
// built-in catalog still load.
func TestCatalogValuesBounded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	for _, tc := range []struct{ row, want string }{
		{"HOME-0001,Органайзер,Товары для дома,Домовит,9223372036854775807,обычный", "line 2, column 5 (price): price 9223372036854775807: want at most 214457125111475 kopecks"},
		{`"HOME""1",Органайзер,Товары для дома,Домовит,129000,обычный`, `line 2, column 1 (sku): SKU "HOME\"1": want a code of A–Z a–z 0–9 - . _ ~`},
		{`HOME\%<>'1,Органайзер,Товары для дома,Домовит,129000,обычный`, `as a URL path segment carries it unescaped`},
	} {
		cat := catalogFile(t, tc.row)
		t.Logf("%s", refused(t, file, tc.want, "batch", "--day", "0", "--file", file, "--catalog", cat))
	}
	// Every product at MaxPrice: day 1's snapshot (the orders of day 0) is encoded whole.
	lines := strings.Split(strings.TrimSpace(string(world.DefaultCatalogCSV)), "\n")
	for i := 1; i < len(lines); i++ {
		f := strings.Split(lines[i], ",")
		f[4] = "214457125111475" // world.MaxPrice
		lines[i] = strings.Join(f, ",")
	}
	dear := filepath.Join(t.TempDir(), "dear.csv")
	os.WriteFile(dear, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	if _, errs, code := clickgen(t, "snapshot", "--day", "1", "--catalog", dear, "--file", file); code != 0 {
		t.Errorf("snapshot --day 1 with every price at the bound: exit %d, %s", code, errs)
	}
	for _, cat := range []string{standCatalog, ""} {
		args := []string{"inventory", "--day", "0", "--scale", "0.01"}
		if cat != "" {
			args = append(args, "--catalog", cat)
		}
		if _, errs, code := clickgen(t, args...); code != 0 {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
}

// TestCatalogCountedInMemory is issue 24 item 7 (the check): the memory check counts the
// catalog's rows and file, so a catalog the machine cannot hold is refused before the run
// starts, naming it (a 1 000 000-row catalog died with Go's out of memory 53 s in).
func TestCatalogCountedInMemory(t *testing.T) {
	var b strings.Builder
	b.WriteString("sku,name,category,brand,price,demand\n")
	cats := []string{"Товары для дома", "Текстиль", "Посуда", "Бытовая техника", "Детские товары", "Одежда и обувь"}
	for i := range 100_000 {
		fmt.Fprintf(&b, "P-%07d,Товар номер %d,%s,Бренд,%d,обычный\n", i, i, cats[i%6], 1000+i)
	}
	cat := filepath.Join(t.TempDir(), "big.csv")
	os.WriteFile(cat, []byte(b.String()), 0o644)
	line := refused(t, "", "with a catalog of 100000 products", "inventory", "--day", "0", "--catalog", cat, "--max-memory", "150MiB")
	t.Logf("%s", line)
	if _, errs, code := clickgen(t, "inventory", "--day", "0", "--catalog", standCatalog, "--max-memory", "150MiB"); code != 0 {
		t.Errorf("the stand's catalog under --max-memory 150MiB: exit %d, %s", code, errs)
	}
}

// TestSpeedTooSmallRefused is issue 24 item 6: live --speed 1e-9 exited 0 after 1 of 52 100
// events saying "stopped at the duration limit", run fill --speed 1e-9 after 1 hit of 405 714.
// A speed whose day (or run) does not fit a time.Duration is refused before anything is sent.
func TestSpeedTooSmallRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	for _, speed := range []string{"1e-9", "1e-15", "1e-300", "5e-324"} {
		line := refused(t, file, "want a speed of at least 9.4e-06", "live", "--day", "0", "--speed", speed, "--file", file)
		if speed == "1e-9" {
			t.Logf("live: %s", line)
		}
	}
	t.Setenv("GENERATOR_SPEED", "1e-9")
	refused(t, file, "want a speed of at least 9.4e-06", "live", "--day", "0", "--file", file)
	t.Setenv("GENERATOR_SPEED", "")
	t.Logf("run fill: %s", refused(t, "", "want a speed of at least", "run", "fill", "--speed", "1e-9"))
	// Eight days at 1e-5 are 2190 years: the first day fits, the run does not.
	t.Logf("run fill: %s", refused(t, "", "192h0m0s of model time would take", "run", "fill", "--speed", "1e-5"))
}

// TestReportOntoSpecialFilesRefused is issue 24 item 2 at the command line: --report onto a
// character device (a twin of /dev/null made with mknod), a FIFO or a link to /proc/self/fd/1
// replaced it with a regular file. Each is refused with exit 2 before anything is sent, and
// stays what it was. (The test makes its own nodes; it never touches /dev.)
func TestReportOntoSpecialFilesRefused(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "h.jsonl")
	nodes := map[string]string{"FIFO": filepath.Join(dir, "fifo")}
	if err := syscall.Mkfifo(nodes["FIFO"], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		nodes["character device"] = filepath.Join(dir, "null")
		nodes["link to a character device"] = filepath.Join(dir, "to-null")
		os.Symlink(filepath.Join(dir, "null"), nodes["link to a character device"])
	} else if os.Geteuid() == 0 {
		t.Fatalf("mknod as root: %v", err)
	} else {
		t.Logf("no character device: mknod needs root (%v)", err)
	}
	nodes["link to /proc/self/fd/1"] = filepath.Join(dir, "stdout")
	os.Symlink("/proc/self/fd/1", nodes["link to /proc/self/fd/1"])
	for name, path := range nodes {
		before, err := os.Stat(path)
		if err != nil || before.Mode().IsRegular() {
			continue // stdout of this test is a regular file: nothing to protect
		}
		line := refused(t, data, "it is not a regular file", "batch", "--day", "0", "--limit", "5", "--file", data, "--report", path)
		t.Logf("%s: %s", name, line)
		if after, err := os.Stat(path); err != nil || after.Mode().Type() != before.Mode().Type() {
			t.Errorf("%s %s: now %v (%v), was %v", name, path, after.Mode(), err, before.Mode())
		}
	}
}

// pipeRun starts the clickgen binary with args, its stdout the write end of a pipe whose
// read end is handed to reader (which closes it when done). It returns the exit code and
// stderr, failing the test if the run does not end within limit (it used to hang for ever).
func pipeRun(t *testing.T, bin string, limit time.Duration, reader func(r *os.File), args ...string) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	go reader(r)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), stderr.String()
		}
		return 0, stderr.String()
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v: still running after %v (stderr %q)", args, limit, stderr.String())
		return -1, ""
	}
}

// headC reads n bytes, then closes its end, as `head -c n` does.
func headC(n int64) func(*os.File) {
	return func(r *os.File) { io.CopyN(io.Discard, r, n); r.Close() }
}

// TestPipeReaderGone is issue 24 item 3 and low item 6: `batch --file /dev/stdout … | head -c
// 100000` stopped at "918 sent, 0 acked" for ever, deaf to both timeouts and SIGTERM (the file
// was opened read-write, so the process held the pipe's read end); `--file FIFO` with a
// reader that exits, or none, did the same; `batch --file - --report r.json | head -1` died
// of SIGPIPE (exit 141) with no summary and no report. Each now ends with exit 1 and the
// write error, the summary on stderr and the report written.
func TestPipeReaderGone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildClickgen(t)
	dir := t.TempDir()
	lastLines := func(s string) string {
		l := strings.Split(strings.TrimSpace(s), "\n")
		return strings.Join(l[max(0, len(l)-3):], "\n")
	}
	t.Run("dev-stdout", func(t *testing.T) {
		code, errs := pipeRun(t, bin, 60*time.Second, headC(100_000), "batch", "--day", "0", "--file", "/dev/stdout", "--flush-timeout", "5s", "--delivery-timeout", "5s")
		if code != 1 || !strings.Contains(errs, "broken pipe") {
			t.Errorf("exit %d, stderr %q; want exit 1 with EPIPE", code, errs)
		}
		t.Logf("exit %d:\n%s", code, lastLines(errs))
	})
	t.Run("fifo-reader-exits", func(t *testing.T) {
		path := filepath.Join(dir, "fifo")
		syscall.Mkfifo(path, 0o644)
		go func() {
			if r, err := os.Open(path); err == nil {
				headC(100_000)(r)
			}
		}()
		code, errs := pipeRun(t, bin, 60*time.Second, headC(0), "batch", "--day", "0", "--file", path)
		if code != 1 || !strings.Contains(errs, "broken pipe") {
			t.Errorf("exit %d, stderr %q; want exit 1 with EPIPE", code, errs)
		}
	})
	t.Run("fifo-no-reader", func(t *testing.T) {
		path := filepath.Join(dir, "lonely")
		syscall.Mkfifo(path, 0o644)
		code, errs := pipeRun(t, bin, 60*time.Second, headC(0), "batch", "--day", "0", "--file", path, "--connect-timeout", "1s")
		if code != 1 || !strings.Contains(errs, "no process opened the pipe for reading within 1s") {
			t.Errorf("exit %d, stderr %q; want exit 1, no reader", code, errs)
		}
		t.Logf("exit %d: %s", code, lastLines(errs))
	})
	t.Run("fifo-stalled-reader", func(t *testing.T) {
		path := filepath.Join(dir, "stalled")
		syscall.Mkfifo(path, 0o644)
		held := make(chan *os.File, 1)
		go func() { r, _ := os.Open(path); held <- r }() // opens, never reads
		code, errs := pipeRun(t, bin, 60*time.Second, headC(0), "batch", "--day", "0", "--file", path, "--delivery-timeout", "2s", "--flush-timeout", "2s")
		if r := <-held; r != nil {
			r.Close()
		}
		if code != 1 || !strings.Contains(errs, "did not finish within 2s") {
			t.Errorf("exit %d, stderr %q; want exit 1 after the delivery timeout", code, errs)
		}
		t.Logf("exit %d:\n%s", code, lastLines(errs))
	})
	t.Run("fifo-stalled-sigterm", func(t *testing.T) {
		path := filepath.Join(dir, "stalled-term")
		syscall.Mkfifo(path, 0o644)
		cmd := exec.Command(bin, "batch", "--day", "0", "--file", path, "--delivery-timeout", "10m", "--flush-timeout", "10m")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		io.ReadFull(r, make([]byte, 1)) // writing has begun; the rest of the first write blocks
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("SIGTERM during a blocked write: %v, stderr %q; want exit 130", err, stderr.String())
			}
			t.Logf("%v:\n%s", err, lastLines(stderr.String()))
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("SIGTERM during a blocked write: still running after 30 s (stderr %q)", stderr.String())
		}
	})
	t.Run("stdout-head-1", func(t *testing.T) {
		report := filepath.Join(dir, "r.json")
		code, errs := pipeRun(t, bin, 60*time.Second, func(r *os.File) {
			bufio.NewReader(r).ReadString('\n') // head -1
			r.Close()
		}, "batch", "--day", "0", "--file", "-", "--report", report)
		if code != 1 || !strings.Contains(errs, "broken pipe") || !strings.Contains(errs, "clickgen: hits: ") {
			t.Errorf("exit %d, stderr %q; want exit 1, EPIPE and the summary", code, errs)
		}
		b, err := os.ReadFile(report)
		if err != nil || !strings.Contains(string(b), `"failed"`) {
			t.Errorf("report %q, %v; want it written", b, err)
		}
		t.Logf("exit %d:\n%s", code, lastLines(errs))
	})
}
