-- The stand's orders_ingest, task 2 (sql/ods/order_load.sql, order_errors_load.sql): the
-- load's raw rows split into order versions and order errors. The strict intake of orders as
-- near as 18.16 comes (no JSON* functions before 19.x): an object is text in braces; the key
-- set is the names of "name": once the items array is cut out (its objects hold keys of
-- their own), which holds while no string inside items holds a ']'; each field is checked
-- on its text by a regular expression (a calendar-impossible time such as February 30
-- passes here, where the stand's Joda parse refuses it). Times lose their milliseconds
-- (18.16 has no DateTime64). Both statements turn off the move of WHERE to PREWHERE: 18.16 throws
-- std::bad_typeid (code 1001) on a WITH alias of an AND used in WHERE once it moves it, as it
-- did on every shard of the cluster (measured: `WITH startsWith(raw, '{') AND endsWith(raw,
-- '}') AS m SELECT count() FROM t WHERE m` fails on any MergeTree table holding a row).
INSERT INTO ods.order_dist
WITH
    concat(replaceAll(raw, '\0', ''), ',') AS j,
    startsWith(raw, '{') AND endsWith(raw, '}') AS is_object,
    arraySort(extractAll(replaceRegexpOne(raw, '"items":\\[[^\\]]*\\]', '"items":[]'), '"([A-Za-z0-9_]+)":'))
        = arraySort([
            'order_id', 'user_id', 'status', 'created_at', 'updated_at', 'items_total',
            'discount', 'delivery', 'total', 'items', 'snapshot_date'
        ]) AS keys_match,
    match(visitParamExtractRaw(j, 'order_id'), '^".*"$')
        AND match(visitParamExtractRaw(j, 'status'), '^".*"$')
        AND match(visitParamExtractRaw(j, 'user_id'), '^[0-9]+$')
        AND match(visitParamExtractRaw(j, 'items'), '^\\[.*\\]$')
        AND match(visitParamExtractRaw(j, 'created_at'), '^"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z"$')
        AND match(visitParamExtractRaw(j, 'updated_at'), '^"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z"$')
        AND match(visitParamExtractRaw(j, 'items_total'), '^"[0-9]{1,16}\\.[0-9]{2}"$')
        AND match(visitParamExtractRaw(j, 'discount'), '^"[0-9]{1,16}\\.[0-9]{2}"$')
        AND match(visitParamExtractRaw(j, 'delivery'), '^"[0-9]{1,16}\\.[0-9]{2}"$')
        AND match(visitParamExtractRaw(j, 'total'), '^"[0-9]{1,16}\\.[0-9]{2}"$')
        AND match(visitParamExtractRaw(j, 'snapshot_date'), '^"[0-9]{4}-[0-9]{2}-[0-9]{2}"$') AS fields_valid
SELECT
    visitParamExtractString(j, 'order_id') AS order_id,
    visitParamExtractUInt(j, 'user_id') AS user_id,
    visitParamExtractString(j, 'status') AS status,
    toDateTimeOrZero(replaceOne(substring(visitParamExtractString(j, 'created_at'), 1, 19), 'T', ' '), 'UTC') AS created_at,
    toDateTimeOrZero(replaceOne(substring(visitParamExtractString(j, 'updated_at'), 1, 19), 'T', ' '), 'UTC') AS updated_at,
    toDecimal64(visitParamExtractString(j, 'items_total'), 2) AS items_total,
    toDecimal64(visitParamExtractString(j, 'discount'), 2) AS discount,
    toDecimal64(visitParamExtractString(j, 'delivery'), 2) AS delivery,
    toDecimal64(visitParamExtractString(j, 'total'), 2) AS total,
    visitParamExtractRaw(j, 'items') AS items,
    toDateOrZero(visitParamExtractString(j, 'snapshot_date')) AS snapshot_date,
    _load_id,
    _load_ts
FROM stg.orders_raw_dist
WHERE _load_id = '{{load_id}}' AND is_object AND keys_match AND fields_valid
SETTINGS optimize_move_to_prewhere = 0;

INSERT INTO ods.order_errors_dist
WITH
    concat(replaceAll(raw, '\0', ''), ',') AS j,
    startsWith(raw, '{') AND endsWith(raw, '}') AS is_object,
    arraySort(extractAll(replaceRegexpOne(raw, '"items":\\[[^\\]]*\\]', '"items":[]'), '"([A-Za-z0-9_]+)":'))
        = arraySort([
            'order_id', 'user_id', 'status', 'created_at', 'updated_at', 'items_total',
            'discount', 'delivery', 'total', 'items', 'snapshot_date'
        ]) AS keys_match,
    match(visitParamExtractRaw(j, 'order_id'), '^".*"$')
        AND match(visitParamExtractRaw(j, 'status'), '^".*"$')
        AND match(visitParamExtractRaw(j, 'user_id'), '^[0-9]+$')
        AND match(visitParamExtractRaw(j, 'items'), '^\\[.*\\]$')
        AND match(visitParamExtractRaw(j, 'created_at'), '^"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z"$')
        AND match(visitParamExtractRaw(j, 'updated_at'), '^"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z"$')
        AND match(visitParamExtractRaw(j, 'items_total'), '^"[0-9]{1,16}\\.[0-9]{2}"$')
        AND match(visitParamExtractRaw(j, 'discount'), '^"[0-9]{1,16}\\.[0-9]{2}"$')
        AND match(visitParamExtractRaw(j, 'delivery'), '^"[0-9]{1,16}\\.[0-9]{2}"$')
        AND match(visitParamExtractRaw(j, 'total'), '^"[0-9]{1,16}\\.[0-9]{2}"$')
        AND match(visitParamExtractRaw(j, 'snapshot_date'), '^"[0-9]{4}-[0-9]{2}-[0-9]{2}"$') AS fields_valid
SELECT
    raw,
    multiIf(
        NOT is_object, 'not_an_object',
        NOT keys_match, 'keyset_mismatch',
        'field_invalid'
    ) AS error_class,
    kafka_topic,
    consumer_host,
    _load_id,
    _load_ts
FROM stg.orders_raw_dist
WHERE _load_id = '{{load_id}}' AND NOT (is_object AND keys_match AND fields_valid)
SETTINGS optimize_move_to_prewhere = 0;
