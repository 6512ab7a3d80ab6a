package main

import (
	"strings"
	"time"

	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/session"
	"github.com/clickgen/clickgen/generator/verify"
	"github.com/clickgen/clickgen/profiles"
	"github.com/clickgen/clickgen/schema"
)

// The environment variables the flags fall back to: the stand's, Kubernetes' and clickgen's
// own. CLICKGEN_SASL_PASSWORD and CLICKHOUSE_PASSWORD hold secrets, which never travel as
// flags.
const (
	seedEnv         = "GENERATOR_SEED"
	catalogEnv      = "GENERATOR_CATALOG"
	dayEnv          = "GENERATOR_DAY"
	daysEnv         = "GENERATOR_DAYS"
	speedEnv        = "GENERATOR_SPEED"
	limitEnv        = "GENERATOR_LIMIT"
	segmentEnv      = "CLICKGEN_SEGMENT"
	jobIndexEnv     = "JOB_COMPLETION_INDEX" // set in each pod of a Kubernetes Indexed Job: 0 … completions−1
	sinkFileEnv     = "GENERATOR_FILE"
	sinkBrokersEnv  = "KAFKA_BOOTSTRAP_SERVERS"
	sinkTopicEnv    = "KAFKA_TOPIC"
	sinkPasswordEnv = "CLICKGEN_SASL_PASSWORD"
	// clickhousePasswordEnv names the variable the ClickHouse password comes from; it is
	// never a flag, so it shows in no process list, and never printed.
	clickhousePasswordEnv = "CLICKHOUSE_PASSWORD"
)

// Sets of verbs that share flags.
const (
	standVerbs   = vBatch | vLive | vSnapshot | vInventory // the stand's verbs that play a built-in profile
	worldVerbs   = vRun | standVerbs | vVerify | vInject   // build a world
	garbageVerbs = vRun | standVerbs | vVerify             // plan garbage
	dayVerbs     = standVerbs | vVerify                    // need --day
	sendVerbs    = vRun | vBatch | vLive | vSnapshot | vInject
	sinkVerbs    = vBatch | vLive | vSnapshot | vInject // a file or a topic of their choice
	connVerbs    = sendVerbs | vVerify                  // connect to Kafka
	followVerbs  = vRun | vBatch | vLive | vSnapshot    // follow consumer groups while sending
	workerVerbs  = vRun | vBatch | vInventory | vVerify
	verdictVerbs = vRun | vBatch | vLive // judge thresholds, with a warm-up
)

// values are everything the command line sets, in the libraries' own types: each verb binds
// the rows of flagTable it takes to one of these (newValues holds the defaults).
type values struct {
	profileFile string
	seed        uint64
	scale       float64
	maxMemory   profiles.Bytes // 0: only the cgroup's limit and the available memory apply
	catalog     string         // a catalog CSV file; "" is the embedded catalog
	day, days   int
	send        string
	pacing      profiles.Pacing // --pace, --speed, --rate, --max-rate
	duration    time.Duration
	messages    int64         // run's --messages, batch's --limit
	interval    time.Duration // run's --interval, live's --progress-every
	workers     int
	garbage     world.Garbage
	segment     world.Segment
	segments    int
	merge       bool
	inject      session.Malformed // --class, --kind, --count (its day is --day)
	sink        sink.Settings
	out         session.Outputs
	kafka       verify.Kafka // verify's topics (its connection is sink's)
	store       verify.Store // verify --clickhouse (its connection flags are sink's)
	storeUser   string
	catalogFile string // catalog's --file
	listen      string
	embedded    bool // run's --embedded: the embedded broker, whatever the environment says
	advertise   string
	entity      string
	format      string
	labels      []string
	inventory   string
	title       string
}

