package tests

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

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
	t.Parallel() // its own processes and brokers: see the package comment
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
		p := start(t, bin, "", nil, "batch", "--day", "0", "--file", path, "--delivery-timeout", "10m", "--flush-timeout", "10m")
		r, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		io.ReadFull(r, make([]byte, 1)) // writing has begun; the rest of the first write blocks
		p.cmd.Process.Signal(syscall.SIGTERM)
		// The signal is heard at once, however its timing falls: a write the run was waiting
		// on is abandoned, and the run exits 130; a run that was still generating flushes
		// what it queued (with --flush-timeout 10m: a wait of ten minutes on this reader),
		// and a second signal ends that wait at once. Either way the run says it is flushing
		// first; the second signal goes then, and ends the run if the first did not.
		second := false
		timeout := time.After(30 * time.Second)
	wait:
		for {
			select {
			case line, ok := <-p.lines:
				if !ok {
					break wait
				}
				p.seen = append(p.seen, line)
				if strings.Contains(line, "clickgen: flushing the ") && !second {
					second = true
					p.cmd.Process.Signal(syscall.SIGTERM)
				}
			case <-timeout:
				p.cmd.Process.Kill()
				t.Fatalf("SIGTERM during a blocked write: still running after 30 s:\n%s", strings.Join(p.seen, "\n"))
			}
		}
		code, errs := p.exit(t, 10*time.Second)
		if code != 130 || !strings.Contains(errs, "batch: interrupted") && !strings.Contains(errs, "second signal") {
			t.Errorf("SIGTERM during a blocked write (a second one: %v): exit %d, stderr %q; want exit 130", second, code, errs)
		}
		t.Logf("exit %d after one SIGTERM%s:\n%s", code, map[bool]string{true: " and a second during the flush"}[second], lastLines(errs))
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
