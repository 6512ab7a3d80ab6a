package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The waits at the end of a run (issues 29 and 31): each says what it waits for and how long
// at most before it begins, the first signal ends it, and the timeout bounds it whatever the
// brokers do.

// startedRun runs clickgen in the background with ctx, its stderr watched; done gets run's error
// once it returns.
func startedRun(ctx context.Context, args ...string) (stderr *lineWatch, done chan error) {
	stderr, done = newLineWatch(), make(chan error, 1)
	go func() {
		err := run(ctx, args, io.Discard, stderr)
		stderr.Close()
		done <- err
	}()
	return stderr, done
}

// awaitLine waits for a line of stderr that contains want, at most bound.
func awaitLine(t *testing.T, stderr *lineWatch, want string, bound time.Duration) string {
	t.Helper()
	line, _ := awaitFrom(t, stderr, 0, want, func(l string) bool { return strings.Contains(l, want) }, bound)
	return line
}

// awaitFrom waits for a line of stderr from index from on that ok accepts, at most bound,
// and returns it and its index; what names it in a failure.
func awaitFrom(t *testing.T, stderr *lineWatch, from int, what string, ok func(string) bool, bound time.Duration) (string, int) {
	t.Helper()
	type found struct {
		line string
		i    int
	}
	got := make(chan found, 1)
	go func() {
		line, i := stderr.Await(from, ok)
		got <- found{line, i}
	}()
	select {
	case f := <-got:
		if f.i < 0 {
			t.Fatalf("the run ended without a line %s:\n%s", what, stderr)
		}
		return f.line, f.i
	case <-time.After(bound):
		t.Fatalf("no line %s within %v:\n%s", what, bound, stderr)
	}
	return "", -1
}

// sending accepts a rate-paced run's interval line once something was acknowledged.
func sending(l string) bool {
	return strings.HasPrefix(l, "clickgen: stress ") && !strings.HasSuffix(l, " 0 total)")
}

// ended waits for the run to return, at most bound, and returns its exit code.
func ended(t *testing.T, done chan error, stderr *lineWatch, bound time.Duration, what string) int {
	t.Helper()
	select {
	case err := <-done:
		return exitCode(err, io.Discard)
	case <-time.After(bound):
		t.Fatalf("%s: the run did not end within %v:\n%s", what, bound, stderr)
	}
	return -1
}

// TestFollowWaitEndsOnSignal (issue 29 N3): the first signal during the wait for a followed
// group to drain ends the wait at once (it used to loop on a context no signal cancelled, so
// only SIGKILL ended --follow-timeout 2562047h); the run reports what it knows, says the
// group was not drained because of the interruption (N10), writes the report and exits 130.
func TestFollowWaitEndsOnSignal(t *testing.T) {
	_, addr := kfakeCluster(t)
	ctx, signal := context.WithCancel(context.Background())
	defer signal()
	rep := filepath.Join(t.TempDir(), "r.json")
	stderr, done := startedRun(ctx, "batch", "--day", "0", "--limit", "300", "--brokers", addr, "--topic", "hits",
		"--follow-group", "ghost", "--follow-every", "50ms", "--follow-timeout", "1h", "--report", rep)
	// The drain's wait: the summary comes once the groups are done waiting for (the run's
	// figures end where it ended, before the wait).
	awaitLine(t, stderr, "clickgen: waiting for consumer group(s) ghost", time.Minute)
	signal()
	if code := ended(t, done, stderr, 30*time.Second, "a signal during the follow wait"); code != 130 {
		t.Errorf("exit %d, want 130 (interrupted)\n%s", code, stderr)
	}
	if errs := stderr.String(); !strings.Contains(errs, "follow ghost: NOT drained (interrupted after ") || strings.Contains(errs, "within 1h") {
		t.Errorf("stderr does not say the wait for ghost was interrupted:\n%s", errs)
	}
	r := readFollowReport(t, rep)
	if g := r.Follow["ghost"]; g.DrainedS != nil || g.Untaken["hits/0"]+g.Untaken["hits/1"] != 300 || r.Topics["hits"].Acked != 300 {
		t.Errorf("report: follow.ghost drained_s %v untaken %v, hits acked %d; want not drained, the 300 acked untaken", g.DrainedS, g.Untaken, r.Topics["hits"].Acked)
	}
}

// TestFollowLineOfInterruptedRun (issue 29 N10): a run interrupted while it sends does not
// wait for its groups; their lines say so, not "NOT drained within" the timeout it never
// waited.
func TestFollowLineOfInterruptedRun(t *testing.T) {
	_, addr := kfakeCluster(t)
	ctx, signal := context.WithCancel(context.Background())
	defer signal()
	stderr, done := startedRun(ctx, "run", "stress", "--brokers", addr, "--rate", "1000/s", "--duration", "1h", "--interval", "100ms",
		"--follow-group", "ghost", "--follow-timeout", "30s")
	awaitFrom(t, stderr, 0, "of an interval with messages acknowledged", sending, time.Minute)
	signal()
	if code := ended(t, done, stderr, 30*time.Second, "an interrupted run"); code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, stderr)
	}
	if errs := stderr.String(); !strings.Contains(errs, "follow ghost: NOT drained (interrupted after ") || strings.Contains(errs, "within 30s") {
		t.Errorf("the interrupted run's follow line:\n%s", errs)
	}
}

