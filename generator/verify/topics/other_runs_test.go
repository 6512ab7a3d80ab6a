package topics

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/tier/kafkatest"
)

// TestOtherRunsDays is issue 38 item 3: after days 0–7 and then day 8 were sent, verify --day
// 8 --days 1 found 412 784 unexpected messages, while the store check judges one day alone.
// Messages that match nothing sent and name a model day outside the run (hits by EventDate,
// orders by snapshot_date) are other runs': counted apart, with their days, and not judged.
// A message that names a day of the run, or none (another run's non-object garbage), is
// still unexpected; and Strict makes the other days' messages unexpected too.
func TestOtherRunsDays(t *testing.T) {
	w, err := world.NewWorld(world.Params{Scale: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	oh, oo := sentMessages(t, w, 0, 2, world.Garbage{}) // hits of days 0, 1; the snapshot of day 0
	rh, ro := sentMessages(t, w, 2, 1, world.Garbage{}) // hits of day 2, the snapshot of day 1
	e, err := Expect(context.Background(), w, world.Range{From: 2, Days: 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(strict bool, extra ...Message) *Result {
		c := e.NewChecker()
		c.strict = strict
		for _, m := range slices.Concat(oh, rh, extra) {
			c.AddHit(m)
		}
		for _, m := range slices.Concat(oo, ro) {
			c.AddOrder(m)
		}
		return c.Result()
	}
	// The snapshot of day 1 was sent by both runs (days 0–1 send snapshot 0, day 2 sends
	// snapshot 1): day 0's snapshot is the other run's.
	r := check(false)
	if !r.OK || r.Hits.Other.Messages != len(oh) || r.Orders.Other.Messages != len(oo) ||
		!slices.Equal(r.Hits.OtherDays, []int{0, 1}) || !slices.Equal(r.Orders.OtherDays, []int{0}) {
		t.Errorf("lenient: OK %v, other hits %d (days %v) of %d, other orders %d (days %v) of %d; want OK and all counted apart\n%s",
			r.OK, r.Hits.Other.Messages, r.Hits.OtherDays, len(oh), r.Orders.Other.Messages, r.Orders.OtherDays, len(oo), table(t, r))
	}
	if r.Hits.Unexpected.Messages != 0 || r.Hits.Other.Classes[Accepted] != len(oh) {
		t.Errorf("lenient: %d unexpected, %d accepted of other runs; want 0 and %d", r.Hits.Unexpected.Messages, r.Hits.Other.Classes[Accepted], len(oh))
	}
	text := table(t, r)
	for _, want := range []string{"other runs'", "other runs': " + strconv.Itoa(len(oh)) + " messages name model days outside the run (days 0–1)", "OK: "} {
		if !strings.Contains(text, want) {
			t.Errorf("the table lacks %q:\n%s", want, text)
		}
	}

	// Strict: the same messages are unexpected.
	r = check(true)
	if r.OK || r.Hits.Unexpected.Messages != len(oh) || r.Orders.Unexpected.Messages != len(oo) || r.Hits.Other.Messages != 0 {
		t.Errorf("strict: OK %v, %d and %d unexpected, %d other; want DIFFERS with every other run's message unexpected",
			r.OK, r.Hits.Unexpected.Messages, r.Orders.Unexpected.Messages, r.Hits.Other.Messages)
	}

	// A message of the run's own day that nothing sent, and one that names no day, are
	// differences whatever else the topic holds.
	forged := rh[0]
	forged.Value = []byte(strings.Replace(string(forged.Value), `"WatchID":"`, `"WatchID":"9`, 1))
	r = check(false, forged, Message{Partition: 0, Offset: 1 << 40, Key: []byte("1"), Value: []byte("[1,2]")})
	if r.OK || r.Hits.Unexpected.Messages != 2 || r.Hits.Other.Messages != len(oh) {
		t.Errorf("a forged hit of day 2 and a non-object: OK %v, %d unexpected, %d other; want DIFFERS, 2 unexpected, %d other",
			r.OK, r.Hits.Unexpected.Messages, r.Hits.Other.Messages, len(oh))
	}
}

// TestVerifyRangeAmongOthers: through Kafka, days 0–2 sent and then verify of day 2 alone:
// OK, the read's line says how many of the messages read are the run's and how many other
// runs', and the count ReadTopics reports (the one the progress line reads) is the run's.
func TestVerifyRangeAmongOthers(t *testing.T) {
	_, addrs := kafkatest.NewCluster(t)
	w, err := world.NewWorld(world.Params{Scale: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k, err := sink.Dial(ctx, false, sink.DefaultTopics(), nil, sink.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	for _, r := range []world.Range{{From: 0, Days: 2}, {From: 2, Days: 1}} {
		if _, err := play.Run(ctx, play.Plan{World: w, Range: r, Hits: "hits", Orders: "orders"}, k, nil); err != nil {
			t.Fatal(err)
		}
	}
	day2 := world.Range{From: 2, Days: 1}
	e, err := Expect(ctx, w, day2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantHits, _ := e.Messages()
	l := newLines()
	v := Verify{HitsTopic: "hits", OrdersTopic: "orders", Timeout: time.Minute, Options: Options{HitPartitions: 2, OrderPartitions: 1},
		Brokers: addrs, Logf: l.logf}
	res, err := v.Run(ctx, w, day2)
	if err != nil || !res.OK {
		t.Fatalf("verify of day 2 among days 0–2: %v", err)
	}
	all := strings.Join(l.all, "\n")
	total := int64(k.Stats().Topics["hits"].Acked)
	if want := "verify: read " + strconv.Itoa(int(total)) + " messages of hits in "; !strings.Contains(all, want) ||
		!strings.Contains(all, ": "+strconv.Itoa(wantHits)+" of run day 2 (2026-06-03), "+strconv.Itoa(int(total)-wantHits)+" of other runs (days 0–1, outside it; not judged)") {
		t.Errorf("the read's line does not split the run's messages from other runs':\n%s", all)
	}
	c := e.NewChecker()
	var got int64 = -1
	if err := c.ReadTopics(ctx, addrs, "hits", "", nil, func(_ string, n int64, _ time.Duration) { got = n }); err != nil {
		t.Fatal(err)
	}
	if got != int64(wantHits) {
		t.Errorf("ReadTopics counted %d messages of the run, want %d (of %d read)", got, wantHits, total)
	}
}
