{{- /*
The stand's hits ingestion on one node, as storage.md (seeds) lays it out, without
Replicated/Distributed: Kafka reader (RawBLOB) -> ingest MV -> raw table (STG) -> two parse MVs
-> typed events (ReplacingMergeTree) and errors (error_class). Views are created after their
targets, and the ingest MV last: the Kafka engine starts consuming when its first MV attaches,
and anything read before the parse MVs exist would never reach ODS. Rendered by
HitsPipeline.DDL.
*/ -}}
CREATE DATABASE IF NOT EXISTS {{.STG}};
CREATE DATABASE IF NOT EXISTS {{.ODS}};

-- STG: the reader. RawBLOB: each non-empty message becomes one String row, unvalidated.
CREATE TABLE IF NOT EXISTS {{.STG}}.hits_raw_kafka (raw String)
ENGINE = Kafka
SETTINGS kafka_broker_list = {{q .Brokers}},
    kafka_topic_list = {{q .Topic}},
    kafka_group_name = {{q .Group}},
    kafka_format = 'RawBLOB',
    kafka_num_consumers = 1,
    kafka_flush_interval_ms = {{.FlushMillis}};

-- STG: raw rows with delivery metadata; repeats of a delivery stay visible.
CREATE TABLE IF NOT EXISTS {{.STG}}.hits_raw_rep (
    raw String,
    kafka_topic LowCardinality(String),
    kafka_partition UInt64,
    kafka_offset UInt64,
    kafka_timestamp Nullable(DateTime),
    consumer_host LowCardinality(String),
    _load_ts DateTime64(3)
)
ENGINE = MergeTree
PARTITION BY toDate(_load_ts)
ORDER BY (kafka_partition, kafka_offset)
TTL toDateTime(_load_ts) + INTERVAL 3 DAY
SETTINGS ttl_only_drop_parts = 1;

-- ODS: typed events. Key fields are read exactly as the intake predicate reads them; the
-- other columns with default-on-failure JSONExtract (typos yield 0, '' or []).
CREATE TABLE IF NOT EXISTS {{.ODS}}.event_rep (
{{- range .Columns}}
    {{.Ident}} {{.Type}},
{{- end}}
    _load_ts DateTime64(3)
)
ENGINE = ReplacingMergeTree(_load_ts)
PARTITION BY {{.EventDateIdent}}
ORDER BY {{.WatchIDIdent}};

-- ODS: rows that fail the strict intake, with their class.
CREATE TABLE IF NOT EXISTS {{.ODS}}.event_errors_rep (
    raw String,
    error_class LowCardinality(String),
    kafka_topic LowCardinality(String),
    kafka_partition UInt64,
    kafka_offset UInt64,
    kafka_timestamp Nullable(DateTime),
    consumer_host LowCardinality(String),
    _load_ts DateTime64(3)
)
ENGINE = MergeTree
PARTITION BY toDate(_load_ts)
ORDER BY (error_class, kafka_partition, kafka_offset)
TTL toDateTime(_load_ts) + INTERVAL 1 MONTH
SETTINGS ttl_only_drop_parts = 1;

-- The two parse MVs split the raw stream without gap or overlap: the second condition is the
-- literal negation of the first, and the class expression is never NULL.
CREATE MATERIALIZED VIEW IF NOT EXISTS {{.ODS}}.event_mv TO {{.ODS}}.event_rep AS
SELECT
{{- range .Columns}}
{{- if eq .Kind "id"}}
    assumeNotNull(JSONExtract(raw, {{q .Name}}, 'Nullable(UInt64)')) AS {{.Ident}},
{{- else if eq .Kind "date"}}
    assumeNotNull(JSONExtract(raw, {{q .Name}}, 'Nullable(Date)')) AS {{.Ident}},
{{- else if eq .Kind "time"}}
    assumeNotNull(parseDateTimeOrNull(JSONExtractString(raw, {{q .Name}}), {{q $.TimeFormat}}, 'UTC')) AS {{.Ident}},
{{- else}}
    JSONExtract(raw, {{q .Name}}, {{q .Type}}) AS {{.Ident}},
{{- end}}
{{- end}}
    _load_ts
FROM {{.STG}}.hits_raw_rep
WHERE ({{.Class}}) = '';

CREATE MATERIALIZED VIEW IF NOT EXISTS {{.ODS}}.event_errors_mv TO {{.ODS}}.event_errors_rep AS
SELECT raw, error_class, kafka_topic, kafka_partition, kafka_offset, kafka_timestamp, consumer_host, _load_ts
FROM (
    SELECT *, {{.Class}} AS error_class
    FROM {{.STG}}.hits_raw_rep
)
WHERE NOT (error_class = '');

-- The ingest MV, last: attaching it starts the consumer.
CREATE MATERIALIZED VIEW IF NOT EXISTS {{.STG}}.hits_raw_mv TO {{.STG}}.hits_raw_rep AS
SELECT
    raw,
    _topic AS kafka_topic,
    _partition AS kafka_partition,
    _offset AS kafka_offset,
    _timestamp AS kafka_timestamp,
    hostName() AS consumer_host,
    now64(3) AS _load_ts
FROM {{.STG}}.hits_raw_kafka;
