-- ODS: the typed event, its error table, the order versions and their error table, with the
-- stand's names, keys and engines. 18.16 differences: no LowCardinality (String instead), no
-- DateTime64 (DateTime, seconds: order times lose their milliseconds, _load_ts too), no TTL,
-- Replicated engines only on a cluster (one node has no keeper). purchaseRevenue is Array(Decimal(18, 2)) as on
-- the stand.
CREATE TABLE IF NOT EXISTS ods.event_rep {{on_cluster}}
(
    WatchID UInt64,
    VisitID UInt64,
    ClientID UInt64,
    CounterID UInt32,
    EventDate Date,
    UTCEventTime DateTime('UTC'),
    ClientTimeZone Int16,
    EventType String,
    Sign Int8,
    URL String,
    Referer String,
    Title String,
    UTMSource String,
    UTMMedium String,
    UTMCampaign String,
    UTMContent String,
    UTMTerm String,
    LastTrafficSource String,
    HasGCLID UInt8,
    YCLID UInt64,
    Browser String,
    BrowserMajorVersion UInt16,
    BrowserLanguage String,
    OperatingSystem String,
    OperatingSystemRoot String,
    DeviceCategory UInt8,
    MobilePhoneModel String,
    ScreenWidth UInt16,
    ScreenHeight UInt16,
    IPAddress String,
    RegionCountry String,
    RegionCity String,
    RegionCountryID UInt32,
    RegionCityID UInt32,
    GoalsReached Array(UInt32),
    ParsedParamsKey1 Array(String),
    purchaseID Array(String),
    purchaseRevenue Array(Decimal(18, 2)),
    purchaseCurrency Array(String),
    purchaseCoupon Array(String),
    productID Array(String),
    productName Array(String),
    productCategory Array(String),
    productPrice Array(Int64),
    productQuantity Array(UInt64),
    productEventType Array(String),
    ecommerce String,
    _load_ts DateTime('UTC')
)
ENGINE = {{engine:ReplacingMergeTree:ods/event_rep:_load_ts}}
PARTITION BY EventDate
ORDER BY (CounterID, EventDate, intHash32(ClientID), WatchID)
SAMPLE BY intHash32(ClientID);

CREATE TABLE IF NOT EXISTS ods.event_dist {{on_cluster}}
AS ods.event_rep
ENGINE = Distributed('clickstream_cluster', 'ods', 'event_rep', cityHash64(ClientID));

CREATE TABLE IF NOT EXISTS ods.event_errors_rep {{on_cluster}}
(
    raw String,
    error_class String,
    kafka_topic String,
    consumer_host String,
    _load_ts DateTime('UTC')
)
ENGINE = {{engine:MergeTree:ods/event_errors_rep}}
PARTITION BY toDate(_load_ts)
ORDER BY (error_class, _load_ts);

CREATE TABLE IF NOT EXISTS ods.event_errors_dist {{on_cluster}}
AS ods.event_errors_rep
ENGINE = Distributed('clickstream_cluster', 'ods', 'event_errors_rep', cityHash64(raw));

CREATE TABLE IF NOT EXISTS ods.order_rep {{on_cluster}}
(
    order_id String,
    user_id UInt64,
    status String,
    created_at DateTime('UTC'),
    updated_at DateTime('UTC'),
    items_total Decimal(18, 2),
    discount Decimal(18, 2),
    delivery Decimal(18, 2),
    total Decimal(18, 2),
    items String,
    snapshot_date Date,
    _load_id String,
    _load_ts DateTime('UTC')
)
ENGINE = {{engine:ReplacingMergeTree:ods/order_rep:snapshot_date}}
PARTITION BY toDate(created_at)
ORDER BY order_id;

CREATE TABLE IF NOT EXISTS ods.order_dist {{on_cluster}}
AS ods.order_rep
ENGINE = Distributed('clickstream_cluster', 'ods', 'order_rep', cityHash64(order_id));

CREATE TABLE IF NOT EXISTS ods.order_errors_rep {{on_cluster}}
(
    raw String,
    error_class String,
    kafka_topic String,
    consumer_host String,
    _load_id String,
    _load_ts DateTime('UTC')
)
ENGINE = {{engine:MergeTree:ods/order_errors_rep}}
PARTITION BY toDate(_load_ts)
ORDER BY (error_class, _load_ts);

CREATE TABLE IF NOT EXISTS ods.order_errors_dist {{on_cluster}}
AS ods.order_errors_rep
ENGINE = Distributed('clickstream_cluster', 'ods', 'order_errors_rep', cityHash64(raw));
