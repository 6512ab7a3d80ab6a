package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/profiles"
)

// TestRunSmoke plays the smoke profile into the embedded broker: it reads both topics back,
// prints the reconciliation table (every day and snapshot ok), checks the profile's exact
// counts, and exits 0. (The 10 seconds the profile promises are a timing claim, measured in
// docs/performance.md, not asserted on a shared machine.)
func TestRunSmoke(t *testing.T) {
	out, errs, code := clickgen(t, "run", "smoke")
	if code != 0 {
		t.Fatalf("run smoke: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	p, _ := profiles.Load("smoke")
	for _, want := range []string{
		"day 1 2026-06-02", "day 2 2026-06-03", "snapshot 0 2026-06-01", "snapshot 1 2026-06-02", "\nOK: ",
		"expect hits: 2282 messages, profile smoke says 2282: ok", "expect orders: 3 messages, profile smoke says 3: ok",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("run smoke stdout lacks %q:\n%s", want, out)
		}
	}
	if *p.Expect.Hits != 2282 || *p.Expect.Orders != 3 {
		t.Errorf("smoke.yaml expects %d hits and %d orders; the test pins 2282 and 3", *p.Expect.Hits, *p.Expect.Orders)
	}
	if !strings.Contains(errs, "embedded broker on 127.0.0.1:") {
		t.Errorf("stderr does not say where the embedded broker listens:\n%s", errs)
	}
	// The smoke counts are the inventory's: a change of the world shows up here first.
	inv := inventoryOf(t, "--day", "1", "--days", "2", "--scale", "0.02")
	hits, orders := 0, 0
	for _, d := range inv.Days {
		hits += d.Messages
	}
	for _, s := range inv.Snapshots {
		orders += s.Messages
	}
	if int64(hits) != *p.Expect.Hits || int64(orders) != *p.Expect.Orders {
		t.Errorf("inventory of the smoke world: %d hits, %d orders; smoke.yaml expects %d and %d", hits, orders, *p.Expect.Hits, *p.Expect.Orders)
	}
}

// TestRunGarbageProfile: the garbage profile (every class, opt-in ones included, plus
// redeliveries) reconciles class by class on the embedded broker.
func TestRunGarbageProfile(t *testing.T) {
	out, errs, code := clickgen(t, raceScaled("run", "garbage")...)
	if code != 0 {
		t.Fatalf("run garbage: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{"accepted_bad=1", "vanishing=1", "field_invalid=1", "redeliver 0.01", "\nOK: "} {
		if !strings.Contains(out, want) {
			t.Errorf("run garbage stdout lacks %q:\n%s", want, out)
		}
	}
}

// TestRunExpectMismatch: a profile whose expected count is wrong fails the run (exit 1)
// after a clean delivery, saying which topic differs; a flag that changes what is played
// drops the profile's expectation instead of failing against it.
func TestRunExpectMismatch(t *testing.T) {
	src, _ := profiles.Source("smoke")
	bad := bytes.Replace(src, []byte("hits: 2282"), []byte("hits: 2000"), 1)
	path := filepath.Join(t.TempDir(), "smoke-wrong.yaml")
	os.WriteFile(path, bad, 0o644)
	out, errs, code := clickgen(t, "run", "--profile-file", path)
	if code != 1 || !strings.Contains(errs, "hits holds 2282 messages, profile smoke expects 2000") ||
		!strings.Contains(out, "profile smoke says 2000: DIFFERS") {
		t.Errorf("wrong expectation: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit 1 naming the difference", code, out, errs)
	}
	out, errs, code = clickgen(t, "run", "smoke", "--day", "3")
	if code != 0 || strings.Contains(out, "expect hits") || !strings.Contains(out, "day 4 2026-06-05") {
		t.Errorf("run smoke --day 3: exit %d, stdout:\n%s\nstderr:\n%s\nwant days 3–4 reconciled without the profile's counts", code, out, errs)
	}
}

// TestRunOneTopic: a run of hits only (or snapshots only) reconciles the topic it played,
// without reporting the other one as missing.
func TestRunOneTopic(t *testing.T) {
	for _, tc := range []struct{ send, want string }{
		{"hits", "hits day 2 2026-06-03: 1043 messages arrived of 1043 sent, clean hash matches: ok"},
		{"snapshots", "orders snapshot 1 2026-06-02: 3 messages arrived of 3 sent, clean hash matches: ok"},
	} {
		out, errs, code := clickgen(t, "run", "smoke", "--send", tc.send)
		if code != 0 || !strings.Contains(out, tc.want) || !strings.Contains(out, "unexpected: 0 messages") || strings.Contains(out, "DIFFERS") {
			t.Errorf("run smoke --send %s: exit %d\nstdout:\n%s\nstderr:\n%s", tc.send, code, out, errs)
		}
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "nope"}, `unknown profile "nope"`},
		{[]string{"run", "fill", "smoke"}, "one profile at most"},
		{[]string{"run", "fill", "--profile-file", "x.yaml"}, "choose one"},
		{[]string{"run", "--profile-file", "/nonexistent/x.yaml"}, "--profile-file"},
		{[]string{"run", "stress", "--rate", "fast"}, "--rate"},
		{[]string{"run", "stress", "--rate", "5/s", "--speed", "60"}, "exclude each other"},
		{[]string{"run", "--pace", "rate", "--speed", "60"}, "contradicts"},
		{[]string{"run", "--pace", "warp"}, `--pace "warp": want none, replay or rate`}, // issue 28: named by its flag
		{[]string{"run", "live", "--speed", "-1"}, "--speed"},
		{[]string{"run", "--max-rate", "lots"}, "--max-rate"},
		{[]string{"run", "stress", "--duration", "0s"}, "play.endless needs --duration or --messages"},
		{[]string{"run", "--days", "0"}, "--days 0"},
		{[]string{"run", "--day", "-1"}, "--day -1: model days start at 0"},               // batch's wording
		{[]string{"run", "--messages", "-1"}, "--messages -1: want 0 (no limit) or more"}, // batch's --limit wording
		{[]string{"run", "--seed", "0"}, "--seed 0"},
		{[]string{"run", "--scale", "-1"}, "--scale -1: want a factor in (0, 1000]"}, // batch's wording
		{[]string{"run", "--send", "clicks"}, `--send "clicks": want hits, snapshots or hits+snapshots`},
		{[]string{"run", "--garbage", "20"}, "--garbage 20: want a number of extra messages per clean message in [0, 10]"},
		{[]string{"run", "--garbage-mix", "typo=1"}, "--garbage-mix"},
		{[]string{"run", "--file", "out.jsonl"}, "--file does not apply to run"},
		{[]string{"run", "--topic", "clicks"}, "--topic does not apply to run"},
		{[]string{"run", "--brokers", ""}, `invalid argument "" for "--brokers" flag: no broker named`}, // issue 31
		{[]string{"run", "--tls"}, "need --brokers"},
		{[]string{"run", "--metrics-addr", "nowhere"}, "--metrics-addr"},
		{[]string{"run", "--interval", "0s"}, "--interval"},
		{[]string{"run", "--catalog", "/nonexistent.csv"}, "catalog"},
	} {
		out, errs, code := clickgen(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("clickgen %q: exit %d, stdout %q, stderr %q; want exit 2 mentioning %q", tc.args, code, out, errs, tc.want)
		}
	}
	out, _, code := clickgen(t, "run", "--help")
	for _, want := range []string{"ramp:1000/s-20000/s:30s", "--metrics-addr", "--profile-file", "embedded", "130"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("run --help: exit %d, lacks %q", code, want)
		}
	}
}

