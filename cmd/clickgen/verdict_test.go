package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/measure"
	runreport "github.com/clickgen/clickgen/generator/measure/report"
)

// The verdict of a run (issue 31): --threshold judged on the final figures, exit 3 when one
// is crossed and the run otherwise completed; --warmup measured apart.

// verdictDoc is the part of a report the verdict tests read.
type verdictDoc struct {
	Topics     map[string]runreport.Topic       `json:"topics"`
	Rate       runreport.Rate                   `json:"rate"`
	Follow     map[string]runreport.FollowGroup `json:"follow"`
	Warmup     *runreport.Warmup                `json:"warmup"`
	Thresholds []runreport.Threshold            `json:"thresholds"`
	Latency    map[string]float64               `json:"latency_ms"`
	Dist       [][2]float64                     `json:"latency_distribution_ms"`
	Stress     *runreport.StressInfo            `json:"stress"`
}

func readVerdict(t *testing.T, path string) verdictDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var d verdictDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return d
}

// verdictLine matches the console's line of one verdict: expression, held or crossed, the
// figure and its value.
var verdictLine = regexp.MustCompile(`(?m)^clickgen: threshold (\S+) (held|crossed)(?: for (\S+))?: (\S+) (\S+)$`)

// verdicts are the console's verdict lines of stderr: expression (and group) → held.
func verdicts(errs string) map[string]bool {
	out := map[string]bool{}
	for _, m := range verdictLine.FindAllStringSubmatch(errs, -1) {
		key := m[1]
		if m[3] != "" {
			key += " for " + m[3]
		}
		out[key] = m[2] == "held"
	}
	return out
}

// TestThresholdsHeld: thresholds that hold end a stress run with exit 0, each verdict said on
// the console and in the report, with the figure it read; rate>=0.99 reads the report's
// achieved rate over its target, and the run's exit code follows it (3 when a loaded machine
// kept the run below 99 %: the verdict must agree with the figures either way).
func TestThresholdsHeld(t *testing.T) {
	rep := filepath.Join(t.TempDir(), "r.json")
	out, errs, code := clickgen(t, "run", "stress", "--rate", "2000/s", "--duration", "3s", "--scale", "0.05",
		"--threshold", "p99<1m", "--threshold", "rate>=0.99,rate>=0.5", "--threshold", "failed==0", "--report", rep)
	d := readVerdict(t, rep)
	ratio := d.Rate.AchievedPerS / d.Rate.TargetPerS
	t.Logf("achieved %.1f/s of %.1f/s: %.4f", d.Rate.AchievedPerS, d.Rate.TargetPerS, ratio)
	want := 0
	if ratio < 0.99 {
		want = 3
	}
	if code != want {
		t.Fatalf("exit %d, want %d (rate %.4f of the target)\nstdout:\n%s\nstderr:\n%s", code, want, ratio, out, errs)
	}
	got := verdicts(errs)
	for expr, held := range map[string]bool{"p99<1m": true, "rate>=0.99": ratio >= 0.99, "rate>=0.5": true, "failed==0": true} {
		if h, ok := got[expr]; !ok || h != held {
			t.Errorf("console verdict of %s: present %v, held %v; want held %v\n%s", expr, ok, h, held, errs)
		}
	}
	if len(d.Thresholds) != 4 {
		t.Fatalf("report thresholds %+v: want the 4 given, in order", d.Thresholds)
	}
	for i, expr := range []string{"p99<1m", "rate>=0.99", "rate>=0.5", "failed==0"} {
		th := d.Thresholds[i]
		if th.Expr != expr || th.Value == nil || th.Held != got[expr] {
			t.Errorf("report threshold %d = %+v, want %s as the console says it", i, th, expr)
		}
	}
	if p99 := d.Thresholds[0]; *p99.Value != d.Latency["p99"] || p99.Unit != "ms" || p99.Limit != 60000 {
		t.Errorf("p99<1m read %v %s of limit %v; the report's p99 is %v ms", *p99.Value, p99.Unit, p99.Limit, d.Latency["p99"])
	}
	if r := d.Thresholds[1]; r.Unit != "ratio" || *r.Value != ratio {
		t.Errorf("rate>=0.99 read %v %s; the report's achieved over target is %v", *r.Value, r.Unit, ratio)
	}
	checkedAll(t, d, out)
}

