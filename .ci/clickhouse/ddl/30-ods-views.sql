-- ODS: the canonical reads (FINAL behind a name, as on the stand) and the split of raw rows
-- into the typed event and the error table.
CREATE VIEW IF NOT EXISTS ods.event_v {{on_cluster}}
AS
SELECT *
FROM ods.event_dist FINAL;

CREATE VIEW IF NOT EXISTS ods.order_v {{on_cluster}}
AS
SELECT *
FROM ods.order_dist FINAL;

-- The stand's strict intake, as near as 18.16 comes: it has none of JSONType,
-- JSONExtractKeys or JSONExtract (they arrived in 19.x), only the visitParam* functions,
-- which find the first "name": in the text and never fail, and regular expressions. So
--   is_object     the text starts with { and ends with } (a truncated or unbalanced object
--                 inside the braces is not seen here: it fails the key-set check instead);
--   keys_match    the sorted names of every "name": in the text, which in valid JSON are
--                 exactly the keys (an escaped quote cannot open a name), equal the
--                 contract's 47; whitespace around a colon would hide a key;
--   key fields    the three ids are JSON unsigned integers in the text (so the string "123"
--                 and 1.5, which 26.x accepts as 123 and 1, are refused here, and a number
--                 above 2^64 is not), EventDate a "YYYY-MM-DD" string (an impossible date is
--                 accepted, as on 26.x), UTCEventTime a "YYYY-MM-DDTHH:MM:SSZ" string.
-- For clean messages the three agree with the stand's predicate message for message; for
-- garbage they may name another class (README.md). The two views split the stream without
-- gap or overlap: the second takes the literal negation of the first's condition, and no
-- part of it can be NULL or throw.
CREATE MATERIALIZED VIEW IF NOT EXISTS ods.event_mv {{on_cluster}}
TO ods.event_dist
AS
WITH
    concat(replaceAll(raw, '\0', ''), ',') AS j,
    startsWith(raw, '{') AND endsWith(raw, '}') AS is_object,
    arraySort(extractAll(raw, '"([A-Za-z0-9_]+)":')) = arraySort([
        'WatchID', 'VisitID', 'ClientID', 'CounterID', 'EventDate',
        'UTCEventTime', 'ClientTimeZone', 'EventType', 'Sign',
        'URL', 'Referer', 'Title', 'UTMSource', 'UTMMedium', 'UTMCampaign',
        'UTMContent', 'UTMTerm', 'LastTrafficSource', 'HasGCLID', 'YCLID',
        'Browser', 'BrowserMajorVersion', 'BrowserLanguage', 'OperatingSystem',
        'OperatingSystemRoot', 'DeviceCategory', 'MobilePhoneModel',
        'ScreenWidth', 'ScreenHeight', 'IPAddress', 'RegionCountry',
        'RegionCity', 'RegionCountryID', 'RegionCityID',
        'GoalsReached', 'ParsedParamsKey1',
        'purchaseID', 'purchaseRevenue', 'purchaseCurrency', 'purchaseCoupon',
        'productID', 'productName', 'productCategory', 'productPrice',
        'productQuantity', 'productEventType', 'ecommerce'
    ]) AS keys_match,
    match(visitParamExtractRaw(j, 'WatchID'), '^[0-9]+$')
        AND match(visitParamExtractRaw(j, 'VisitID'), '^[0-9]+$')
        AND match(visitParamExtractRaw(j, 'ClientID'), '^[0-9]+$')
        AND match(visitParamExtractRaw(j, 'EventDate'), '^"[0-9]{4}-[0-9]{2}-[0-9]{2}"$')
        AND match(visitParamExtractRaw(j, 'UTCEventTime'),
            '^"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"$') AS key_fields_parsed
