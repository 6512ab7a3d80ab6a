package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// The three bugs that came from the engine living in package main, each pinned here.

// TestKafkaRunLeavesTheClientACore: a run into Kafka renders on all cores but one even when
// --metrics-addr wraps the sink (the worker count used to be chosen by sniffing the sink's
// type, which the metrics wrapper hid), and when the Kafka is the embedded broker (whose
// address used to be filled in only after the count was chosen, so it rendered on all cores
// beside a Kafka client and the broker itself).
func TestKafkaRunLeavesTheClientACore(t *testing.T) {
	_, addr := kfakeCluster(t)
	n := runtime.GOMAXPROCS(0)
	want := fmt.Sprintf("rendering on %d of %d cores", max(1, n-1), n)
	for _, args := range [][]string{
		{"run", "smoke", "--brokers", addr, "--metrics-addr", "127.0.0.1:0"},
		{"run", "smoke"}, // the embedded broker
	} {
		out, errs, code := clickgen(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errs)
		}
		if !strings.Contains(errs, want) {
			t.Errorf("%s: stderr lacks %q:\n%s", strings.Join(args, " "), want, errs)
		}
	}
	// Into a file every core renders; --workers is taken as given (session's
	// TestRenderWorkers).
}

// TestRunSetsMemoryLimit: run sets the soft memory limit that batch sets (a scale's worth),
// so a long run's resident size stays bounded by its largest day.
func TestRunSetsMemoryLimit(t *testing.T) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT is set: clickgen leaves the limit to it")
	}
	old := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	if _, errs, code := clickgen(t, "run", "smoke"); code != 0 {
		t.Fatalf("run smoke: exit %d: %s", code, errs)
	}
	if got, want := debug.SetMemoryLimit(-1), world.SoftMemoryLimit(0.02, world.Garbage{}); got != want {
		t.Errorf("soft memory limit after run smoke (scale 0.02) = %d, want %d", got, want)
	}
}

// TestStressScheduleEndsByItself: a rate shape that ends by itself (a ramp down to zero)
// before --duration is reported as stopped by its schedule, not by the duration.
func TestStressScheduleEndsByItself(t *testing.T) {
	rep := filepath.Join(t.TempDir(), "stress.json")
	out, errs, code := clickgen(t, "run", "stress", "--rate", "ramp:4000/s-0/s:500ms", "--duration", "1m", "--report", rep)
	if code != 0 {
		t.Fatalf("run stress: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	d := readStress(t, rep)
	// The ramp releases messages 0 … 1000: the last is due exactly at its end.
	if h := d.Topics["hits"]; h.Acked != 1001 || d.Stress.Released != 1001 || d.Stress.Stopped != "schedule" {
		t.Errorf("ramp 4000/s to 0 over 500ms: acked %d, released %d, stopped %q; want 1001, 1001, schedule", h.Acked, d.Stress.Released, d.Stress.Stopped)
	}
	if !strings.Contains(errs, "the rate schedule ended after 1001 hit messages") {
		t.Errorf("stderr does not say the schedule ended:\n%s", errs)
	}
}

// TestInterruptedStressSummariesAgree: after Ctrl-C, the stress line's total and the topic
// summary count the same acknowledged messages (the stress line used to be measured before
// the final flush, issue 11 item 9).
func TestInterruptedStressSummariesAgree(t *testing.T) {
	stderr := newLineWatch()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"run", "stress", "--rate", "20000/s", "--duration", "1m", "--interval", "100ms"}, io.Discard, stderr)
		stderr.Close()
	}()
	// An interval line once messages are acknowledged: the run is mid-flight.
	if _, i := stderr.Await(0, func(l string) bool { return strings.Contains(l, "records sent") && !strings.HasSuffix(l, " 0 total)") }); i < 0 {
		t.Fatalf("no interval line before the run ended:\n%s", stderr)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("run after Ctrl-C = %v, want interrupted", err)
	}
	out := stderr.String()
	stress := regexp.MustCompile(`stress total: (\d+) records sent`).FindStringSubmatch(out)
	topic := regexp.MustCompile(`clickgen: hits: \d+ sent, (\d+) acked`).FindStringSubmatch(out)
	if stress == nil || topic == nil || stress[1] != topic[1] {
		t.Errorf("stress total %v, topic summary %v: want the same acknowledged count\n%s", stress, topic, out)
	}
}
