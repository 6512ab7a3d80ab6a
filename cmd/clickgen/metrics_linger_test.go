package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMetricsLinger: a batch shorter than any scrape interval, run with --metrics-linger 1h,
// says it is waiting once it has ended, serves its final counts to the scrape that comes then,
// and exits 0 right after that scrape (the hour is only a cap); --metrics-linger without
// --metrics-addr, or below zero, is a usage error before anything is sent, and without it the
// run does not wait.
func TestMetricsLinger(t *testing.T) {
	stderr := newLineWatch()
	file := filepath.Join(t.TempDir(), "hits.jsonl")
	done := make(chan int, 1)
	go func() {
		err := run(context.Background(), []string{"batch", "--day", "0", "--limit", "250", "--file", file,
			"--metrics-addr", "127.0.0.1:0", "--metrics-linger", "1h"}, io.Discard, stderr)
		stderr.Close()
		done <- exitCode(err, io.Discard)
	}()
	line, _ := stderr.Await(0, metricsURL.MatchString)
	if line == "" || !strings.Contains(line, "at most 1h0m0s") {
		t.Fatalf("the run did not say where its metrics are and how long they outlive it: %q\n%s", line, stderr)
	}
	url := metricsURL.FindStringSubmatch(line)[1]
	if l, _ := stderr.Await(0, func(l string) bool { return strings.Contains(l, "serving its final metrics") }); l == "" {
		t.Fatalf("the run ended without waiting for a final scrape:\n%s", stderr)
	}
	select {
	case code := <-done:
		t.Fatalf("the run exited (%d) before the final scrape:\n%s", code, stderr)
	default:
	}
	fams := scrape(t, url)
	if got := sample(fams, "clickgen_messages_acked_total", "topic", "hits"); got != 250 {
		t.Errorf("final scrape: %v hits acknowledged, want all 250", got)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after the final scrape:\n%s", code, stderr)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the run did not end within a minute of its final scrape:\n%s", stderr)
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("the metrics server still answers after the run")
	}

	for _, args := range [][]string{
		{"--metrics-linger", "20s"},
		{"--metrics-addr", "127.0.0.1:0", "--metrics-linger", "-1s"},
	} {
		out, errs, code := clickgen(t, append([]string{"batch", "--day", "0", "--limit", "10", "--file", "-"}, args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, "--metrics-linger") {
			t.Errorf("batch %q: exit %d, stdout %d bytes, stderr %q; want a usage error before anything is sent", args, code, len(out), errs)
		}
	}
	_, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "10", "--file", "-", "--metrics-addr", "127.0.0.1:0")
	if code != 0 || strings.Contains(errs, "final metrics") {
		t.Errorf("without --metrics-linger: exit %d, stderr %q; want a run that does not wait", code, errs)
	}
}