// newValues are the defaults of verb's values: the stand's, or its built-in profile's (the
// default of a flag of a profile's field is the profile's value; run's are its profile's).
func newValues(verb verbSet) *values {
	v := &values{
		interval:    session.DefaultInterval,
		inject:      session.Malformed{Count: 1},
		sink:        sink.DefaultSettings(),
		out:         session.Outputs{Follow: session.DefaultFollow(), Store: session.StoreFollow{Table: session.DefaultStoreTable, Sample: session.DefaultStoreSample}},
		kafka:       verify.DefaultKafka(),
		store:       verify.DefaultStore(),
		catalogFile: "-",
		listen:      session.DefaultBrokerListen,
		entity:      schema.EntityHits,
		format:      schema.FormatMarkdown,
	}
	if verb&vLive != 0 {
		v.interval = time.Minute
	}
	if p, ok := builtinProfile(verb); ok {
		v.seed, v.scale, v.days, v.pacing.Speed = p.World.Seed, p.World.Scale, p.Play.Days, p.Pacing.Speed
	}
	return v
}

// builtinProfile is the profile verb plays with its flags as overrides, when it is not
// run's (a user's): the stand's verbs' and, for its world and days, verify's and inject's.
func builtinProfile(verb verbSet) (profiles.Profile, bool) {
	switch {
	case verb&vLive != 0:
		return profiles.Live(), true
	case verb&vSnapshot != 0:
		return profiles.Snapshot(), true
	case verb&(vBatch|vInventory|vVerify|vInject) != 0:
		return profiles.Batch(), true
	}
	return profiles.Profile{}, false
}

