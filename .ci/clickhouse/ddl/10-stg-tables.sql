-- STG: the readers of topics hits and orders and the raw tables of both sources.
--
-- The reader: one String column holding the whole message. 18.16 has no RawBLOB (nor
-- JSONAsString); its nearest is CSV with one column, a tab as the delimiter and quoting
-- off, set for the server's own context in users.xml (profile `server`), because the Kafka
-- engine of 18.16 takes no format settings of its own. Each message is followed by the row
-- delimiter '\n'. A message with no tab, newline or carriage return is read byte for byte,
-- which every clean message is (JSON escapes those characters inside strings); one holding
-- such a byte is split or refused, and a refused block stops consumption until it is skipped
-- by hand (18.16 has no kafka_skip_broken_messages).
--
-- 18.16 has no virtual columns (_topic, _partition, _offset, _timestamp arrived in 19.x), so
-- the raw table cannot say where a message came from. The stand's kafka_partition,
-- kafka_offset and kafka_timestamp are left out rather than filled with zeros that would
-- look like data; kafka_topic is the topic the reader is bound to.
CREATE TABLE IF NOT EXISTS stg.hits_raw_kafka
(
    raw String
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{brokers}}',
    kafka_topic_list = '{{hits_topic}}',
    kafka_group_name = '{{hits_group}}',
    kafka_format = 'CSV',
    kafka_row_delimiter = '\n',
    kafka_num_consumers = 1;

-- Raw rows; a repeated delivery stays visible here. No TTL (18.16 has none) and no
-- LowCardinality (experimental in 18.16); _load_ts is in seconds (no DateTime64).
CREATE TABLE IF NOT EXISTS stg.hits_raw_rep
(
    raw String,
    kafka_topic String,
    consumer_host String,
    _load_ts DateTime('UTC')
)
ENGINE = MergeTree
PARTITION BY toDate(_load_ts)
ORDER BY _load_ts;

-- The layer's face, as on the stand; one shard, the local one (clickstream_cluster in
-- config.xml), so an insert lands in stg.hits_raw_rep at once.
CREATE TABLE IF NOT EXISTS stg.hits_raw_dist
AS stg.hits_raw_rep
ENGINE = Distributed('clickstream_cluster', 'stg', 'hits_raw_rep', cityHash64(raw));

-- The reader of topic orders, with no view attached: the pull (pull/*.sql) reads it with one
-- direct SELECT that commits its offsets, as the stand's orders_ingest does (18.16 allows a
-- direct SELECT from a Kafka table without stream_like_engine_allow_direct_select and
-- commits on every successful read without kafka_commit_on_select).
CREATE TABLE IF NOT EXISTS stg.orders_raw_kafka
(
    raw String
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{brokers}}',
    kafka_topic_list = '{{orders_topic}}',
    kafka_group_name = '{{orders_group}}',
    kafka_format = 'CSV',
    kafka_row_delimiter = '\n',
    kafka_num_consumers = 1;

CREATE TABLE IF NOT EXISTS stg.orders_raw_rep
(
    raw String,
    kafka_topic String,
    consumer_host String,
    _load_id String,
    _load_ts DateTime('UTC')
)
ENGINE = MergeTree
PARTITION BY toDate(_load_ts)
ORDER BY _load_ts;

CREATE TABLE IF NOT EXISTS stg.orders_raw_dist
AS stg.orders_raw_rep
ENGINE = Distributed('clickstream_cluster', 'stg', 'orders_raw_rep', cityHash64(raw));
