package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/generator/verify/summary"
	"github.com/clickgen/clickgen/profiles"
)

// brokenDay1 sends run day 1 of p to the embedded broker at addrs broken one way each: a clean
// hit lost, one changed in a byte of its Referer (its WatchID kept), one delivered twice, one
// moved to day 9 (another run's), and a hit nothing sent.
func brokenDay1(t *testing.T, p profiles.Profile, addrs []string) {
	t.Helper()
	ctx := context.Background()
	w, err := p.NewWorld(ctx, profiles.MemoryLimit{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	k, err := sink.Dial(ctx, true, sink.DefaultTopics(), nil, sink.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	var msgs []sink.Message
	for u, err := range w.Units(ctx, world.Range{From: p.Play.Day, Days: p.Play.Days, Garbage: p.Garbage}, world.UnitOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		tp := "orders"
		if u.Kind == world.HitsUnit {
			tp = "hits"
		}
		for b := range u.Batches() {
			for i := range b.Msgs {
				msgs = append(msgs, sink.Message{Topic: tp, Key: bytes.Clone(b.Key(i)), Value: bytes.Clone(b.Value(i))})
			}
			b.Release()
		}
		for _, x := range u.Extras {
			msgs = append(msgs, sink.Message{Topic: tp, Key: x.Key, Value: x.Value})
		}
	}
	seen := map[string]int{}
	for _, m := range msgs {
		seen[string(m.Value)]++
	}
	var picked []int
	for i, m := range msgs {
		if _, ok := intake.HitDedupKey(m.Value); ok && m.Topic == "hits" && seen[string(m.Value)] == 1 && len(picked) < 4 {
			picked = append(picked, i)
		}
	}
	if len(picked) < 4 {
		t.Fatal("the day has not 4 clean hits")
	}
	lost, changed, copied, moved := picked[0], picked[1], picked[2], picked[3]
	v := bytes.Clone(msgs[changed].Value)
	v[bytes.Index(v, []byte(`"Referer":"`))+len(`"Referer":"`)] ^= 0x01
	msgs[changed].Value = v
	other := msgs[moved]
	other.Value = bytes.Replace(bytes.Clone(other.Value), []byte(`"EventDate":"`+world.DayDate(1).String()), []byte(`"EventDate":"`+world.DayDate(9).String()), 1)
	msgs = append(msgs, msgs[copied], other, sink.Message{Topic: "hits", Key: []byte("1234567890"), Value: []byte(`{"WatchID":1}`)})
	msgs = append(msgs[:lost], msgs[lost+1:]...)
	for _, m := range msgs {
		if err := k.Send(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// reportSummary reads the summary of the report at path.
func reportSummary(t *testing.T, path string) summary.Summary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary *summary.Summary `json:"summary"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Summary == nil {
		t.Fatalf("report without a summary (%v):\n%s", err, b)
	}
	return *doc.Summary
}

// summaryTable is the summary's table in out: its heading, spaces collapsed, and the labels
// of its rows.
func summaryTable(out string) (head string, rows []string) {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "summary ") {
			continue
		}
		head = strings.Join(strings.Fields(l), " ")
		for _, r := range lines[i+1:] {
			label, _, _ := strings.Cut(r, "  ")
			rows = append(rows, label)
			if label == "total" {
				break
			}
		}
	}
	return head, rows
}

// TestRunSummary: Run prints, after either source's table, the summary in the same words,
// a row per unit kind and the total, within 100 columns, and the report carries the same summary. The
// topics are a run broken one way each, read from the embedded broker: each fault in its
// word (the store's mapping of the same faults is proven against the store's fake in its
// package; here a store's result goes through the same print and report).
func TestRunSummary(t *testing.T) {
	b, err := broker.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := profiles.Batch()
	p.World.Scale, p.Play.Day, p.Play.Days = 0.02, 1, 1
	brokenDay1(t, p, b.Addrs())

	k := DefaultKafka()
	k.Timeout = time.Minute
	k.Sink.Brokers = b.Addrs()
	var out bytes.Buffer
	report := filepath.Join(t.TempDir(), "kafka.json")
	err = Run(context.Background(), Config{Profile: p, Workers: 1, Kafka: &k, Report: report, Stdout: &out, Stderr: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "differ") {
		t.Fatalf("Run of a broken run = %v, want it to differ\n%s", err, out.String())
	}
	got := reportSummary(t, report)
	if len(got.Lines) != 2 || got.Source != "topics" {
		t.Fatalf("summary %+v, want the topics' two lines", got)
	}
	h, o := got.Lines[0].Counts, got.Lines[1].Counts
	if h.Missing != 1 || h.Changed != 1 || h.Copies != 1 || h.Unplanned != 1 || h.OtherRuns != 1 || h.Present != h.Planned-1 ||
		o.Present != o.Planned || o.Missing+o.Unplanned+o.Changed+o.Copies+o.OtherRuns != 0 {
		t.Errorf("hits %s, orders %s; want one missing, changed, copy, unplanned and other run's hit\n%s", h.Words(), o.Words(), out.String())
	}
	var text bytes.Buffer
	if err := got.Write(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "\n"+text.String()) || !strings.Contains(out.String(), "DIFFERS") {
		t.Errorf("stdout does not end with the report's summary after the table:\n%s\nwant it to end with\n%s", out.String(), text.String())
	}

	// A store's result, through the same print and report.
	res := &store.Result{Events: &store.EventsResult{TableHead: store.TableHead{Table: "ods.event_dist"}, Total: store.EventCounts{Planned: 5, Present: 4, Missing: 1, Changed: 1}},
		Raw: &store.DigestResult{TableHead: store.TableHead{Table: "stg.hits_raw_dist"}, Total: store.DigestCounts{Planned: 6, Present: 4, Missing: 2, Copies: 1},
			Unplanned: 2, OtherDates: 1}}
	var sout bytes.Buffer
	sreport := filepath.Join(t.TempDir(), "store.json")
	c := &Config{Stdout: &sout, rep: &fileio.Report{Path: sreport}}
	c.rep.Arm()
	if err := c.rep.Finish(c.publish(res), nil); err != nil {
		t.Fatal(err)
	}
	ss := reportSummary(t, sreport)
	if ss.Source != "store" || len(ss.Lines) != 2 || ss.Lines[0].Changed != 1 || ss.Lines[1].Unplanned != 2 || ss.Lines[1].OtherRuns != 1 || ss.Total.Missing != 3 {
		t.Errorf("the store's summary %+v", ss)
	}
	kh, krows := summaryTable(out.String())
	sh, srows := summaryTable(sout.String())
	if want := strings.Join(summary.Head, " "); kh != want || sh != want {
		t.Errorf("summary headings %q and %q, want the words %q", kh, sh, want)
	}
	if !slices.Equal(krows, []string{"hits (messages)", "orders (messages)", "total"}) || !slices.Equal(srows, []string{"events (WatchIDs)", "raw (rows)", "total"}) {
		t.Errorf("summary rows %q and %q, want a row per unit kind and the total", krows, srows)
	}
	for _, l := range strings.Split(out.String()+sout.String(), "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
}