// checkedAll: the run's report and its closing check agree that everything sent was
// acknowledged and found in the topic. A stress run's count is what its pacer reached in the
// duration (fewer than rate × duration on a loaded machine, as under the race detector), so
// the test reads it from the report rather than from its arguments.
func checkedAll(t *testing.T, d verdictDoc, out string) {
	t.Helper()
	h := d.Topics["hits"]
	if h.Sent <= 0 || h.Acked != h.Sent || h.Failed != 0 {
		t.Errorf("hits sent %d, acked %d, failed %d: want everything sent acknowledged\nstdout:\n%s", h.Sent, h.Acked, h.Failed, out)
	}
	want := regexp.MustCompile(fmt.Sprintf(`(?m)^hits: %d acknowledged .*, %d in the topic .*: ok$`, h.Acked, h.Acked))
	if !want.MatchString(out) {
		t.Errorf("stdout lacks the run's check of the %d it sent (%s):\n%s", h.Acked, want, out)
	}
}

// TestThresholdCrossed: a crossed threshold ends a run that sent everything with exit 3,
// named on the console (its line and the error the run ends with) and in the report; run
// still checks what it sent.
func TestThresholdCrossed(t *testing.T) {
	rep := filepath.Join(t.TempDir(), "r.json")
	out, errs, code := clickgen(t, "run", "stress", "--rate", "2000/s", "--duration", "1s", "--scale", "0.05",
		"--threshold", "p99<1us", "--threshold", "max<1m", "--report", rep)
	if code != 3 {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if got := verdicts(errs); len(got) != 2 || got["p99<1us"] || !got["max<1m"] {
		t.Errorf("console verdicts %v: want p99<1us crossed, max<1m held\n%s", got, errs)
	}
	if !regexp.MustCompile(`(?m)^clickgen: threshold\(s\) crossed: p99<1us \(p99 [\d.]+ms\)$`).MatchString(errs) {
		t.Errorf("the run does not end naming the crossed threshold:\n%s", errs)
	}
	d := readVerdict(t, rep)
	if th := d.Thresholds; len(th) != 2 || th[0].Expr != "p99<1us" || th[0].Held || th[0].Value == nil || *th[0].Value <= 0.001 || !th[1].Held {
		t.Errorf("report thresholds %+v: want p99<1us crossed (a p99 above 1 µs), max<1m held", th)
	}
	checkedAll(t, d, out)
}

// TestVerdictRefusedBeforeSending: a malformed threshold, one the run could not judge (rate
// without a target rate, freshness without --follow-group) and a warm-up that is negative or
// leaves nothing of --duration are usage errors (exit 2) before anything is sent: the topic
// stays empty.
func TestVerdictRefusedBeforeSending(t *testing.T) {
	_, addr := kfakeCluster(t)
	batch := []string{"batch", "--day", "0", "--limit", "100", "--brokers", addr, "--topic", "hits"}
	stress := []string{"run", "stress", "--brokers", addr, "--rate", "1000/s", "--duration", "2s"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(batch, "--threshold", "p99<50"), `invalid argument "p99<50" for "--threshold" flag: "p99<50": limit "50": a latency needs a unit`},
		{append(stress, "--threshold", "p99<50ms,latency<1s"), `unknown figure "latency"`},
		{append(stress, "--threshold", "p99"), "no comparison"},
		{append(batch, "--threshold", "rate>=0.99"), "--threshold rate>=0.99: the run has no target rate"},
		{[]string{"run", "fill", "--brokers", addr, "--threshold", "rate>=0.99"}, "--threshold rate>=0.99: the run has no target rate"},
		{append(stress, "--threshold", "freshness.p99<2s"), "--threshold freshness.p99<2s: freshness is measured by following a consumer group: give --follow-group"},
		{append(stress, "--warmup", "2s"), "--warmup 2s is not shorter than the run's duration 2s"},
		{append(stress, "--warmup", "3s"), "--warmup 3s is not shorter"},
		{append(batch, "--warmup=-1s"), "--warmup -1s: want a duration ≥ 0"},
	} {
		out, errs, code := clickgen(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("clickgen %q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 saying %q", tc.args, code, out, errs, tc.want)
		}
		if strings.Contains(errs, "embedded broker") || strings.Contains(errs, " sent, ") {
			t.Errorf("clickgen %q started something before refusing:\n%s", tc.args, errs)
		}
	}
	if n := len(consume(t, addr, "hits")); n != 0 {
		t.Errorf("topic hits holds %d messages after runs refused before sending", n)
	}
}

