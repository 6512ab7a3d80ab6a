package measure

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/measure/latency"
	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/measure/storefollow"
)

// TestStoreThresholds: store_pN, store_max, store_mean and store_unseen parse and judge the
// followed table's figures; a figure the store has not is refused; a run that followed no
// table, or saw no key, crosses every store threshold with why.
func TestStoreThresholds(t *testing.T) {
	var h latency.Histogram
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * 100 * time.Millisecond) // 0.1 s … 10 s
	}
	with := Figures{Store: &StoreFigures{Histogram: h, Sampled: 103, Seen: 100, Unseen: 3}}
	for _, tc := range []struct {
		expr   string
		f      Figures
		held   bool
		figure string
		value  string
	}{
		{"store_p99<11s", with, true, "store_p99", ""},
		{"store_p50<=2s", with, false, "store_p50", ""},
		{"store_max<10s", with, false, "store_max", "10000ms"},
		{"store_mean>1s", with, true, "store_mean", ""},
		{"store_unseen==0", with, false, "store_unseen", "3"},
		{"store_unseen<=3", with, true, "store_unseen", "3"},
		{"store_unseen==0", Figures{Store: &StoreFigures{}}, true, "store_unseen", "0"},
		{"store_p99<1s", Figures{Store: &StoreFigures{Unseen: 5}}, false, "store_p99", "no data"},
		{"store_unseen==0", Figures{}, false, "store_unseen", "no data"},
	} {
		th, err := ParseThreshold(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if th.Figure() != tc.figure {
			t.Errorf("%s reads %s, want %s", tc.expr, th.Figure(), tc.figure)
		}
		vs := th.Judge(tc.f)
		if len(vs) != 1 || vs[0].Held != tc.held || tc.value != "" && vs[0].Value() != tc.value {
			t.Errorf("%s: %v, want held %v with %s", tc.expr, vs, tc.held, tc.value)
		}
	}
	for _, bad := range []string{"store_rate>0.9", "store_failed==0", "unseen==0", "store_unseen<1.5", "store_p99<5", "freshness.unseen==0"} {
		if _, err := ParseThreshold(bad); !errors.Is(err, ErrThresholdSyntax) {
			t.Errorf("%s: %v, want a refusal", bad, err)
		}
	}
	if l := (Thresholds{}); l.NeedStore() {
		t.Error("no threshold needs the store")
	}
	var l Thresholds
	if err := l.Set("p99<1s,store_unseen==0"); err != nil || !l.NeedStore() {
		t.Errorf("NeedStore of %v: %v", l, err)
	}
	v := Verdict{Threshold: l[1], Measured: true, Got: 3}
	if got := v.String(); !strings.Contains(got, "store_unseen==0 crossed: store_unseen 3") {
		t.Errorf("verdict line %q", got)
	}
}

// TestStoreSection: what following a table measured becomes the report's store section and
// the figures the thresholds read.
func TestStoreSection(t *testing.T) {
	var h, warm, poll latency.Histogram
	h.Record(1500 * time.Millisecond)
	h.Record(2500 * time.Millisecond)
	warm.Record(4 * time.Second)
	poll.Record(3 * time.Millisecond)
	var s0 latency.Histogram
	s0.Record(1500 * time.Millisecond)
	m := New(Options{})
	m.Store(storefollow.Result{Table: "ods.event_dist", Topic: "hits", KeyColumn: "WatchID", Every: 250 * time.Millisecond,
		Sampled: 4, Seen: 3, UnseenCount: 1, Unseen: []storefollow.Key{{WatchID: 42, Date: 20605}}, Latency: h, Warmup: warm, PollTime: poll,
		MeasuredFrom: "intended send time", Series: []storefollow.Sample{{At: time.Second, Sampled: 2, Seen: 1, Pending: 1, Latency: s0}},
		Timeout: time.Minute, Waited: 2 * time.Second})
	f := m.Figures()
	if f.Store == nil || f.Store.Unseen != 1 || f.Store.Latency.Count != 2 || f.Store.Every != 250*time.Millisecond {
		t.Fatalf("store figures %+v", f.Store)
	}
	rep := m.Report().(report.Run)
	s := rep.Store
	if s == nil || s.Unseen != 1 || len(s.UnseenKeys) != 1 || s.UnseenKeys[0] != "WatchID 42 (2026-06-01)" || s.PollEveryMS != 250 ||
		s.WarmupSeen != 1 || s.LatencyMS.Max != 2500 || len(s.Series) != 1 || s.Series[0].Pending != 1 || s.Series[0].MaxMS != 1500 {
		t.Errorf("store section %+v", s)
	}
}
