package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
	// How much was built is counted in bytes allocated, not in seconds: the whole day
	// allocates gigabytes (TestInterruptDuringGenerationBuildsNothing's control).
	allocated := allocatedBy(func() {
		err := run(ctx, []string{"batch", "--day", "0", "--scale", "40", "--garbage", "3", "--file", filepath.Join(t.TempDir(), "h.jsonl")}, &out, &errb)
		if code := exitCode(err, &errb); code != 130 {
			t.Fatalf("exit %d (%v), want 130\n%s", code, err, errb.String())
		}
	})
	if allocated > interruptedAllocBound {
		t.Errorf("the interrupted run allocated %d MiB: it went on building the day", allocated>>20)
	}
	t.Logf("the interrupted run allocated %d KiB", allocated>>10)
	if !strings.Contains(errb.String(), "nothing was sent") {
		t.Errorf("stderr does not say nothing was sent:\n%s", errb.String())
	}
}

// interruptedAllocBound is the most an interrupted run may allocate: the command's setup and
// no day.
const interruptedAllocBound = 64 << 20

// allocatedBy is the bytes the process allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestInterruptDuringGenerationBuildsNothing is the control of TestInterruptDuringGeneration's
// bound: the same day at a twentieth of the scale (a day's allocations grow with it: 9.6 GiB
// at scale 40), uninterrupted up to its first message (--limit), allocates well past it.
func TestInterruptDuringGenerationBuildsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a day at scale 2")
	}
	var out, errb strings.Builder
	allocated := allocatedBy(func() {
		err := run(context.Background(), []string{"batch", "--day", "0", "--scale", "2", "--garbage", "3", "--limit", "1", "--file", filepath.Join(t.TempDir(), "h.jsonl")}, &out, &errb)
		if code := exitCode(err, &errb); code != 0 {
			t.Fatalf("exit %d (%v), want 0\n%s", code, err, errb.String())
		}
	})
	if allocated <= 4*interruptedAllocBound {
		t.Errorf("a day at scale 2 allocated %d MiB, not clearly past the interrupted run's bound of %d MiB", allocated>>20, interruptedAllocBound>>20)
	}
	t.Logf("a day at scale 2 allocated %d MiB", allocated>>20)
}