// TestFollowWaitBoundedByTimeout (issue 29 N11): a group coordinator that takes the offset
// requests and never answers (brokers frozen for the follower) does not stretch the wait
// past --follow-timeout: the requests in flight end with it (they used to run their own 10 s,
// and frozen brokers with --follow-timeout 3s took 11.2 s). The group is reported not drained.
// How long the wait lasts is measured on the follower's fake clock (follow's
// TestFinishBoundedByTimeout), not here on a shared machine's: here the run ends, and says
// why.
func TestFollowWaitBoundedByTimeout(t *testing.T) {
	c, addr := kfakeCluster(t)
	c.ControlKey(int16(kmsg.OffsetFetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return nil, nil, true // taken, never answered
	})
	stderr, done := startedRun(context.Background(), raceScaled("batch", "--day", "0", "--limit", "100", "--brokers", addr, "--topic", "hits",
		"--follow-group", "g", "--follow-timeout", "2s")...)
	code := ended(t, done, stderr, time.Minute, "frozen group coordinator")
	if errs := stderr.String(); code != 1 || !strings.Contains(errs, "follow g: NOT drained within 2s") {
		t.Errorf("exit %d, want 1 and g not drained within 2s:\n%s", code, errs)
	}
}

// TestWaitsAnnounced (issue 31): every wait of a run's end that may last more than a second
// says what it waits for and how long at most, before it begins: the flush of what an
// interrupted run left in flight, the drain of a followed group, the read-back of the embedded
// broker. (The metrics linger's line is TestMetricsLinger's.)
func TestWaitsAnnounced(t *testing.T) {
	t.Run("flush after a signal", func(t *testing.T) {
		c, addr := kfakeCluster(t)
		release := make(chan struct{})
		var once sync.Once
		free := func() { once.Do(func() { close(release) }) }
		defer free()
		var hold atomic.Bool
		c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			if hold.Load() {
				c.SleepControl(func() { <-release }) // the brokers stop acknowledging
			}
			return nil, nil, false
		})
		ctx, signal := context.WithCancel(context.Background())
		defer signal()
		stderr, done := startedRun(ctx, "run", "stress", "--brokers", addr, "--rate", "2000/s", "--duration", "1h", "--interval", "100ms",
			"--flush-timeout", "42s")
		_, i := awaitFrom(t, stderr, 0, "of an interval with messages acknowledged", sending, time.Minute)
		hold.Store(true)
		// An interval after it with nothing acknowledged: messages are in flight.
		awaitFrom(t, stderr, i+1, "of an interval without acknowledgements", func(l string) bool { return sending(l) && strings.Contains(l, ": 0 records sent") }, time.Minute)
		signal()
		line := awaitLine(t, stderr, "message(s) in flight", time.Minute)
		free()
		if !strings.HasPrefix(line, "clickgen: flushing the ") || !strings.HasSuffix(line, " message(s) in flight, at most 42s") {
			t.Errorf("the flush's line %q, want what it flushes and --flush-timeout", line)
		}
		if code := ended(t, done, stderr, time.Minute, "the flush after a signal"); code != 130 {
			t.Errorf("exit %d, want 130\n%s", code, stderr)
		}
		if errs := stderr.String(); strings.Index(errs, line) > strings.Index(errs, "clickgen: hits: ") {
			t.Errorf("the flush was announced after the summary:\n%s", errs)
		}
	})
	t.Run("follow drain", func(t *testing.T) {
		_, addr := kfakeCluster(t)
		stderr, done := startedRun(context.Background(), raceScaled("batch", "--day", "0", "--limit", "100", "--brokers", addr, "--topic", "hits",
			"--follow-group", "ghost", "--follow-timeout", "1500ms")...)
		line := awaitLine(t, stderr, "waiting for consumer group(s)", time.Minute)
		if code := ended(t, done, stderr, time.Minute, "a group that never commits"); code != 1 {
			t.Errorf("exit %d, want 1\n%s", code, stderr)
		}
		errs := stderr.String()
		if want := "clickgen: waiting for consumer group(s) ghost to take everything the run sent (--follow-timeout), at most 1.5s"; line != want ||
			strings.Index(errs, line) > strings.Index(errs, "follow ghost: NOT drained within 1.5s") {
			t.Errorf("the drain's line %q, want %q before the group's verdict:\n%s", line, want, errs)
		}
	})
	t.Run("read-back", func(t *testing.T) {
		_, errs, code := clickgen(t, "run", "smoke")
		want := "clickgen: reading the run's messages back from the embedded broker to check them, at most 10m0s\n"
		if code != 0 || !strings.Contains(errs, "clickgen: total time ") || strings.Index(errs, want) < strings.Index(errs, "clickgen: total time ") {
			t.Errorf("run smoke: exit %d, stderr\n%s\nwant %q after the summary", code, errs, want)
		}
	})
}
