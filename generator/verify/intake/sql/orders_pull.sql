{{- /*
The stand's pull ingestion of topic orders on one node (stand.md; seeds adr-0008): a RawBLOB
Kafka table with no materialized view, read by one direct SELECT per run that commits offsets
(kafka_commit_on_select), into STG.orders_raw_rep tagged with the run's _load_id; then two
INSERT SELECTs split that run's rows by OrderClassSQL into ODS.order_rep
(ReplacingMergeTree(snapshot_date), ORDER BY order_id, PARTITION BY toDate(created_at)) and
ODS.order_errors_rep. Rendered by OrdersPull.
*/ -}}
{{define "orders_ddl"}}
CREATE DATABASE IF NOT EXISTS {{.STG}};
CREATE DATABASE IF NOT EXISTS {{.ODS}};

CREATE TABLE IF NOT EXISTS {{.STG}}.orders_raw_kafka (raw String)
ENGINE = Kafka
SETTINGS kafka_broker_list = {{q .Brokers}},
    kafka_topic_list = {{q .Topic}},
    kafka_group_name = {{q .Group}},
    kafka_format = 'RawBLOB',
    kafka_num_consumers = 1,
    kafka_commit_on_select = 1;

CREATE TABLE IF NOT EXISTS {{.STG}}.orders_raw_rep (
    raw String,
    kafka_topic LowCardinality(String),
    kafka_partition UInt64,
    kafka_offset UInt64,
    kafka_timestamp Nullable(DateTime),
    consumer_host LowCardinality(String),
    _load_id String,
    _load_ts DateTime64(3)
)
ENGINE = MergeTree
PARTITION BY toDate(_load_ts)
ORDER BY (kafka_partition, kafka_offset);

CREATE TABLE IF NOT EXISTS {{.ODS}}.order_rep (
    {{ident .OrderID}} String,
    {{ident .UserID}} UInt64,
    {{ident .Status}} LowCardinality(String),
{{- range .Times}}
    {{ident .}} DateTime64(3, 'UTC'),
{{- end}}
{{- range .Money}}
    {{ident .}} Decimal(18, 2),
{{- end}}
    {{ident .Items}} String,
    {{ident .SnapshotDate}} Date,
    _load_id String,
    _load_ts DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree({{ident .SnapshotDate}})
PARTITION BY toDate({{ident .CreatedAt}})
ORDER BY {{ident .OrderID}};

CREATE TABLE IF NOT EXISTS {{.ODS}}.order_errors_rep (
    raw String,
    error_class LowCardinality(String),
    kafka_topic LowCardinality(String),
    kafka_partition UInt64,
    kafka_offset UInt64,
    kafka_timestamp Nullable(DateTime),
    consumer_host LowCardinality(String),
    _load_id String,
    _load_ts DateTime64(3)
)
ENGINE = MergeTree
PARTITION BY toDate(_load_ts)
ORDER BY (error_class, kafka_partition, kafka_offset);
{{end}}

{{define "orders_pull"}}
INSERT INTO {{.STG}}.orders_raw_rep
SELECT raw, _topic, _partition, _offset, _timestamp, hostName(), {{q .LoadID}}, now64(3)
FROM {{.STG}}.orders_raw_kafka
SETTINGS stream_like_engine_allow_direct_select = 1;
{{end}}

{{define "orders_parse"}}
INSERT INTO {{.ODS}}.order_rep
SELECT
    JSONExtractString(raw, {{q .OrderID}}),
    JSONExtract(raw, {{q .UserID}}, 'UInt64'),
    JSONExtractString(raw, {{q .Status}}),
{{- range .Times}}
    assumeNotNull(parseDateTime64InJodaSyntaxOrNull(JSONExtractString(raw, {{q .}}), {{q $.JodaMillis}}, 'UTC')),
{{- end}}
{{- range .Money}}
    assumeNotNull(toDecimal64OrNull(JSONExtractString(raw, {{q .}}), 2)),
{{- end}}
    JSONExtractRaw(raw, {{q .Items}}),
    toDate(assumeNotNull(parseDateTime64InJodaSyntaxOrNull(JSONExtractString(raw, {{q .SnapshotDate}}), {{q .JodaDate}}, 'UTC'))),
    _load_id,
    now64(3)
FROM {{.STG}}.orders_raw_rep
WHERE _load_id = {{q .LoadID}} AND ({{.Class}}) = '';

INSERT INTO {{.ODS}}.order_errors_rep
SELECT raw, error_class, kafka_topic, kafka_partition, kafka_offset, kafka_timestamp, consumer_host, _load_id, now64(3)
FROM (
    SELECT *, {{.Class}} AS error_class
    FROM {{.STG}}.orders_raw_rep
    WHERE _load_id = {{q .LoadID}}
)
WHERE NOT (error_class = '');
{{end}}
