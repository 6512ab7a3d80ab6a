package storefollow

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/schema"
)

// fakeStore is a table whose rows appear when a test says so: each key becomes visible at a
// time of the test's clock (synctest's), fresh or loaded before the run.
type fakeStore struct {
	table Table
	mu    sync.Mutex
	rows  map[Key][]fakeRow // by Key.id()
	fail  error             // every Lookup fails with it while set
	polls int
}

type fakeRow struct {
	date  int // orders: the version's snapshot_date
	from  time.Time
	fresh bool
}

func newFake(kind Kind) *fakeStore {
	return &fakeStore{table: Table{Name: "ods.event_dist", Engine: "Distributed", Kind: kind, Date: true, LoadTime: true}, rows: map[Key][]fakeRow{}}
}

// appear makes k's row readable from at on (fresh: loaded after the follower opened).
func (s *fakeStore) appear(k Key, at time.Time, fresh bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows[k.id()] = append(s.rows[k.id()], fakeRow{date: int(k.Date), from: at, fresh: fresh})
}

func (s *fakeStore) Describe(context.Context, string) (Table, error) { return s.table, nil }
func (s *fakeStore) Now(context.Context) (time.Time, error)          { return time.Now(), nil }

func (s *fakeStore) Lookup(_ context.Context, t Table, keys []Key, _ time.Time) ([]Found, error) {
	time.Sleep(time.Millisecond) // a query's round trip, outside the lock (a durable wait)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.polls++
	if s.fail != nil {
		return nil, s.fail
	}
	var out []Found
	for _, k := range keys {
		for _, r := range s.rows[k.id()] {
			if !time.Now().Before(r.from) {
				f := Found{Key: k.id(), Fresh: r.fresh}
				if t.Kind == Orders {
					f.Key.Date = schema.Date(r.date)
				}
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// hits are n clean hit messages of day 0.
func hits(t *testing.T, n int) [][]byte {
	t.Helper()
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	err = w.Play(context.Background(), 0, 1, world.PlayOptions{}, func(b *world.Batch) error {
		for i := range b.Msgs {
			if len(out) < n {
				out = append(out, append([]byte(nil), b.Value(i)...))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func openFollower(t *testing.T, s Store, opt Options) *Follower {
	t.Helper()
	opt.Table = "ods.event_dist"
	opt.HitsTopic, opt.OrdersTopic = "hits", "orders"
	f, err := New(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestLatencyFromIntendedSendTime: every message is sampled at a high enough rate; each row
// appears a known time after its message's intended send time; the follower measures each
// latency at most one poll period (plus a round trip) late and never early, and a row
// appearing after the run is waited for.
func TestLatencyFromIntendedSendTime(t *testing.T) {
	msgs := hits(t, 50)
	synctest.Test(t, func(t *testing.T) {
		s := newFake(Hits)
		f := openFollower(t, s, Options{Every: 100 * time.Millisecond, Sample: 1000, Timeout: time.Minute})
		ctx := context.Background()
		f.Start(ctx)
		start := time.Now()
		var want []time.Duration
		for i, m := range msgs {
			due := start.Add(time.Duration(i) * 20 * time.Millisecond)
			time.Sleep(time.Until(due))
			k, ok := keyOf(Hits, m)
			if !ok {
				t.Fatalf("message %d is not a row", i)
			}
			lat := time.Duration(i%10+1) * 300 * time.Millisecond // 0.3 s … 3 s
			s.appear(k, due.Add(lat), true)
			want = append(want, lat)
			f.Acked(Ack{Topic: "hits", Due: due, Intended: true, Value: m})
			f.Acked(Ack{Topic: "orders", Due: due, Intended: true, Value: m}) // another topic
		}
		var announced int
		res := f.Finish(ctx, false, func(n int, max time.Duration) { announced = n })
		if res.Sampled != 50 || res.Seen != 50 || res.UnseenCount != 0 {
			t.Fatalf("sampled %d seen %d unseen %d, want 50, 50, 0", res.Sampled, res.Seen, res.UnseenCount)
		}
		if announced == 0 {
			t.Error("the wait for rows appearing after the run was not announced")
		}
		bound := res.Every + 50*time.Millisecond
		if got := res.Latency.Quantile(0); got < 300*time.Millisecond-time.Millisecond {
			t.Errorf("smallest latency %v, want at least the smallest true 300ms (never early)", got)
		}
		if got := res.Latency.Max(); got < 3*time.Second || got > 3*time.Second+bound {
			t.Errorf("max latency %v, want within [3s, 3s+%v]", got, bound)
		}
		if res.MeasuredFrom != "intended send time" || res.KeyColumn != "WatchID" || res.Topic != "hits" {
			t.Errorf("measured from %q, key %q, topic %q", res.MeasuredFrom, res.KeyColumn, res.Topic)
		}
		if len(res.Series) < 2 || res.Series[len(res.Series)-1].Seen != 50 || res.Series[len(res.Series)-1].Pending != 0 {
			t.Errorf("series %+v: want samples ending with 50 seen and none pending", res.Series)
		}
	})
}

// TestSampleRate: messages acknowledged at 1 000 per second of intended send time, sampled at
// most 10 per second: 10 a second, spread over the run.
func TestSampleRate(t *testing.T) {
	msgs := hits(t, 1)
	s := newFake(Hits)
	f := openFollower(t, s, Options{Sample: 10})
	start := time.Unix(1_800_000_000, 0)
	for i := range 5000 {
		f.Acked(Ack{Topic: "hits", Due: start.Add(time.Duration(i) * time.Millisecond), Intended: true, Value: msgs[0]})
	}
	if f.sampled != 50 {
		t.Errorf("5 s of messages at 1000/s sampled at 10/s: %d sampled, want 50", f.sampled)
	}
}

// TestStalledPipelineUnseen: rows that never appear are unseen at the end, listed by key, after
// the whole timeout was waited; the latencies seen before the stall stay.
func TestStalledPipelineUnseen(t *testing.T) {
	msgs := hits(t, 20)
	synctest.Test(t, func(t *testing.T) {
		s := newFake(Hits)
		f := openFollower(t, s, Options{Every: 100 * time.Millisecond, Sample: 1000, Timeout: 5 * time.Second})
		f.Start(context.Background())
		start := time.Now()
		var unseen []Key
		for i, m := range msgs {
			due := start.Add(time.Duration(i) * 10 * time.Millisecond)
			k, _ := keyOf(Hits, m)
			if i < 5 {
				s.appear(k, due.Add(200*time.Millisecond), true)
			} else {
				unseen = append(unseen, k)
			}
			f.Acked(Ack{Topic: "hits", Due: due, Value: m})
		}
		time.Sleep(time.Second)
		res := f.Finish(context.Background(), false, nil)
		if res.Seen != 5 || res.UnseenCount != 15 || len(res.Unseen) != 15 {
			t.Fatalf("seen %d unseen %d (listed %d), want 5 and 15", res.Seen, res.UnseenCount, len(res.Unseen))
		}
		if res.Unseen[0] != unseen[0] || !strings.HasPrefix(res.Unseen[0].String(), "WatchID ") {
			t.Errorf("first unseen %v, want %v", res.Unseen[0], unseen[0])
		}
		if res.Waited < 5*time.Second || res.Interrupted {
			t.Errorf("waited %v (interrupted %v), want the whole 5s timeout", res.Waited, res.Interrupted)
		}
		if res.MeasuredFrom != "handed to producer" {
			t.Errorf("measured from %q, want handed to producer", res.MeasuredFrom)
		}
	})
}

// TestSignalEndsWait: a signal (the run's context ending) during the wait ends it at once.
func TestSignalEndsWait(t *testing.T) {
	msgs := hits(t, 1)
	synctest.Test(t, func(t *testing.T) {
		s := newFake(Hits)
		f := openFollower(t, s, Options{Every: 100 * time.Millisecond, Timeout: time.Hour})
		ctx, cancel := context.WithCancel(context.Background())
		f.Start(ctx)
		f.Acked(Ack{Topic: "hits", Due: time.Now(), Value: msgs[0]})
		time.AfterFunc(3*time.Second, cancel)
		res := f.Finish(ctx, false, nil)
		if !res.Interrupted || res.Waited > 3*time.Second+time.Second {
			t.Errorf("interrupted %v after %v, want interrupted about 3s in", res.Interrupted, res.Waited)
		}
		if res.UnseenCount != 1 {
			t.Errorf("unseen %d, want 1", res.UnseenCount)
		}
	})
}

// TestInterruptedRunPollsOnce: after an interrupted run the follower does not wait: one poll.
func TestInterruptedRunPollsOnce(t *testing.T) {
	msgs := hits(t, 1)
	synctest.Test(t, func(t *testing.T) {
		s := newFake(Hits)
		f := openFollower(t, s, Options{Timeout: time.Hour})
		f.Acked(Ack{Topic: "hits", Due: time.Now(), Value: msgs[0]})
		res := f.Finish(context.Background(), true, func(int, time.Duration) { t.Error("an interrupted run announced a wait") })
		if s.polls != 1 || res.Waited > time.Second || !res.Interrupted {
			t.Errorf("%d polls in %v (interrupted %v), want one at once", s.polls, res.Waited, res.Interrupted)
		}
	})
}

// TestStaleRowsWaitForTheirOwn: a key whose row was loaded before the run (a day played again)
// is not seen by it: it waits for its own row, and is counted stale.
func TestStaleRowsWaitForTheirOwn(t *testing.T) {
	msgs := hits(t, 1)
	synctest.Test(t, func(t *testing.T) {
		s := newFake(Hits)
		f := openFollower(t, s, Options{Every: 100 * time.Millisecond, Timeout: time.Minute})
		k, _ := keyOf(Hits, msgs[0])
		start := time.Now()
		s.appear(k, start.Add(-time.Hour), false)
		s.appear(k, start.Add(2*time.Second), true)
		f.Start(context.Background())
		f.Acked(Ack{Topic: "hits", Due: start, Intended: true, Value: msgs[0]})
		res := f.Finish(context.Background(), false, nil)
		if res.Seen != 1 || res.Stale != 1 {
			t.Fatalf("seen %d stale %d, want 1 and 1", res.Seen, res.Stale)
		}
		if got := res.Latency.Max(); got < 2*time.Second {
			t.Errorf("latency %v, want at least the 2s until its own row", got)
		}
	})
}

// TestOrdersSeenByTheirVersion: an order's earlier version in the table does not make a new
// snapshot's message seen; its own version does.
func TestOrdersSeenByTheirVersion(t *testing.T) {
	msg := []byte(`{"order_id":"20260601-0001","user_id":1019014440196229,"status":"paid","created_at":"2026-05-31T20:08:56.133Z","updated_at":"2026-06-02T19:51:59.133Z","items_total":"589.90","discount":"0.00","delivery":"299.00","total":"888.90","items":[{"sku":"WEAR-0020","qty":1,"price":"589.90"}],"snapshot_date":"2026-06-03"}`)
	k, ok := keyOf(Orders, msg)
	if !ok || k.OrderID != "20260601-0001" || k.Date.String() != "2026-06-03" {
		t.Fatalf("key of an order: %+v, %v", k, ok)
	}
	synctest.Test(t, func(t *testing.T) {
		s := newFake(Orders)
		f := openFollower(t, s, Options{Every: 100 * time.Millisecond, Timeout: time.Minute})
		start := time.Now()
		older := k
		older.Date--
		s.appear(older, start, true)
		s.appear(k, start.Add(time.Second), true)
		f.Start(context.Background())
		f.Acked(Ack{Topic: "orders", Due: start, Value: msg})
		res := f.Finish(context.Background(), false, nil)
		if res.Seen != 1 || res.Latency.Max() < time.Second {
			t.Errorf("seen %d after %v, want 1 after at least 1s (its own version)", res.Seen, res.Latency.Max())
		}
		if res.KeyColumn != "order_id" || res.Topic != "orders" {
			t.Errorf("key column %q, topic %q, want order_id of orders", res.KeyColumn, res.Topic)
		}
	})
}

// TestGarbageIsNotSampled: a message the intake refuses never becomes a row: it is not
// followed, and the next clean message is sampled in its place.
func TestGarbageIsNotSampled(t *testing.T) {
	msgs := hits(t, 1)
	s := newFake(Hits)
	f := openFollower(t, s, Options{Sample: 1})
	due := time.Unix(1_800_000_000, 0)
	for _, g := range [][]byte{[]byte(`{"WatchID":1}`), []byte("not json"), {}, []byte(strings.Replace(string(msgs[0]), `"WatchID":`, `"WatchID":"`, 1))} {
		f.Acked(Ack{Topic: "hits", Due: due, Value: g})
	}
	f.Acked(Ack{Topic: "hits", Due: due, Value: msgs[0]})
	if f.sampled != 1 || f.notRow != 4 {
		t.Errorf("sampled %d, not rows %d: want the clean message sampled after 4 refused", f.sampled, f.notRow)
	}
}

// TestMaxPendingPausesSampling: while MaxPending keys wait, sampling pauses and says so.
func TestMaxPendingPausesSampling(t *testing.T) {
	msgs := hits(t, 1)
	s := newFake(Hits)
	f := openFollower(t, s, Options{Sample: 1000, MaxPending: 3})
	start := time.Unix(1_800_000_000, 0)
	for i := range 10 {
		f.Acked(Ack{Topic: "hits", Due: start.Add(time.Duration(i) * time.Second), Value: msgs[0]})
	}
	if f.sampled != 3 || f.paused != 7 {
		t.Errorf("sampled %d paused %d, want 3 and 7", f.sampled, f.paused)
	}
}

// TestPollErrorsCounted: a failing store is counted, its last error kept; the keys stay unseen.
func TestPollErrorsCounted(t *testing.T) {
	msgs := hits(t, 1)
	synctest.Test(t, func(t *testing.T) {
		s := newFake(Hits)
		s.fail = errors.New("clickhouse: Code: 279. All connection tries failed")
		f := openFollower(t, s, Options{Every: 100 * time.Millisecond, Timeout: time.Second})
		f.Start(context.Background())
		f.Acked(Ack{Topic: "hits", Due: time.Now(), Value: msgs[0]})
		res := f.Finish(context.Background(), false, nil)
		if res.PollErrors == 0 || !strings.Contains(res.LastPollError, "279") || res.UnseenCount != 1 {
			t.Errorf("poll errors %d (%q), unseen %d", res.PollErrors, res.LastPollError, res.UnseenCount)
		}
	})
}

// TestValidate names the field at fault.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		opt   Options
		field string
	}{
		{Options{}, "Table"},
		{Options{Table: "a.b.c"}, "Table"},
		{Options{Table: "x; DROP TABLE y"}, "Table"},
		{Options{Table: "t", Every: time.Millisecond}, "Every"},
		{Options{Table: "t", Sample: -1}, "Sample"},
		{Options{Table: "t", Sample: 1e-12}, "Sample"}, // its period overflowed a time.Duration
		{Options{Table: "t", Sample: 1e7}, "Sample"},
		{Options{Table: "t", Timeout: -time.Second}, "Timeout"},
		{Options{Table: "t", MaxPending: -1}, "MaxPending"},
	} {
		var fe *field.Error
		if err := tc.opt.Validate(); !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%+v: %v, want an error of field %s", tc.opt, err, tc.field)
		}
	}
	if err := (Options{Table: "ods.event_dist"}).Validate(); err != nil {
		t.Errorf("a plain table: %v", err)
	}
}

// TestOpenRefusesAnotherTopic: a table of orders in a run that sends only hits is refused
// before the run.
func TestOpenRefusesAnotherTopic(t *testing.T) {
	f, err := New(newFake(Orders), Options{Table: "ods.order_dist", HitsTopic: "hits"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Open(context.Background()); !errors.Is(err, ErrNotFollowable) || !strings.Contains(err.Error(), "orders") {
		t.Errorf("Open: %v, want a refusal naming orders", err)
	}
}
