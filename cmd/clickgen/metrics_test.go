package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/sink"
)

// lockedBuffer is a bytes.Buffer safe to write from the run and read from the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var metricsURL = regexp.MustCompile(`Prometheus metrics on (http://\S+/metrics)`)

// scrape fetches url and returns the samples by name{labels}, failing the test on error.
func scrape(t *testing.T, url string) (map[string]float64, string) {
	t.Helper()
	samples, body, err := tryScrape(url)
	if err != nil {
		t.Fatal(err)
	}
	return samples, body
}

// tryScrape fetches url and returns the samples by name{labels}, or an error.
func tryScrape(url string) (map[string]float64, string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, "", fmt.Errorf("scrape: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		return nil, "", fmt.Errorf("scrape: %s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	samples := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, "", fmt.Errorf("scrape: bad sample line %q", line)
		}
		samples[line[:i]] = v
	}
	return samples, string(body), nil
}

// TestMetricsScrapedDuringRun scrapes /metrics twice during a stress run: the counters move,
// the latency histogram is complete and consistent, and the server is gone after the run.
// It waits on events (the run's address line, counters moving, the run ending), never on a
// wall-clock deadline, so a slow machine or -race only makes it slower.
func TestMetricsScrapedDuringRun(t *testing.T) {
	var stderr lockedBuffer
	done := make(chan int, 1)
	ended := make(chan struct{})
	go func() {
		err := run(context.Background(), []string{"run", "stress", "--rate", "3000/s", "--duration", "3s", "--metrics-addr", "127.0.0.1:0"},
			io.Discard, &stderr)
		done <- exitCode(err, &stderr)
		close(ended)
	}()
	running := func() bool {
		select {
		case <-ended:
			return false
		default:
			return true
		}
	}
	var url string
	for ; url == "" && running(); time.Sleep(10 * time.Millisecond) {
		if m := metricsURL.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("the run never said where its metrics are:\n%s", stderr.String())
	}
	moving := []string{`clickgen_messages_sent_total{topic="hits"}`, `clickgen_messages_acked_total{topic="hits"}`,
		`clickgen_acked_bytes_total{topic="hits"}`, `clickgen_produce_latency_seconds_count`, `clickgen_produce_latency_seconds_sum`}
	// Scrape once acknowledgements have begun, then until every counter has moved, while
	// the run lasts (a scrape racing the run's end may fail; the checks below then say so).
	var first, second map[string]float64
	var body string
	for ; running(); time.Sleep(20 * time.Millisecond) {
		m, _, err := tryScrape(url)
		if err == nil && m[moving[1]] > 0 {
			first = m
			break
		}
	}
	for ; first != nil && running(); time.Sleep(20 * time.Millisecond) {
		m, b, err := tryScrape(url)
		if err != nil {
			break
		}
		second, body = m, b
		if !slices.ContainsFunc(moving, func(name string) bool { return !(second[name] > first[name]) }) {
			break
		}
	}
	if first == nil || second == nil {
		t.Fatalf("the run ended before two scrapes with acknowledgements:\n%s", stderr.String())
	}

	for _, name := range moving {
		if !(first[name] > 0 && second[name] > first[name]) {
			t.Errorf("%s: %v then %v, want a counter that moves", name, first[name], second[name])
		}
	}
	if second[`clickgen_messages_failed_total{topic="hits"}`] != 0 {
		t.Errorf("failed messages: %v", second[`clickgen_messages_failed_total{topic="hits"}`])
	}
	for _, want := range []string{
		"# TYPE clickgen_messages_sent_total counter", "# TYPE clickgen_produce_latency_seconds histogram",
		"# TYPE clickgen_lag_seconds gauge", "# TYPE clickgen_messages_in_flight gauge", `clickgen_produce_latency_seconds_bucket{le="0.005"}`,
		`clickgen_partition_acked_total{topic="hits",partition="0"}`, `clickgen_partition_acked_total{topic="hits",partition="1"}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("exposition lacks %q:\n%s", want, body)
		}
	}
	// Buckets are cumulative and end at the count.
	prev := 0.0
	for _, le := range append(latencyBounds, 0) {
		name := `clickgen_produce_latency_seconds_bucket{le="` + formatFloat(le) + `"}`
		if le == 0 {
			name = `clickgen_produce_latency_seconds_bucket{le="+Inf"}`
		}
		v, ok := second[name]
		if !ok || v < prev {
			t.Errorf("%s = %v (present %v), previous bucket %v", name, v, ok, prev)
		}
		prev = v
	}
	if prev != second["clickgen_produce_latency_seconds_count"] {
		t.Errorf("+Inf bucket %v != count %v", prev, second["clickgen_produce_latency_seconds_count"])
	}
	if code := <-done; code != 0 {
		t.Fatalf("run: exit %d:\n%s", code, stderr.String())
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("the metrics server still answers after the run")
	}
}

// TestMetricsExposition renders a file sink's stats: the exact counter lines, escaped labels,
// and a histogram whose buckets hold what was recorded.
func TestMetricsExposition(t *testing.T) {
	w, err := sink.NewWriter(io.Discard, sink.WriterOptions{Partitions: map[string]int32{"hits": 2}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 5 {
		w.Send(ctx, sink.Message{Topic: "hits", Key: []byte{byte('a' + i)}, Value: []byte("12345")})
	}
	w.Send(ctx, sink.Message{Topic: `we"ird\`, Value: []byte("x")})
	w.Flush(ctx)
	m := &metricsServer{}
	m.lag.Store(int64(1500 * time.Millisecond))
	var b strings.Builder
	m.write(&b, w.Stats())
	out := b.String()
	for _, want := range []string{
		"clickgen_messages_sent_total{topic=\"hits\"} 5\n", "clickgen_messages_acked_total{topic=\"hits\"} 5\n",
		"clickgen_messages_failed_total{topic=\"hits\"} 0\n", "clickgen_acked_bytes_total{topic=\"hits\"} 25\n",
		`clickgen_messages_sent_total{topic="we\"ird\\"} 1` + "\n", "clickgen_messages_in_flight 0\n", "clickgen_lag_seconds 1.5\n",
		"clickgen_produce_latency_seconds_bucket{le=\"+Inf\"} 6\n", "clickgen_produce_latency_seconds_count 6\n",
		"clickgen_produce_latency_seconds_bucket{le=\"30\"} 6\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exposition lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`clickgen_partition_acked_total\{topic="hits",partition="0"\} \d\n`).MatchString(out) {
		t.Errorf("no per-partition counters:\n%s", out)
	}
}

// TestMetricsOnEveryPlayingVerb: batch, live, snapshot and run all take --metrics-addr; a
// malformed or busy address is a usage error before anything is sent.
func TestMetricsOnEveryPlayingVerb(t *testing.T) {
	for _, args := range [][]string{
		{"batch", "--day", "0", "--limit", "100", "--file", "-"},
		{"live", "--day", "0", "--speed", "10000000", "--file", "-"},
		{"snapshot", "--day", "1", "--file", "-"},
		{"run", "smoke"},
	} {
		_, errs, code := clickgen(t, append(args, "--metrics-addr", "127.0.0.1:0")...)
		if code != 0 || !metricsURL.MatchString(errs) {
			t.Errorf("clickgen %q --metrics-addr 127.0.0.1:0: exit %d, stderr %q", args, code, errs)
		}
		for _, bad := range []string{"9100", "localhost:http-alt", "127.0.0.1:70000"} {
			out, errs, code := clickgen(t, append(args, "--metrics-addr", bad)...)
			if code != 2 || out != "" || !strings.Contains(errs, "--metrics-addr") {
				t.Errorf("clickgen %q --metrics-addr %s: exit %d, stdout %d bytes, stderr %q; want a usage error", args, bad, code, len(out), errs)
			}
		}
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	out, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "10", "--file", "-", "--metrics-addr", busy.Addr().String())
	if code != 2 || out != "" || !strings.Contains(errs, "--metrics-addr") {
		t.Errorf("busy --metrics-addr: exit %d, stdout %q, stderr %q; want a usage error before anything is sent", code, out, errs)
	}
}
