// Package intake is the generator's copy of the stand's strict intake: what ClickHouse does
// with each message on topics hits and orders (stand.md, "Strict intake of hits / orders").
//
// [ClassifyHit] and [ClassifyOrder] give, for one message value, the error class its row gets
// ("" when it is accepted, no row at all when the value is empty); [HitDedupKey] and
// [OrderDedupKey] give the identity under which the accepted row collapses in ODS (counted with
// FINAL). [HitClassSQL] and [OrderClassSQL] are the same rules as ClickHouse SQL, rendered from
// embedded .sql files with every key name taken from package schema; [HitsPipeline] renders the
// stand's push chain for hits (Kafka table → STG → materialized views → ODS) around them, and
// [OrdersPull] its pull path for orders (direct SELECT → STG → INSERT SELECTs → ODS).
//
// The Go classifiers reproduce ClickHouse 26.7 value by value, quirks included (simdjson's
// JSON rules, JSONExtract's lenient number conversions, the unchecked digits of
// parseDateTime's MySQL syntax). That agreement is not assumed but measured: the tests of this
// package run both over a corpus of valid and malformed messages on the real engine (chDB,
// package [github.com/clickgen/clickgen/internal/tier/chdb]) and require the same class
// for every message.
//
// Everything here is pure: no I/O, no clock, safe for concurrent use.
package intake
