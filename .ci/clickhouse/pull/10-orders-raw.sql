-- The stand's orders_ingest, task 1 (sql/stg/orders_raw_load.sql): one direct read of the
-- orders reader into the raw table, tagged with the run's load id. The CSV settings make the
-- reader take each message whole (as the server profile does for the hits reader; a direct
-- read uses the query's settings). 18.16 commits the offsets of a read once it finished,
-- before the last block is written: a server killed in between loses that block, as the
-- stand's pull may. One read ends after half a second with no new message.
INSERT INTO stg.orders_raw_dist
SELECT
    raw,
    '{{orders_topic}}' AS kafka_topic,
    hostName() AS consumer_host,
    '{{load_id}}' AS _load_id,
    now() AS _load_ts
FROM stg.orders_raw_kafka
SETTINGS format_csv_delimiter = '\t', format_csv_allow_single_quotes = 0, format_csv_allow_double_quotes = 0;