// flagTable is every flag of every verb, each declared once, in the order --help lists them.
var flagTable = []flagSpec{
	{name: "profile-file", verbs: vRun | vProfiles, field: "profile file", value: func(v *values) any { return &v.profileFile },
		help: "play the profile in this YAML `FILE` instead of an embedded one (format: 'clickgen profiles show fill')",
		alt:  []altHelp{{vProfiles, "with show: check and print the profile in this YAML `FILE`"}}},
	{name: "seed", verbs: worldVerbs, field: "world.seed", env: []string{seedEnv}, envOn: worldVerbs &^ vRun,
		value: func(v *values) any { return &v.seed }, help: "world seed",
		override: func(o *profiles.Overrides, v *values) { o.Seed = &v.seed }},
	{name: "scale", verbs: worldVerbs, field: "world.scale", value: func(v *values) any { return &v.scale },
		help:     "multiply the inflow of new visitors (and events per day) by this factor",
		override: func(o *profiles.Overrides, v *values) { o.Scale = &v.scale }},
	{name: "max-memory", verbs: worldVerbs, field: profiles.FieldMemoryLimit, def: "-", value: func(v *values) any { return &v.maxMemory },
		help: "refuse the run if its estimated memory exceeds this `SIZE` (e.g. 4GiB); the cgroup limit and available memory always apply"},
	{name: "catalog", verbs: worldVerbs, field: "world.catalog", env: []string{catalogEnv}, value: func(v *values) any { return &v.catalog },
		help:     "catalog CSV `FILE` (sku,name,category,brand,price[,demand]) instead of the embedded one",
		override: func(o *profiles.Overrides, v *values) { o.Catalog = &v.catalog }},
	{name: "day", verbs: worldVerbs, field: "play.day", env: []string{dayEnv}, envOn: dayVerbs, value: func(v *values) any { return &v.day },
		help:     "first model day `D` (0 = Monday 2026-06-01)",
		alt:      []altHelp{{vInject, "model day `D` whose clean messages the malformed ones derive from (orders: its snapshot)"}},
		required: dayVerbs, why: " (there is no default model day)",
		override: func(o *profiles.Overrides, v *values) { o.Day = &v.day }},
	{name: "days", verbs: vRun | dayVerbs&^vLive, field: "play.days", env: []string{daysEnv}, envOn: dayVerbs &^ vLive,
		value: func(v *values) any { return &v.days }, help: "number of run days `N`: D … D+N−1",
		alt:      []altHelp{{vRun, "number of run days `N`: D … D+N−1; ends play.endless"}},
		override: func(o *profiles.Overrides, v *values) { o.Days = &v.days }},
	{name: "send", verbs: vRun, field: "play.send", value: func(v *values) any { return &v.send },
		help:     "what to send: hits, snapshots or hits+snapshots",
		override: func(o *profiles.Overrides, v *values) { o.Send = &v.send }},
	{name: "pace", verbs: vRun, field: "pacing.mode", value: func(v *values) any { return &v.pacing.Mode },
		help:     "pacing mode: none, replay or rate; --speed implies replay, --rate implies rate",
		override: func(o *profiles.Overrides, v *values) { o.Pace = &v.pacing.Mode }},
	{name: "speed", verbs: vRun | vLive, field: "pacing.speed", env: []string{speedEnv}, envOn: vLive, value: func(v *values) any { return &v.pacing.Speed },
		help:     "replay speed in model seconds per real second (60 plays a day in 24 min)",
		override: func(o *profiles.Overrides, v *values) { o.Speed = &v.pacing.Speed }},
	{name: "rate", verbs: vRun, field: "pacing.rate", value: func(v *values) any { return &v.pacing.Rate },
		help:     "rate `SHAPE`, e.g. 20000/s or ramp:1000/s-20000/s:30s, see above",
		override: func(o *profiles.Overrides, v *values) { o.Rate = &v.pacing.Rate }},
	{name: "max-rate", verbs: vRun | vLive, field: "pacing.max_rate", def: "-", value: func(v *values) any { return &v.pacing.MaxRate },
		help:     "a ceiling on the hits' rate on top of any pacing, e.g. 50000/s",
		override: func(o *profiles.Overrides, v *values) { o.MaxRate = &v.pacing.MaxRate }},
	{name: "duration", verbs: vRun, field: "stop.duration", value: func(v *values) any { return &v.duration },
		help:     "stop sending after this long, e.g. 30s",
		override: func(o *profiles.Overrides, v *values) { o.Duration = &v.duration }},
	{name: "messages", verbs: vRun, field: "stop.messages", value: func(v *values) any { return &v.messages },
		help:     "stop after this many hit messages; 0 means no limit",
		override: func(o *profiles.Overrides, v *values) { o.Messages = &v.messages }},
	{name: "limit", verbs: vBatch, field: "stop.messages", env: []string{limitEnv}, value: func(v *values) any { return &v.messages },
		help:     "stop after this many messages in the whole run (events, and garbage if any); 0 means no limit",
		override: func(o *profiles.Overrides, v *values) { o.Messages = &v.messages }},
	{name: "interval", verbs: vRun, field: "Interval", def: "5s; 1m for a replayed profile", value: func(v *values) any { return &v.interval },
		help: "how often a paced run prints a progress line (at least 100ms)"},
	{name: "progress-every", verbs: vLive, field: "Interval", value: func(v *values) any { return &v.interval },
		help: "how often to print a progress line (at least 100ms)"},
	{name: "workers", verbs: workerVerbs, field: "workers", value: func(v *values) any { return &v.workers },
		help: "generate the days on this many cores; 0 means all",
		alt:  []altHelp{{vVerify, "compute the expectation on this many cores; 0 means all"}}},
	{name: "garbage", verbs: garbageVerbs, field: "garbage.rate", value: func(v *values) any { return &v.garbage.Rate },
		help:     "add this many malformed messages per clean message (0.01 = one in a hundred)",
		override: func(o *profiles.Overrides, v *values) { o.GarbageRate = &v.garbage.Rate }},
	{name: "garbage-mix", verbs: garbageVerbs, field: "garbage.mix", value: func(v *values) any { return &v.garbage.Mix },
		help: "weights of garbage classes, e.g. not_an_object=2,keyset_mismatch=1,field_invalid=1; classes: " +
			strings.Join(world.AllGarbageClasses(), ", ") + " (accepted_bad and vanishing only when named)",
		override: func(o *profiles.Overrides, v *values) { o.Mix = &v.garbage.Mix }},
	{name: "redeliver", verbs: garbageVerbs, field: "garbage.redeliver", value: func(v *values) any { return &v.garbage.Redeliver },
		help:     "add this many byte-identical re-sends per clean message (at-least-once delivery)",
		override: func(o *profiles.Overrides, v *values) { o.Redeliver = &v.garbage.Redeliver }},
	{name: "segment", verbs: garbageVerbs, field: "segment", env: []string{segmentEnv}, excludes: "segments", value: func(v *values) any { return &v.segment },
		help: "play segment `I/N` of the run: the messages whose key hashes to I of N, in the run's order; N processes with 0/N … N−1/N send the run exactly once",
		def:  "-"},
	{name: "segments", verbs: garbageVerbs, field: "segments", excludes: "segment", value: func(v *values) any { return &v.segments },
		help: "play segment I/`N` with I from env " + jobIndexEnv + ", as a Kubernetes Indexed Job of N completions sets it"},
	{name: "merge", verbs: vInventory, field: "inventory file", value: func(v *values) any { return &v.merge },
		help: "instead of computing, sum the inventories of the N segments of one run given as `FILE` arguments into the whole run's (per-day hashes become segment_sha256)"},
	{name: "class", verbs: vInject, field: "Class", value: func(v *values) any { return &v.inject.Class },
		help: "garbage class of the messages (required); see above"},
	{name: "kind", verbs: vInject, field: "Kind", value: func(v *values) any { return &v.inject.Kind },
		help: "contract to break, hits or orders; default: the topic's name"},
	{name: "count", verbs: vInject, field: "Count", value: func(v *values) any { return &v.inject.Count },
		help: "how many messages to send"},
	{name: "file", verbs: sinkVerbs, field: "File", env: []string{sinkFileEnv},
		value: func(v *values) any { return &v.sink.File }, help: "write messages to `PATH`, one per line ('-' is stdout)"},
	{name: "file", verbs: vCatalog, value: func(v *values) any { return &v.catalogFile },
		help: "write to `PATH` ('-' is stdout); a file is replaced whole or not at all"},
	{name: "flush-timeout", verbs: sendVerbs, field: "FlushTimeout", value: func(v *values) any { return &v.sink.FlushTimeout },
		help: "how long to wait for acknowledgements at the end of a day (and after Ctrl-C)"},
	{name: "report", verbs: connVerbs, field: "Report", value: func(v *values) any { return &v.out.Report },
		help: "write the final report as JSON to `FILE`",
		alt:  []altHelp{{vVerify, "write the full result as JSON to `FILE`"}}},
	{name: "metrics-addr", verbs: sendVerbs, field: "MetricsAddr", value: func(v *values) any { return &v.out.MetricsAddr },
		help: "serve Prometheus metrics on http://`HOST:PORT`/metrics during the run (port 0 picks a free port)"},
	{name: "metrics-linger", verbs: sendVerbs, field: "MetricsLinger", value: func(v *values) any { return &v.out.MetricsLinger },
		help: "after the run, keep serving --metrics-addr until one scrape has read the final values, for at most `DURATION` (longer than the scrape interval: a run shorter than one still leaves samples); a signal ends the wait"},
	{name: "threshold", verbs: verdictVerbs, field: "Thresholds", value: func(v *values) any { return &v.out.Thresholds },
		help: "end the run with exit code 3 when a figure crosses `EXPR`, e.g. --threshold 'p99<50ms' " +
			"(repeatable, or comma-separated; judged once everything was sent, each verdict printed and in --report; 1 and 130 win over 3): " +
			"p50 p90 p99 p99.9 (any pN) max mean of the produce latency (max<1s), rate = acknowledged over the target rate (rate>=0.99; " +
			"a run paced by a rate, or live), failed (failed==0), freshness.pN of each --follow-group's pipeline latency " +
			"(freshness.p99<2s), store_pN store_max store_mean of the time until queryable and store_unseen of the sampled keys never read with --follow-clickhouse (store_unseen==0); compare with < <= > >= == !="},
	{name: "warmup", verbs: verdictVerbs, field: "Warmup", value: func(v *values) any { return &v.out.Warmup },
		help: "measure the run's first `DURATION` apart, e.g. --warmup 5s (connections, metadata, " +
			"a cold broker): the messages intended in it (unpaced: handed over in it) get a line and the report's warmup section of " +
			"their own, and the run's percentiles, rate and thresholds are of what came after; it must be shorter than the run's duration, if any"},
	{name: "timeout", verbs: vVerify, field: "Timeout", def: "5m; 2m with --clickhouse", value: func(v *values) any { return &v.kafka.Timeout },
		help: "give up reading the topics after this long (the store: when the server stays silent this long)"},
	{name: "brokers", verbs: connVerbs, field: "Brokers", env: []string{sinkBrokersEnv}, group: "Kafka",
		value: func(v *values) any { return &v.sink.Brokers }, help: "Kafka bootstrap `HOSTS`, comma-separated",
		alt: []altHelp{{vRun, "Kafka bootstrap `HOSTS`, comma-separated; without them, an embedded broker is played into and read back"}}},
	{name: "topic", verbs: sinkVerbs, field: "Topic", env: []string{sinkTopicEnv}, group: "Kafka", value: func(v *values) any { return &v.sink.Topic },
		help: "Kafka topic"},
	{name: "create-topics", verbs: sendVerbs, field: "CreateTopics", group: "Kafka", value: func(v *values) any { return &v.sink.CreateTopics },
		help: "create missing topics (hits with 2 partitions, orders with 1); an existing topic is left as it is"},
	{name: "replication-factor", verbs: sendVerbs, field: "Replication", group: "Kafka", value: func(v *values) any { return &v.sink.Replication },
		help: "replication factor of topics --create-topics creates; -1 is the brokers' default.replication.factor"},
	{name: "compression", verbs: sendVerbs, field: "Compression", group: "Kafka", value: func(v *values) any { return &v.sink.Compression },
		help: "batch compression: none, gzip, snappy, lz4 or zstd"},
	{name: "linger", verbs: sendVerbs, field: "Linger", value: func(v *values) any { return &v.sink.Linger },
		help: "how long a message waits for more before it is sent: Kafka batches per partition; a file or pipe is written at least this often"},
	{name: "connect-timeout", verbs: connVerbs, field: "ConnectTimeout", group: "Kafka", sharedOn: vVerify, value: func(v *values) any { return &v.sink.ConnectTimeout },
		help: "fail if the brokers cannot be reached within this time (a refused connection, as of a broker still starting, is tried again until then)",
		alt:  []altHelp{{vVerify, "fail if the brokers (the server) cannot be reached within this time (a refused connection to Kafka, as of a broker still starting, is tried again until then)"}}},
	{name: "delivery-timeout", verbs: sendVerbs, field: "DeliveryTimeout", group: "Kafka", value: func(v *values) any { return &v.sink.DeliveryTimeout },
		help: "fail the run when the brokers acknowledge nothing for this long (a broker that died)"},
	{name: "tls", verbs: connVerbs, field: "TLS", group: "Kafka", value: func(v *values) any { return &v.sink.TLS },
		help: "connect to the brokers over TLS"},
	{name: "tls-ca", verbs: connVerbs, field: "TLSCA", group: "Kafka", sharedOn: vVerify, value: func(v *values) any { return &v.sink.TLSCA },
		help: "CA certificate `FILE` to verify the brokers with (implies --tls)",
		alt:  []altHelp{{vVerify, "CA certificate `FILE` to verify the brokers (an https server) with"}}},
	{name: "tls-cert", verbs: connVerbs, field: "TLSCert", group: "Kafka", value: func(v *values) any { return &v.sink.TLSCert },
		help: "client certificate `FILE` (implies --tls; needs --tls-key)"},
	{name: "tls-key", verbs: connVerbs, field: "TLSKey", group: "Kafka", value: func(v *values) any { return &v.sink.TLSKey },
		help: "client key `FILE` (implies --tls; needs --tls-cert)"},
	{name: "sasl-mechanism", verbs: connVerbs, field: "SASLMechanism", group: "Kafka", value: func(v *values) any { return &v.sink.SASLMechanism },
		help: "SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (password from env " + sinkPasswordEnv + ")"},
	{name: "sasl-user", verbs: connVerbs, field: "SASLUser", group: "Kafka", value: func(v *values) any { return &v.sink.SASLUser },
		help: "SASL user name"},
	{verbs: connVerbs, field: "SASLPassword", env: []string{sinkPasswordEnv}, errName: "the password in env " + sinkPasswordEnv,
		value: func(v *values) any { return &v.sink.SASLPassword }},
	{name: "follow-group", verbs: followVerbs, field: "Groups", group: "Kafka", value: func(v *values) any { return &v.out.Follow.Groups },
		help: "follow consumer `GROUP`'s committed offsets (repeatable): each acknowledged message's pipeline latency is from its intended send time to the first poll that sees the group's commit past it; at the end wait --follow-timeout for the group to take everything, exit 1 if it did not"},
	{name: "follow-every", verbs: followVerbs, field: "Every", group: "Kafka", value: func(v *values) any { return &v.out.Follow.Every },
		help: "how often to poll the followed groups' committed offsets and the --follow-clickhouse table (at least 10ms)"},
	{name: "follow-timeout", verbs: followVerbs, field: "Timeout", group: "Kafka", value: func(v *values) any { return &v.out.Follow.Timeout },
		help: "after the run, how long to wait for each followed group to take everything the run sent, and for the sampled messages to be readable from the --follow-clickhouse table"},
	{name: "follow-clickhouse", verbs: followVerbs, field: "URL", group: "ClickHouse", value: func(v *values) any { return &v.out.Store.URL },
		help: "measure the time until queryable in the ClickHouse at `URL` (http://host:8123, or https with --tls-ca's CA; password from env " + clickhousePasswordEnv + "): " +
			"sent messages are sampled (--follow-sample), their keys polled in --follow-table every --follow-every until each can be read, each latency from the message's intended send time; " +
			"at the end wait --follow-timeout for the rest; unseen keys are listed (threshold store_unseen==0 fails on them)"},
	{name: "follow-table", verbs: followVerbs, field: "Table", group: "ClickHouse", value: func(v *values) any { return &v.out.Store.Table },
		help: "`TABLE` --follow-clickhouse reads (a Distributed face reads every shard): a WatchID column follows hits, order_id orders; with _load_ts, rows loaded before the run do not count"},
	{name: "follow-sample", verbs: followVerbs, field: "Sample", group: "ClickHouse", value: func(v *values) any { return &v.out.Store.Sample },
		help: "sample at most this `RATE` of the sent messages, by intended send time, for --follow-clickhouse (e.g. 20/s)"},
	{name: "clickhouse-user", verbs: followVerbs, field: "User", group: "ClickHouse", def: "-", value: func(v *values) any { return &v.storeUser },
		help: "ClickHouse user `NAME` of --follow-clickhouse, overriding the URL's (default: the URL's, else the server's default user)"},
	{verbs: followVerbs, field: "Password", env: []string{clickhousePasswordEnv}, errName: "env " + clickhousePasswordEnv, value: func(v *values) any { return &v.out.Store.Password }},
	{name: "embedded", verbs: vRun, excludes: "brokers", group: "Kafka", value: func(v *values) any { return &v.embedded },
		help: "play into an embedded broker and read everything back, whatever env " + sinkBrokersEnv + " says"},
	{name: "hits-topic", verbs: vVerify, field: "HitsTopic", group: "Kafka", value: func(v *values) any { return &v.kafka.HitsTopic },
		help: "topic the hits were sent to"},
	{name: "orders-topic", verbs: vVerify, field: "OrdersTopic", group: "Kafka", value: func(v *values) any { return &v.kafka.OrdersTopic },
		help: "topic the order snapshots were sent to"},
	{name: "hits-partitions", verbs: vVerify, field: "HitPartitions", group: "Kafka", value: func(v *values) any { return &v.kafka.HitPartitions },
		help: "partition count the hits' keys were placed with (the stand's: 2)"},
	{name: "orders-partitions", verbs: vVerify, field: "OrderPartitions", group: "Kafka", value: func(v *values) any { return &v.kafka.OrderPartitions },
		help: "partition count the orders' keys were placed with (the stand's: 1)"},
	{name: "strict", verbs: vVerify, field: "Strict", group: "Kafka", value: func(v *values) any { return &v.kafka.Strict },
		help: "the topics must hold the run alone: messages of model days outside it are unexpected (without it they are other runs', counted and not judged)"},
	{name: "clickhouse", verbs: vVerify, field: "URL", group: "ClickHouse", value: func(v *values) any { return &v.store.URL },
		help: "read the tables a pipeline filled from ClickHouse's HTTP interface at `URL` (http://host:8123 or https://host:8443) instead of Kafka (password from env " + clickhousePasswordEnv + ")"},
	{name: "clickhouse-user", verbs: vVerify, field: "User", group: "ClickHouse", def: "-", value: func(v *values) any { return &v.storeUser },
		help: "ClickHouse user `NAME`, overriding the URL's (default: the URL's, else the server's default user)"},
	{name: "events-table", verbs: vVerify, group: "ClickHouse", field: "tables.events", value: func(v *values) any { return &v.store.Tables.Events },
		help: "`TABLE` of typed events (WatchID, EventDate, ClientID, every hit column it holds, _load_ts); '' skips it"},
	{name: "errors-table", verbs: vVerify, group: "ClickHouse", field: "tables.errors", value: func(v *values) any { return &v.store.Tables.Errors },
		help: "`TABLE` of refused hits (raw, error_class); '' skips it"},
	{name: "raw-table", verbs: vVerify, group: "ClickHouse", field: "tables.raw", value: func(v *values) any { return &v.store.Tables.Raw },
		help: "`TABLE` of raw hits as delivered (raw); '' skips it"},
	{name: "orders-table", verbs: vVerify, group: "ClickHouse", field: "tables.orders", value: func(v *values) any { return &v.store.Tables.Orders },
		help: "`TABLE` of order versions (order_id, snapshot_date, every order key it holds); '' skips it"},
	{name: "order-errors-table", verbs: vVerify, group: "ClickHouse", field: "tables.order_errors", value: func(v *values) any { return &v.store.Tables.OrderErrors },
		help: "`TABLE` of refused order rows (raw, error_class); '' skips it"},
	{name: "marts-view", verbs: vVerify, group: "ClickHouse", field: "tables.marts", value: func(v *values) any { return &v.store.Tables.Marts },
		help: "`VIEW` of purchases against orders (order_day, mismatch_class); '' skips it"},
	{name: "columns", verbs: vVerify, field: "Columns", group: "ClickHouse", value: func(v *values) any { return &v.store.Columns },
		help: "what is compared of the events and orders tables: all (every column of the contract they hold, with the value the intake stores from the planned message) or keys (WatchID and ClientID, order_id and snapshot_date only)"},
	{name: "exactly-once", verbs: vVerify, field: "ExactlyOnce", group: "ClickHouse", value: func(v *values) any { return &v.store.ExactlyOnce },
		help: "count copies (more rows of a WatchID, an order version, a raw or error row than sent) as differences, for stores that must never hold them"},
	{name: "wait", verbs: vVerify, field: "Wait", group: "ClickHouse", value: func(v *values) any { return &v.store.Wait },
		help: "before judging, poll the tables' row counts until they reach the inventory's or stop changing for 30s, for at most `DURATION` (a table short of its count that grew while verify read the store is judged again within it); 0 judges at once"},
	{verbs: vVerify, field: "Password", env: []string{clickhousePasswordEnv}, errName: "env " + clickhousePasswordEnv, value: func(v *values) any { return &v.store.Password }},
	{name: "listen", verbs: vBroker, field: "Listen", value: func(v *values) any { return &v.listen },
		help: "`HOST:PORT` to listen on (port 0 picks a free port)"},
	{name: "advertise", verbs: vBroker, value: func(v *values) any { return &v.advertise },
		help: "host name clients should use to reach the broker (default: the listen host, 127.0.0.1 for 0.0.0.0)"},
	{name: "entity", verbs: vSchema, value: func(v *values) any { return &v.entity },
		help: "which messages: hits or orders"},
	{name: "format", verbs: vSchema, value: func(v *values) any { return &v.format },
		help: "output format: markdown, keys or json-schema"},
	{name: "label", verbs: vPlot, value: func(v *values) any { return &v.labels },
		help: "label the report in the same position (repeat per report); default: its file name"},
	{name: "inventory", verbs: vPlot, value: func(v *values) any { return &v.inventory },
		help: "draw the expectation of this `FILE`, the output of 'clickgen inventory'"},
	{name: "title", verbs: vPlot, def: `"clickgen runs"`, value: func(v *values) any { return &v.title },
		help: "the page's title"},
}
