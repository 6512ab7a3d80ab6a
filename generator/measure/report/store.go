package report

// Store is the report's store section: freshness until queryable (--follow-clickhouse), as
// generator/measure/storefollow measures it: the sampled messages, which of them could be read from
// the table by the end of the wait, and the time each took from its intended send time.
type Store struct {
	// Table is the table read, Topic the topic sampled and KeyColumn its key (WatchID,
	// order_id).
	Table     string `json:"table"`
	Topic     string `json:"topic"`
	KeyColumn string `json:"key_column"`
	// PollEveryMS is the poll period and PollMS each poll's round trip: every latency is at
	// most their sum late, never early (the figures' error bound).
	PollEveryMS float64 `json:"poll_every_ms"`
	PollMS      Latency `json:"poll_ms"`
	// Sampled counts the messages sampled, Seen those read, Unseen the others; UnseenKeys
	// lists the first of them (storefollow.MaxUnseenKeys).
	Sampled    int64    `json:"sampled"`
	Seen       int64    `json:"seen"`
	Unseen     int64    `json:"unseen"`
	UnseenKeys []string `json:"unseen_keys,omitempty"`
	// LatencyMS is the time until queryable of the keys seen after the warm-up (all of them
	// without one), in milliseconds; LatencyDistributionMS the same as [percentile, ms] pairs.
	LatencyMS             Latency      `json:"latency_ms"`
	LatencyDistributionMS [][2]float64 `json:"latency_distribution_ms,omitempty"`
	// MeasuredFrom says what latency is measured from, as the follow section says it.
	MeasuredFrom string `json:"measured_from"`
	// Stale counts sampled keys first found only in rows loaded before the run (they waited
	// for their own); NoLoadTime says the table has no _load_ts to tell such rows apart.
	Stale      int64 `json:"stale"`
	NoLoadTime bool  `json:"no_load_time,omitempty"`
	// Paused counts messages the sampling left out while too many keys waited; NotRow the
	// sampled messages the intake does not accept as a row (garbage).
	Paused int64 `json:"paused"`
	NotRow int64 `json:"not_row"`
	// WarmupSeen counts the warm-up's keys seen, WarmupLatencyMS their latency.
	WarmupSeen      int64    `json:"warmup_seen,omitempty"`
	WarmupLatencyMS *Latency `json:"warmup_latency_ms,omitempty"`
	// TimeoutS bounds the wait at the end; WaitedS is how long it took; Interrupted says a
	// signal (or an interrupted run) ended it.
	TimeoutS    float64 `json:"timeout_s"`
	WaitedS     float64 `json:"waited_s"`
	Interrupted bool    `json:"interrupted"`
	// Series samples the keys sampled, seen and pending over the run and the wait at its end.
	Series        []StoreSample `json:"series"`
	Polls         int           `json:"polls"`
	PollErrors    int           `json:"poll_errors"`
	LastPollError string        `json:"last_poll_error,omitempty"`
}

// StoreSample is the store follower's state T seconds after it started: the keys sampled,
// seen and not yet seen (pending) so far, and the latency of those seen since the sample
// before (zero when none was).
type StoreSample struct {
	T       float64 `json:"t_s"`
	Sampled int64   `json:"sampled"`
	Seen    int64   `json:"seen"`
	Pending int64   `json:"pending"`
	P50MS   float64 `json:"p50_ms"`
	P99MS   float64 `json:"p99_ms"`
	MaxMS   float64 `json:"max_ms"`
}
