package measure

import (
	"time"

	"github.com/clickgen/clickgen/generator/measure/latency"
	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/measure/storefollow"
)

// StoreFigures are what following a table measured (--follow-clickhouse): the time until
// queryable of the sampled keys seen after the warm-up, and how many were sampled, seen and
// not seen; Every is the poll period, the figures' error bound with a poll's round trip.
type StoreFigures struct {
	Latency       Percentiles
	Histogram     latency.Histogram
	Sampled, Seen int64
	Unseen        int64
	Every         time.Duration
}

// Store adds what following a table measured (storefollow.Follower.Finish) to the run: the
// report's store section and the store figures that store_* thresholds read.
func (m *Run) Store(r storefollow.Result) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.store = &StoreFigures{Latency: PercentilesOf(r.Latency), Histogram: r.Latency, Sampled: r.Sampled, Seen: r.Seen,
		Unseen: r.UnseenCount, Every: r.Every}
	m.storeSection = storeSection(r)
}

// storeSection is r as the report's store section.
func storeSection(r storefollow.Result) *report.Store {
	s := &report.Store{Table: r.Table, Topic: r.Topic, KeyColumn: r.KeyColumn, PollEveryMS: Millis(r.Every),
		PollMS: PercentilesOf(r.PollTime).latency(), Sampled: r.Sampled, Seen: r.Seen, Unseen: r.UnseenCount,
		LatencyMS: PercentilesOf(r.Latency).latency(), LatencyDistributionMS: Distribution(r.Latency),
		MeasuredFrom: r.MeasuredFrom, Stale: r.Stale, NoLoadTime: r.NoLoadTime, Paused: r.Paused, NotRow: r.NotRow,
		TimeoutS: r.Timeout.Seconds(), WaitedS: r.Waited.Seconds(), Interrupted: r.Interrupted,
		Series: make([]report.StoreSample, len(r.Series)), Polls: r.Polls, PollErrors: r.PollErrors, LastPollError: r.LastPollError}
	for _, k := range r.Unseen {
		s.UnseenKeys = append(s.UnseenKeys, k.String())
	}
	if n := r.Warmup.Count(); n > 0 {
		w := PercentilesOf(r.Warmup).latency()
		s.WarmupSeen, s.WarmupLatencyMS = int64(n), &w
	}
	for i, x := range r.Series {
		p := PercentilesOf(x.Latency)
		s.Series[i] = report.StoreSample{T: x.At.Seconds(), Sampled: x.Sampled, Seen: x.Seen, Pending: x.Pending,
			P50MS: Millis(p.P50), P99MS: Millis(p.P99), MaxMS: Millis(p.Max)}
	}
	return s
}

// judgeStore judges a store_* threshold on the store figures: a latency figure of the keys
// seen, or the keys not seen (store_unseen). A run that followed no table, or saw no key, is
// crossed with why.
func (t Threshold) judgeStore(f Figures) Verdict {
	v := Verdict{Threshold: t}
	s := f.Store
	switch {
	case s == nil:
		v.Missing = "no table was followed (--follow-clickhouse)"
		return v
	case t.Stat == StatUnseen:
		v.Got = float64(s.Unseen)
	case s.Histogram.Count() == 0:
		v.Missing = "no sampled key was seen in the table"
		return v
	default:
		d := s.Histogram.Max()
		switch t.Stat {
		case StatQuantile:
			d = s.Histogram.Quantile(t.Q)
		case StatMean:
			d = s.Histogram.Mean()
		}
		v.Got = d.Seconds()
	}
	v.Measured, v.Held = true, t.Op.holds(v.Got, t.Limit)
	return v
}

// NeedStore reports whether one of l reads the figures of a followed table (store_*).
func (l Thresholds) NeedStore() bool {
	for _, t := range l {
		if t.Store {
			return true
		}
	}
	return false
}
