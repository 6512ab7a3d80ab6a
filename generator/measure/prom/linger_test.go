package prom

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// lingerRun serves a run into a file sink that was sent n messages on a free port, with
// Linger(d). It returns the scrape URL, the server, and end, which closes the server after
// the run in the background (Close with ctx, announcing its wait on waits) and returns a
// channel closed when Close has returned.
func lingerRun(t *testing.T, ctx context.Context, d time.Duration, n int) (string, *Server, func(waits *[]string) chan struct{}) {
	t.Helper()
	w, err := sink.NewWriter(io.Discard, sink.WriterOptions{Partitions: map[string]int32{"hits": 1}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Linger(d)
	s.RunStarted(play.Start{Plan: play.Plan{Hits: "hits"}, Stats: w.Stats})
	for range n {
		if err := w.Send(ctx, sink.Message{Topic: "hits", Value: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	url := "http://" + s.Addr().String() + "/metrics"
	return url, s, func(waits *[]string) chan struct{} {
		ended := make(chan struct{})
		go func() {
			s.Close(ctx, waitLog{waits: waits}.Waiting)
			close(ended)
		}()
		return ended
	}
}

// waitLog keeps the waits it is told of, "what at most max".
type waitLog struct {
	waits *[]string
}

func (l waitLog) Waiting(what string, max time.Duration) {
	if l.waits != nil {
		*l.waits = append(*l.waits, what+" at most "+max.String())
	}
}

// acked scrapes url over HTTP and returns clickgen_messages_acked_total{topic="hits"}.
func acked(t *testing.T, url string) float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	v, _ := value(fams, MessagesAcked, "topic", "hits")
	return v
}

// await waits for ch, failing the test after a bound far below any linger the tests set.
func await(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: not within 30 s", what)
	}
}

// TestLingerUntilFinalScrape: with Linger, the run's end keeps the server up after the run
// until a scrape that started after the end has been answered, and that scrape reads the
// final counts; then the server is gone. A scrape during the run does not count. The linger
// is an hour: only the scrape ends it.
func TestLingerUntilFinalScrape(t *testing.T) {
	url, s, end := lingerRun(t, context.Background(), time.Hour, 7)
	if got := acked(t, url); got != 7 {
		t.Errorf("scrape during the run: acked %v, want 7", got)
	}
	var waits []string
	closed := end(&waits)
	await(t, s.lingering, "the wait for a final scrape")
	select {
	case <-s.scraped:
		t.Fatal("a scrape during the run counted as the final one")
	default:
	}
	if got := acked(t, url); got != 7 {
		t.Errorf("final scrape: acked %v, want 7", got)
	}
	await(t, closed, "the end after the final scrape")
	if _, err := http.Get(url); err == nil {
		t.Errorf("the metrics server still answers after the final scrape")
	}
	if want := LingerWait + " at most 1h0m0s"; len(waits) != 1 || waits[0] != want {
		t.Errorf("waits announced %q, want %q", waits, want)
	}
}

// TestLingerEnds: without a scrape the wait ends when the linger has passed, or at once when
// the run's context is done (an interrupted run), and a zero linger does not wait at all.
func TestLingerEnds(t *testing.T) {
	_, _, end := lingerRun(t, context.Background(), 10*time.Millisecond, 1)
	await(t, end(nil), "the end after a 10 ms linger without a scrape")

	ctx, cancel := context.WithCancel(context.Background())
	_, s, end := lingerRun(t, ctx, time.Hour, 1)
	closed := end(nil)
	await(t, s.lingering, "the wait for a final scrape")
	cancel()
	await(t, closed, "the end after the run's context was cancelled")

	_, s, end = lingerRun(t, context.Background(), 0, 1)
	var waits []string
	await(t, end(&waits), "the end without a linger")
	if len(waits) != 0 {
		t.Errorf("a zero linger announced %q", waits)
	}
	select {
	case <-s.lingering:
		t.Error("a zero linger waited for a scrape")
	default:
	}
}
