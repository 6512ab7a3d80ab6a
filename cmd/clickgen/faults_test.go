package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	runreport "github.com/clickgen/clickgen/generator/measure/report"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFlushTimeoutNamesTheDay is issue 11 item 7: a broker that takes produce requests and
// never answers them. The day fits in the in-flight budget, so the run reaches the end-of-day
// flush, which gives up after --flush-timeout. The error must name the day, be printed once
// (one wait, not a second flush of the same records), and the report must count the
// unacknowledged messages as unaccounted rather than claim "0 failed" and nothing else.
func TestFlushTimeoutNamesTheDay(t *testing.T) {
	c, addr := kfakeCluster(t)
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return nil, nil, true // handled, never answered
	})
	rep := filepath.Join(t.TempDir(), "r.json")
	_, errs, code := clickgen(t, "batch", "--day", "0", "--scale", "0.1", "--brokers", addr, "--topic", "hits",
		"--flush-timeout", "1s", "--report", rep)
	if code != 1 || !strings.Contains(errs, "day 0 (2026-06-01) is incomplete") {
		t.Fatalf("exit %d, stderr %q; want exit 1 naming day 0 as incomplete", code, errs)
	}
	if n := strings.Count(errs, "unacknowledged"); n != 1 {
		t.Errorf("stderr reports the unacknowledged messages %d times, want once:\n%s", n, errs)
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r runreport.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	h := r.Topics["hits"]
	if h.Sent == 0 || h.Acked != 0 || h.Unaccounted != h.Sent-h.Failed {
		t.Errorf("report sent %d acked %d failed %d unaccounted %d; want every unacknowledged message unaccounted", h.Sent, h.Acked, h.Failed, h.Unaccounted)
	}
	if !strings.Contains(errs, "unaccounted") {
		t.Errorf("summary does not mention the unaccounted messages:\n%s", errs)
	}
}

// TestInterruptDuringGeneration is issue 11 item 5: Ctrl-C while the first day of a large
// scale is still being built (seconds of work) ends the run within a second, with exit 130,
// and the summary says that nothing was sent instead of pointing at a summary that says
// nothing.
func TestInterruptDuringGeneration(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the signal arrives before the first day is built
	var out, errb strings.Builder
	start := time.Now()
	err := run(ctx, []string{"batch", "--day", "0", "--scale", "40", "--garbage", "3", "--file", filepath.Join(t.TempDir(), "h.jsonl")}, &out, &errb)
	took := time.Since(start)
	if code := exitCode(err, &errb); code != 130 {
		t.Fatalf("exit %d (%v), want 130\n%s", code, err, errb.String())
	}
	if took > time.Second {
		t.Errorf("interrupted run took %v, want under a second", took)
	}
	if !strings.Contains(errb.String(), "nothing was sent") {
		t.Errorf("stderr does not say nothing was sent:\n%s", errb.String())
	}
}
