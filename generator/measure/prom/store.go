package prom

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/clickgen/clickgen/generator/measure/storefollow"
)

// The series of freshness until queryable (--follow-clickhouse), by the table followed.
const (
	StoreLatency = "clickgen_store_freshness_seconds" // histogram {table}
	StoreSampled = "clickgen_store_sampled_total"     // counter {table}
	StoreSeen    = "clickgen_store_seen_total"        // counter {table}
	StorePending = "clickgen_store_pending_keys"      // gauge {table}
)

var (
	descStoreLatency = prometheus.NewDesc(StoreLatency, "Time from each sampled message's intended send time (unpaced: when it was handed to the producer) to the first poll of the followed table that returned its key (--follow-clickhouse), by table.", []string{"table"}, nil)
	descStoreSampled = prometheus.NewDesc(StoreSampled, "Messages sampled to be followed into the table.", []string{"table"}, nil)
	descStoreSeen    = prometheus.NewDesc(StoreSeen, "Sampled messages whose key a poll of the table returned.", []string{"table"}, nil)
	descStorePending = prometheus.NewDesc(StorePending, "Sampled messages whose key the table has not returned yet.", []string{"table"}, nil)
)

// Store makes s serve the followed table's time until queryable and its sampled, seen and
// pending keys, read from state (storefollow.Follower.State) at each scrape. Nothing on a
// nil *Server or a nil state.
func (s *Server) Store(state func() storefollow.State) {
	if s == nil || state == nil {
		return
	}
	s.reg.MustRegister(storeCollector{state})
}

// storeCollector reads the store follower's state at each scrape.
type storeCollector struct{ state func() storefollow.State }

func (c storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descStoreLatency, descStoreSampled, descStoreSeen, descStorePending} {
		ch <- d
	}
}

func (c storeCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.state()
	b := make(map[float64]uint64, len(PipelineLatencyBounds))
	for _, le := range PipelineLatencyBounds {
		b[le] = st.Latency.CountAtMost(time.Duration(le * float64(time.Second)))
	}
	ch <- prometheus.MustNewConstHistogram(descStoreLatency, st.Latency.Count(), st.Latency.Sum().Seconds(), b, st.Table)
	ch <- prometheus.MustNewConstMetric(descStoreSampled, prometheus.CounterValue, float64(st.Sampled), st.Table)
	ch <- prometheus.MustNewConstMetric(descStoreSeen, prometheus.CounterValue, float64(st.Seen), st.Table)
	ch <- prometheus.MustNewConstMetric(descStorePending, prometheus.GaugeValue, float64(st.Pending), st.Table)
}
