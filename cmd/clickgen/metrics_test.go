package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/internal/cmdtest"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
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

// scrape fetches url and parses it as Prometheus does.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("scrape: %s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	return fams
}

// sample is the value of the counter or gauge name{labels}, labels as name, value pairs in the
// exposition's (sorted) order; absent is -1.
func sample(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
next:
	for _, m := range fams[name].GetMetric() {
		if len(m.Label)*2 != len(labels) {
			continue
		}
		for i, l := range m.Label {
			if l.GetName() != labels[2*i] || l.GetValue() != labels[2*i+1] {
				continue next
			}
		}
		if m.Counter != nil {
			return m.Counter.GetValue()
		}
		return m.GetGauge().GetValue()
	}
	return -1
}

var intervalTotal = regexp.MustCompile(`^clickgen: stress .*, (\d+) total\)$`)

// TestMetricsScrapedDuringRun scrapes /metrics at two interval lines of a stress run into the
// embedded broker, each after more acknowledgements: the counters move and never go down,
// the latency histogram is cumulative and complete, the Kafka client's per-broker series and
// the Go and process collectors are served; after an interrupt, the report counts at least
// what the last scrape did, and the server is gone.
func TestMetricsScrapedDuringRun(t *testing.T) {
	stderr := newLineWatch()
	report := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int)
	go func() {
		err := run(ctx, []string{"run", "stress", "--rate", "3000/s", "--duration", "1h", "--interval", "100ms",
			"--metrics-addr", "127.0.0.1:0", "--report", report}, io.Discard, stderr)
		stderr.Close()
		done <- exitCode(err, io.Discard)
	}()
	line, _ := stderr.Await(0, metricsURL.MatchString)
	if line == "" {
		t.Fatalf("the run never said where its metrics are:\n%s", stderr)
	}
	url := metricsURL.FindStringSubmatch(line)[1]
	// An interval line with more acknowledgements than acked: the run is moving.
	after := func(from int, acked float64) int {
		_, i := stderr.Await(from, func(l string) bool {
			m := intervalTotal.FindStringSubmatch(l)
			n, _ := strconv.ParseFloat(m2(m), 64)
			return m != nil && n > acked
		})
		if i < 0 {
			t.Fatalf("the run ended without acknowledging more than %v:\n%s", acked, stderr)
		}
		return i + 1
	}
	const acked = "clickgen_messages_acked_total"
	next := after(0, 0)
	first := scrape(t, url)
	after(next, sample(first, acked, "topic", "hits"))
	second := scrape(t, url)
	cancel()
	if code := <-done; code != 130 {
		t.Fatalf("interrupted run: exit %d, want 130:\n%s", code, stderr)
	}

	for _, name := range []string{"clickgen_messages_sent_total", acked, "clickgen_acked_bytes_total"} {
		if a, b := sample(first, name, "topic", "hits"), sample(second, name, "topic", "hits"); !(a > 0 && b > a) {
			t.Errorf("%s: %v then %v, want a counter that moves", name, a, b)
		}
	}
	for name, f := range second {
		if f.GetType() != dto.MetricType_COUNTER {
			continue
		}
		for _, m := range f.Metric {
			for _, was := range first[name].GetMetric() {
				if fmt.Sprint(was.Label) == fmt.Sprint(m.Label) && was.GetCounter().GetValue() > m.GetCounter().GetValue() {
					t.Errorf("counter %s%v went down: %v then %v", name, m.Label, was.GetCounter().GetValue(), m.GetCounter().GetValue())
				}
			}
		}
	}
	if v := sample(second, "clickgen_messages_failed_total", "topic", "hits"); v != 0 {
		t.Errorf("failed messages: %v", v)
	}
	for _, p := range []string{"0", "1"} {
		if sample(second, "clickgen_partition_acked_total", "partition", p, "topic", "hits") <= 0 {
			t.Errorf("no acknowledgements counted for hits partition %s", p)
		}
	}
	for _, name := range []string{"clickgen_lag_seconds", "clickgen_messages_in_flight", "clickgen_target_messages_per_second",
		"clickgen_scheduled_messages_total", "clickgen_released_messages_total", "clickgen_model_day",
		"clickgen_kafka_request_duration_e2e_seconds", "clickgen_kafka_connects_total", "go_goroutines", "process_cpu_seconds_total"} {
		if second[name] == nil {
			t.Errorf("no %s", name)
		}
	}
	// Due times are whole nanoseconds, so the rate is 3000 to within a few parts in a million.
	if v := sample(second, "clickgen_target_messages_per_second"); math.Abs(v-3000) > 0.01 {
		t.Errorf("target rate %v, want 3000", v)
	}
	h := second["clickgen_produce_latency_seconds"].GetMetric()[0].GetHistogram()
	prev := uint64(0)
	for _, b := range h.Bucket {
		if b.GetCumulativeCount() < prev {
			t.Errorf("bucket le=%v holds %d < %d below it", b.GetUpperBound(), b.GetCumulativeCount(), prev)
		}
		prev = b.GetCumulativeCount()
	}
	if prev != h.GetSampleCount() || prev == 0 {
		t.Errorf("+Inf bucket %d, count %d", prev, h.GetSampleCount())
	}

	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Topics map[string]struct{ Sent, Acked, Failed int64 }
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if got := rep.Topics["hits"]; float64(got.Acked) < sample(second, acked, "topic", "hits") ||
		float64(got.Sent) < sample(second, "clickgen_messages_sent_total", "topic", "hits") || got.Acked != got.Sent {
		t.Errorf("report %+v counts less than the last scrape, or not everything sent was acknowledged", got)
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("the metrics server still answers after the run")
	}
}