SELECT
    visitParamExtractUInt(j, 'WatchID') AS WatchID,
    visitParamExtractUInt(j, 'VisitID') AS VisitID,
    visitParamExtractUInt(j, 'ClientID') AS ClientID,
    toUInt32(visitParamExtractUInt(j, 'CounterID')) AS CounterID,
    toDateOrZero(visitParamExtractString(j, 'EventDate')) AS EventDate,
    toDateTimeOrZero(replaceOne(replaceOne(visitParamExtractString(j, 'UTCEventTime'), 'T', ' '), 'Z', ''), 'UTC') AS UTCEventTime,
    toInt16(visitParamExtractInt(j, 'ClientTimeZone')) AS ClientTimeZone,
    visitParamExtractString(j, 'EventType') AS EventType,
    toInt8(visitParamExtractInt(j, 'Sign')) AS Sign,
    visitParamExtractString(j, 'URL') AS URL,
    visitParamExtractString(j, 'Referer') AS Referer,
    visitParamExtractString(j, 'Title') AS Title,
    visitParamExtractString(j, 'UTMSource') AS UTMSource,
    visitParamExtractString(j, 'UTMMedium') AS UTMMedium,
    visitParamExtractString(j, 'UTMCampaign') AS UTMCampaign,
    visitParamExtractString(j, 'UTMContent') AS UTMContent,
    visitParamExtractString(j, 'UTMTerm') AS UTMTerm,
    visitParamExtractString(j, 'LastTrafficSource') AS LastTrafficSource,
    toUInt8(visitParamExtractUInt(j, 'HasGCLID')) AS HasGCLID,
    visitParamExtractUInt(j, 'YCLID') AS YCLID,
    visitParamExtractString(j, 'Browser') AS Browser,
    toUInt16(visitParamExtractUInt(j, 'BrowserMajorVersion')) AS BrowserMajorVersion,
    visitParamExtractString(j, 'BrowserLanguage') AS BrowserLanguage,
    visitParamExtractString(j, 'OperatingSystem') AS OperatingSystem,
    visitParamExtractString(j, 'OperatingSystemRoot') AS OperatingSystemRoot,
    toUInt8(visitParamExtractUInt(j, 'DeviceCategory')) AS DeviceCategory,
    visitParamExtractString(j, 'MobilePhoneModel') AS MobilePhoneModel,
    toUInt16(visitParamExtractUInt(j, 'ScreenWidth')) AS ScreenWidth,
    toUInt16(visitParamExtractUInt(j, 'ScreenHeight')) AS ScreenHeight,
    visitParamExtractString(j, 'IPAddress') AS IPAddress,
    visitParamExtractString(j, 'RegionCountry') AS RegionCountry,
    visitParamExtractString(j, 'RegionCity') AS RegionCity,
    toUInt32(visitParamExtractUInt(j, 'RegionCountryID')) AS RegionCountryID,
    toUInt32(visitParamExtractUInt(j, 'RegionCityID')) AS RegionCityID,
    arrayMap(x -> toUInt32(x), extractAll(visitParamExtractRaw(j, 'GoalsReached'), '[0-9]+')) AS GoalsReached,
    arrayMap(x -> visitParamExtractString(concat('{"v":"', x, '"}'), 'v'),
        extractAll(visitParamExtractRaw(j, 'ParsedParamsKey1'), '"((?:[^"\\\\]|\\\\.)*)"')) AS ParsedParamsKey1,
    arrayMap(x -> visitParamExtractString(concat('{"v":"', x, '"}'), 'v'),
        extractAll(visitParamExtractRaw(j, 'purchaseID'), '"((?:[^"\\\\]|\\\\.)*)"')) AS purchaseID,
    arrayMap(x -> toDecimal64(x, 2), extractAll(visitParamExtractRaw(j, 'purchaseRevenue'), '[0-9]+(?:\\.[0-9]{1,2})?')) AS purchaseRevenue,
    arrayMap(x -> visitParamExtractString(concat('{"v":"', x, '"}'), 'v'),
        extractAll(visitParamExtractRaw(j, 'purchaseCurrency'), '"((?:[^"\\\\]|\\\\.)*)"')) AS purchaseCurrency,
    arrayMap(x -> visitParamExtractString(concat('{"v":"', x, '"}'), 'v'),
        extractAll(visitParamExtractRaw(j, 'purchaseCoupon'), '"((?:[^"\\\\]|\\\\.)*)"')) AS purchaseCoupon,
    arrayMap(x -> visitParamExtractString(concat('{"v":"', x, '"}'), 'v'),
        extractAll(visitParamExtractRaw(j, 'productID'), '"((?:[^"\\\\]|\\\\.)*)"')) AS productID,
    arrayMap(x -> visitParamExtractString(concat('{"v":"', x, '"}'), 'v'),
        extractAll(visitParamExtractRaw(j, 'productName'), '"((?:[^"\\\\]|\\\\.)*)"')) AS productName,
    arrayMap(x -> visitParamExtractString(concat('{"v":"', x, '"}'), 'v'),
        extractAll(visitParamExtractRaw(j, 'productCategory'), '"((?:[^"\\\\]|\\\\.)*)"')) AS productCategory,
    arrayMap(x -> toInt64(x), extractAll(visitParamExtractRaw(j, 'productPrice'), '-?[0-9]+')) AS productPrice,
    arrayMap(x -> toUInt64(x), extractAll(visitParamExtractRaw(j, 'productQuantity'), '[0-9]+')) AS productQuantity,
    arrayMap(x -> visitParamExtractString(concat('{"v":"', x, '"}'), 'v'),
        extractAll(visitParamExtractRaw(j, 'productEventType'), '"((?:[^"\\\\]|\\\\.)*)"')) AS productEventType,
    visitParamExtractString(j, 'ecommerce') AS ecommerce,
    _load_ts
