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
CREATE TABLE IF NOT EXISTS stg.hits_raw_kafka {{on_cluster}}
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
CREATE TABLE IF NOT EXISTS stg.hits_raw_rep {{on_cluster}}
(
    raw String,
    kafka_topic String,
    consumer_host String,
    _load_ts DateTime('UTC')
)
ENGINE = {{engine:MergeTree:stg/hits_raw_rep}}
PARTITION BY toDate(_load_ts)
ORDER BY _load_ts;

-- The layer's face, as on the stand. On one node clickstream_cluster (config.xml) is one shard,
-- the local one, so an insert lands in stg.hits_raw_rep at once; on a cluster the raw row goes
-- to the shard of cityHash64(raw), in the background for the Kafka engine's inserts (the stand's
-- ingest) and at once for a user's (insert_distributed_sync in the default profile, as the
-- stand's ETL sets distributed_foreground_insert).
CREATE TABLE IF NOT EXISTS stg.hits_raw_dist {{on_cluster}}
AS stg.hits_raw_rep
ENGINE = Distributed('clickstream_cluster', 'stg', 'hits_raw_rep', cityHash64(raw));

-- The reader of topic orders, with no view attached: the pull (pull/*.sql) reads it with one
-- direct SELECT that commits its offsets, as the stand's orders_ingest does (18.16 allows a
-- direct SELECT from a Kafka table without stream_like_engine_allow_direct_select and
-- commits on every successful read without kafka_commit_on_select).
CREATE TABLE IF NOT EXISTS stg.orders_raw_kafka {{on_cluster}}
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

CREATE TABLE IF NOT EXISTS stg.orders_raw_rep {{on_cluster}}
(
    raw String,
    kafka_topic String,
    consumer_host String,
    _load_id String,
    _load_ts DateTime('UTC')
)
ENGINE = {{engine:MergeTree:stg/orders_raw_rep}}
PARTITION BY toDate(_load_ts)
ORDER BY _load_ts;

CREATE TABLE IF NOT EXISTS stg.orders_raw_dist {{on_cluster}}
AS stg.orders_raw_rep
ENGINE = Distributed('clickstream_cluster', 'stg', 'orders_raw_rep', cityHash64(raw));