func m2(m []string) string {
	if m == nil {
		return ""
	}
	return m[1]
}

// TestMetricsOnEveryPlayingVerb: batch, live, snapshot and run all take --metrics-addr; a
// malformed or busy address is a usage error before anything is sent.
func TestMetricsOnEveryPlayingVerb(t *testing.T) {
	for _, args := range [][]string{
		raceScaled("batch", "--day", "0", "--limit", "100", "--file", "-"),
		raceScaled("live", "--day", "0", "--speed", "10000000", "--file", "-"),
		raceScaled("snapshot", "--day", "1", "--file", "-"),
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

// TestCheckMetricsAddr: a bad --metrics-addr is refused naming the flag, before anything is
// read or sent.
func TestCheckMetricsAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"nope":           `--metrics-addr "nope": want HOST:PORT, e.g. 127.0.0.1:9100 or :9100`,
		":99999":         `--metrics-addr ":99999": port "99999" is not a number from 0 to 65535`,
		"localhost:http": `--metrics-addr "localhost:http": port "http" is not a number from 0 to 65535`,
	} {
		_, errs, code := clickgen(t, "batch", "--day", "0", "--scale", "0.01", "--file", "/dev/null", "--metrics-addr", addr)
		if code != 2 || !strings.HasPrefix(errs, "clickgen: batch: "+want+"\n") {
			t.Errorf("--metrics-addr %q: exit %d, %q; want 2, %q", addr, code, errs, want)
		}
	}
}

// TestListenMetrics: a busy address fails naming the flag, a usage error before anything is
// sent.
func TestListenMetrics(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, errs, code := clickgen(t, "batch", "--day", "0", "--scale", "0.01", "--file", "/dev/null", "--metrics-addr", ln.Addr().String())
	if code != 2 || !strings.HasPrefix(errs, "clickgen: batch: --metrics-addr: ") {
		t.Errorf("--metrics-addr of a busy address: exit %d, %q; want 2 and an error naming --metrics-addr", code, errs)
	}
}

// lineWatch, stressDoc: the command's test packages share them (internal/cmdtest).
type (
	lineWatch = cmdtest.LineWatch
	stressDoc = cmdtest.StressDoc
)

var (
	newLineWatch = cmdtest.NewLineWatch
	readStress   = cmdtest.ReadStress
)