// TestThresholdOnFailedRun: a broker that refuses every message fails the run with exit 1
// even when a threshold is crossed too (failed==0 with the messages it refused): the failure
// is the run's outcome, the verdict is still said.
func TestThresholdOnFailedRun(t *testing.T) {
	c, addr := kfakeCluster(t)
	refuseProducesAfter(c, 0)
	_, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "200", "--brokers", addr, "--topic", "hits", "--threshold", "failed==0")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a delivery failure wins over a crossed threshold)\n%s", code, errs)
	}
	if !regexp.MustCompile(`(?m)^clickgen: threshold failed==0 crossed: failed [1-9]\d*$`).MatchString(errs) ||
		strings.Contains(errs, "threshold(s) crossed") {
		t.Errorf("stderr: want the verdict said, the run ending with its delivery failure:\n%s", errs)
	}
}

// TestThresholdOnInterruptedRun: a run interrupted while it sends exits 130 even with a
// crossed threshold; the verdict on what was measured is still said.
func TestThresholdOnInterruptedRun(t *testing.T) {
	_, addr := kfakeCluster(t)
	ctx, signal := context.WithCancel(context.Background())
	defer signal()
	stderr, done := startedRun(ctx, "run", "stress", "--brokers", addr, "--rate", "1000/s", "--duration", "1h", "--interval", "100ms",
		"--scale", "0.05", "--threshold", "p99<1us")
	awaitFrom(t, stderr, 0, "of an interval with messages acknowledged", sending, time.Minute)
	signal()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the interrupted run did not end within 30s:\n%s", stderr)
	}
	var ce *measure.CrossedError
	if code := exitCode(err, io.Discard); code != 130 || errors.As(err, &ce) {
		t.Errorf("exit %d (%v), want 130 and the interruption alone (interrupted wins over a crossed threshold)\n%s", code, err, stderr)
	}
	if errs := stderr.String(); !strings.Contains(errs, "clickgen: threshold p99<1us crossed: p99 ") {
		t.Errorf("stderr: want the verdict said:\n%s", errs)
	}
}

// TestThresholdFreshness: freshness thresholds judge each followed group's pipeline latency:
// one that holds and one that is crossed, for the group, on the console and in the report.
func TestThresholdFreshness(t *testing.T) {
	_, addr := kfakeCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := startGroupConsumer(t, ctx, addr, "normal", 1, 0, nil)
	rep := filepath.Join(t.TempDir(), "r.json")
	_, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "2000", "--brokers", addr, "--topic", "hits",
		"--follow-group", "normal", "--follow-timeout", "30s", "--threshold", "freshness.p99<10m", "--threshold", "freshness.max<1us", "--report", rep)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (consumer consumed %d, err %v)\n%s", code, c.consumed, c.err, errs)
	}
	if got := verdicts(errs); len(got) != 2 || !got["freshness.p99<10m for normal"] || got["freshness.max<1us for normal"] {
		t.Errorf("console verdicts %v: want freshness.p99<10m held and freshness.max<1us crossed, for normal\n%s", got, errs)
	}
	d := readVerdict(t, rep)
	g := d.Follow["normal"]
	if th := d.Thresholds; len(th) != 2 || th[0].Group != "normal" || th[0].Value == nil || *th[0].Value != g.LatencyMS.P99 ||
		th[1].Group != "normal" || th[1].Held || *th[1].Value != g.LatencyMS.Max {
		t.Errorf("report thresholds %+v: want both for group normal, reading its p99 %v and max %v", th, g.LatencyMS.P99, g.LatencyMS.Max)
	}
}

