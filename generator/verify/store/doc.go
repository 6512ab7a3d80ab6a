// Package store says whether a store that a pipeline filled from clickgen's topics holds
// exactly what the inventory says, and if not, what differs: `clickgen verify --clickhouse`.
//
// [Verify] reads the store through a [Source] ([ClickHouse] reads ClickHouse over its HTTP
// interface, package clickhouse) and reconciles six tables, each optional ([Tables]; the
// stand's names are [StandTables]):
//
//   - events: per EventDate, every WatchID the run's accepted hits leave (clean events and
//     accepted_bad garbage, with the values the stand's intake reads) present exactly once as
//     FINAL counts it. Missing and unplanned WatchIDs are differences, listed with their date
//     and ClientID; a planned WatchID found with another ClientID is one too. Further rows of
//     a WatchID (a replayed day, at-least-once delivery, parts not yet merged) are counted as
//     copies, and are differences only with [Options].ExactlyOnce.
//   - errors and order errors: every refused message present once under the error_class the
//     intake gives it, matched by the [SipHash64] of its bytes (ClickHouse's sipHash64).
//   - raw: every message with a value present, redeliveries as often as they were sent;
//     raw rows of a day whose events were loaded longer ago than the raw table keeps rows
//     (the stand's TTL: 3 days) count as expired, not missing.
//   - orders: every order the run's snapshots carry present at the version FINAL keeps (its
//     latest snapshot_date), and no version of a snapshot of the range that did not carry it.
//   - marts: per closed day, orders per mismatch_class as the inventory's days[].orders.
//
// Rows that name a date outside the run (a store holding more days than the run verified)
// are counted but not judged. Memory follows one date, not the run: the events table is read
// date by date in WatchID order while the run's units are walked once (the same units the
// sender sends and the inventory counts), and the raw and error tables keep 16 bytes per
// planned row. A table that cannot be read is a difference; a store that cannot be read at
// all (it does not answer in time, refuses the credentials, breaks an answer off) is an
// error: Verify never judges a store it did not read whole.
package store
