package prom

import (
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/measure/storefollow"
)

// TestStoreSeries: the followed table's time until queryable, sampled, seen and pending keys,
// read from the follower's state at each scrape.
func TestStoreSeries(t *testing.T) {
	s := New()
	st := storefollow.State{Table: "ods.event_dist", KeyColumn: "WatchID", Sampled: 10, Seen: 7, Pending: 3}
	st.Latency.Record(800 * time.Millisecond)
	st.Latency.Record(3 * time.Second)
	s.Store(func() storefollow.State { return st })
	fams := scrape(t, s.Handler())
	for _, c := range []struct {
		name string
		want float64
	}{{StoreSampled, 10}, {StoreSeen, 7}, {StorePending, 3}} {
		if got, ok := value(fams, c.name, "table", "ods.event_dist"); !ok || got != c.want {
			t.Errorf("%s = %v (%v), want %v", c.name, got, ok, c.want)
		}
	}
	h := fams[StoreLatency].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 2 {
		t.Fatalf("%s counts %d, want 2", StoreLatency, h.GetSampleCount())
	}
	for _, b := range h.GetBucket() {
		want := uint64(0)
		if b.GetUpperBound() >= 1 {
			want = 1
		}
		if b.GetUpperBound() >= 5 {
			want = 2
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("bucket le %v counts %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
	var nilServer *Server
	nilServer.Store(func() storefollow.State { return st }) // nothing, no panic
}
