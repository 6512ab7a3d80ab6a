-- STG: the ingest view, from the reader into the raw table. Created last, after the parse
-- views, because attaching the first view starts the Kafka engine's consumer: anything read
-- before the parse views exist would reach STG and never ODS.
CREATE MATERIALIZED VIEW IF NOT EXISTS stg.hits_raw_mv {{on_cluster}}
TO stg.hits_raw_dist
AS
SELECT
    raw,
    '{{hits_topic}}' AS kafka_topic,
    hostName() AS consumer_host,
    now() AS _load_ts
FROM stg.hits_raw_kafka;