// TestRunInterrupted: Ctrl-C during a paced run stops it, reports what was acknowledged and
// exits 130, without a read-back check.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep := filepath.Join(t.TempDir(), "report.json")
	var out, errb lockedBuffer
	done := make(chan error)
	go func() {
		done <- run(ctx, []string{"run", "stress", "--rate", "2000/s", "--duration", "30s", "--interval", "100ms", "--report", rep}, &out, &errb)
	}()
	// Ctrl-C once messages are acknowledged.
	acked := regexp.MustCompile(`[1-9]\d* total\)`)
	for deadline := time.Now().Add(20 * time.Second); !acked.MatchString(errb.String()) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) || exitCode(err, &errb) != 130 {
		t.Fatalf("interrupted run: %v (exit %d), want exit 130", err, exitCode(err, &errb))
	}
	r := readReport(t, rep)
	h := r.Topics["hits"]
	if !r.Interrupted || h.Acked == 0 || h.Acked != h.Sent || h.Acked >= 60000 || out.String() != "" {
		t.Errorf("report interrupted=%v sent %d acked %d; stdout %q", r.Interrupted, h.Sent, h.Acked, out.String())
	}
}

// TestRunHonoursBootstrapServers is issue 31 item 1: KAFKA_BOOTSTRAP_SERVERS=kafka:9092
// clickgen run ignored the variable the README says every verb honours, filled an embedded
// broker and printed OK; run --brokers ” ran embedded too. The embedded broker is for when
// neither the flag nor the variable is set, and the console says which.
func TestRunHonoursBootstrapServers(t *testing.T) {
	_, addr := kfakeCluster(t)
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", addr)
	out, errs, code := clickgen(t, "run", "smoke")
	if code != 0 || strings.Contains(errs, "embedded broker on") || !strings.Contains(errs, "(env KAFKA_BOOTSTRAP_SERVERS; --embedded plays into an embedded broker instead)") ||
		!strings.Contains(out, "expect hits: 2282 messages, profile smoke says 2282: ok") {
		t.Errorf("run smoke with KAFKA_BOOTSTRAP_SERVERS: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if n := len(consume(t, addr, "hits")); n != 2282 {
		t.Errorf("the variable's cluster holds %d hits, want 2282", n)
	}
	for _, args := range [][]string{{"run", "smoke", "--brokers", ""}, {"run", "smoke", "--brokers", " , "}} {
		if _, errs, code := clickgen(t, args...); code != 2 || !strings.Contains(errs, `for "--brokers" flag: no broker named`) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2, an empty --brokers refused", args, code, errs)
		}
	}
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1")
	if _, errs, code := clickgen(t, "run", "smoke", "--brokers", addr, "--send", "snapshots"); code != 0 || !strings.Contains(errs, "(--brokers)") {
		t.Errorf("--brokers beats the variable: exit %d, stderr %q", code, errs)
	}
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", "")
	if _, errs, code := clickgen(t, "run", "smoke", "--send", "snapshots"); code != 0 || !strings.Contains(errs, "embedded broker on 127.0.0.1:") {
		t.Errorf("neither: exit %d, stderr %q; want the embedded broker", code, errs)
	}
}