// TestWarmupMeasuredApart: --warmup 1s on 2000/s for 3 s moves exactly the 2000 messages due
// in the first second out of the run's percentiles into the warmup section, whose count and
// the run's add up to what was acknowledged; a followed group's pipeline latency is split the
// same way; the console says both parts.
func TestWarmupMeasuredApart(t *testing.T) {
	_, addr := kfakeCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := startGroupConsumer(t, ctx, addr, "normal", 1, 0, nil)
	select {
	case <-c.assigned: // the group takes from the first message on
	case <-ctx.Done():
		t.Fatal("the consumer was assigned no partition")
	}
	rep := filepath.Join(t.TempDir(), "r.json")
	_, errs, code := clickgen(t, "run", "stress", "--brokers", addr, "--rate", "2000/s", "--duration", "3s", "--scale", "0.05",
		"--warmup", "1s", "--follow-group", "normal", "--follow-timeout", "30s", "--report", rep)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	d := readVerdict(t, rep)
	w, acked := d.Warmup, d.Topics["hits"].Acked
	// --duration is a wall-clock promise (1 % grace, at least 50 ms): a pacer that falls
	// behind, as it may under the race detector on two busy cores, leaves the last few of
	// the 6000 due unsent. The split is what is judged: the warm-up's 2000 and the rest add
	// up to what was acknowledged, whatever the duration cut.
	if w == nil || w.DurationS != 1 || w.ElapsedS != 1 || w.Acked != 2000 || w.Acked+w.AfterAcked != acked || acked <= 2000 || acked > 6000 {
		t.Fatalf("warmup section %+v, hits acked %d: want the 2000 due in the first second, and 2000 + the rest = acked (at most the 6000 due)", w, acked)
	}
	if acked < 6000 && (d.Stress == nil || d.Stress.Stopped != "duration") {
		t.Errorf("%d of the 6000 due acknowledged, stress %+v: only the duration may cut it short", acked, d.Stress)
	}
	if w.LatencyMS.Max <= 0 || d.Latency["max"] <= 0 || len(d.Dist) == 0 {
		t.Errorf("warm-up latency %+v, run latency %v: want both measured", w.LatencyMS, d.Latency)
	}
	// The run ends once its last message, due 2.9995 s into the pacing, is acknowledged: the
	// rate is over at least the 1.9995 s after the warm-up, and the flush.
	if w.AfterS < 1.9995 || w.AfterS > 2+30 || d.Rate.TargetPerS != 2000 {
		t.Errorf("rate over %vs after the warm-up, target %v/s: want the ~2 s after it, 2000/s", w.AfterS, d.Rate.TargetPerS)
	}
	g, wg := d.Follow["normal"], w.Follow["normal"]
	if g.Taken != acked || wg.Taken != 2000 {
		t.Errorf("group normal took %d in all, %d of the warm-up's; want %d, 2000", g.Taken, wg.Taken, acked)
	}
	for _, want := range []string{
		"clickgen: stress warm-up: 2000 records acked of those due in the first 1s (measured apart)",
		"(target 2000.0/s over the ",
		fmt.Sprintf("(from intended send time to ack, of the %d acknowledged after the 1s warm-up)", w.AfterAcked),
		"clickgen: warm-up, the first 1s, measured apart: 2000 acked, 0 failed; latency p50 ",
		"follow normal: warm-up, measured apart: 2000 taken, pipeline latency p50 ",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// TestVerdictLive: live has a target rate (its model day's events over the day's real time),
// so rate is judged there too; its warm-up is by intended send time, the report's warmup
// section and the run's latency counting together what was acknowledged.
func TestVerdictLive(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	_, errs, code := clickgen(t, "live", "--day", "0", "--scale", "0.02", "--speed", "86400", "--file", filepath.Join(dir, "h.jsonl"),
		"--warmup", "300ms", "--threshold", "rate>=0.01,failed==0", "--threshold", "max<10m", "--report", rep)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if got := verdicts(errs); len(got) != 3 || !got["rate>=0.01"] || !got["failed==0"] || !got["max<10m"] {
		t.Errorf("verdicts %v, want 3 held\n%s", got, errs)
	}
	d := readVerdict(t, rep)
	w := d.Warmup
	if w == nil || w.Acked == 0 || w.AfterAcked == 0 || w.Acked+w.AfterAcked != d.Topics["hits"].Acked || d.Rate.TargetPerS <= 0 {
		t.Errorf("warmup %+v, hits acked %d, target %v/s: want both parts counted, adding up, and a target", w, d.Topics["hits"].Acked, d.Rate.TargetPerS)
	}
}

// TestExitCodeOfVerdict: 3 only when crossed thresholds are the run's only failure, however
// wrapped or joined; any other failure joined to them is 1, an interruption 130, a usage
// error 2.
func TestExitCodeOfVerdict(t *testing.T) {
	crossed := &measure.CrossedError{Verdicts: []measure.Verdict{{Missing: "no message was acknowledged"}}}
	other := errors.New("follow: group g did not take everything the run sent within --follow-timeout 1s")
	for _, tc := range []struct {
		err  error
		want int
	}{
		{crossed, 3},
		{fmt.Errorf("run: %w", crossed), 3},
		{errors.Join(nil, crossed), 3},
		{errors.Join(other, crossed), 1},
		{errors.Join(crossed, fmt.Errorf("interrupted: %w", context.Canceled)), 130},
		{errors.Join(crossed, usagef("run", "bad")), 2},
		{other, 1},
	} {
		if got := exitCode(tc.err, io.Discard); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