FROM stg.hits_raw_rep
WHERE is_object AND keys_match AND key_fields_parsed;

CREATE MATERIALIZED VIEW IF NOT EXISTS ods.event_errors_mv {{on_cluster}}
TO ods.event_errors_dist
AS
WITH
    concat(replaceAll(raw, '\0', ''), ',') AS j,
    startsWith(raw, '{') AND endsWith(raw, '}') AS is_object,
    arraySort(extractAll(raw, '"([A-Za-z0-9_]+)":')) = arraySort([
        'WatchID', 'VisitID', 'ClientID', 'CounterID', 'EventDate',
        'UTCEventTime', 'ClientTimeZone', 'EventType', 'Sign',
        'URL', 'Referer', 'Title', 'UTMSource', 'UTMMedium', 'UTMCampaign',
        'UTMContent', 'UTMTerm', 'LastTrafficSource', 'HasGCLID', 'YCLID',
        'Browser', 'BrowserMajorVersion', 'BrowserLanguage', 'OperatingSystem',
        'OperatingSystemRoot', 'DeviceCategory', 'MobilePhoneModel',
        'ScreenWidth', 'ScreenHeight', 'IPAddress', 'RegionCountry',
        'RegionCity', 'RegionCountryID', 'RegionCityID',
        'GoalsReached', 'ParsedParamsKey1',
        'purchaseID', 'purchaseRevenue', 'purchaseCurrency', 'purchaseCoupon',
        'productID', 'productName', 'productCategory', 'productPrice',
        'productQuantity', 'productEventType', 'ecommerce'
    ]) AS keys_match,
    match(visitParamExtractRaw(j, 'WatchID'), '^[0-9]+$')
        AND match(visitParamExtractRaw(j, 'VisitID'), '^[0-9]+$')
        AND match(visitParamExtractRaw(j, 'ClientID'), '^[0-9]+$')
        AND match(visitParamExtractRaw(j, 'EventDate'), '^"[0-9]{4}-[0-9]{2}-[0-9]{2}"$')
        AND match(visitParamExtractRaw(j, 'UTCEventTime'),
            '^"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"$') AS key_fields_parsed
SELECT
    raw,
    multiIf(
        NOT is_object, 'not_an_object',
        NOT keys_match, 'keyset_mismatch',
        'key_field_unparsed'
    ) AS error_class,
    kafka_topic,
    consumer_host,
    _load_ts
FROM stg.hits_raw_rep
WHERE NOT (is_object AND keys_match AND key_fields_parsed);
