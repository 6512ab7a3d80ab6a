// Package store says whether a store that a pipeline filled from clickgen's topics holds
// exactly what the inventory says, and if not, what differs: `clickgen verify --clickhouse`.
//
// [Verify] reads the store through a [Source] ([ClickHouse] reads ClickHouse over its HTTP
// interface, package clickhouse) and reconciles six tables, each optional ([Tables]; the
// stand's names are [StandTables]). Before any is read, every named table is probed (its
// existence, engine, columns and their types): one whose read would consume a stream or run
// something (a Kafka table, or a view, Distributed, Merge or Buffer table over one) ends
// Verify with a [ConsumesError] before anything is read; one that does not exist or lacks a
// column verify keys on is a difference, and is neither read nor waited for.
//
//   - events: per EventDate, every WatchID the run's accepted hits leave (clean events and
//     accepted_bad garbage) present, and every row of it holding, column by column, what the
//     stand's intake stores from the planned message, in the column's own type (every one of
//     the 47 hit columns the table holds; [ColumnsKeys] compares WatchID and ClientID only).
//     Missing and unplanned WatchIDs are differences, listed with their date and ClientID; a
//     row whose values differ makes its WatchID changed, even beside an equal row, and is
//     counted per column and date with examples. Further equal rows (a replayed day,
//     at-least-once delivery, parts not yet merged) are copies, differences only with
//     [Options].ExactlyOnce.
//   - errors and order errors: every refused message present once under the error_class the
//     intake gives it, matched by the [SipHash64] of its bytes (ClickHouse's sipHash64); a row
//     under another class is misclassified, even beside the right one.
//   - raw: every message with a value present, redeliveries as often as they were sent;
//     raw rows of a day whose events were all loaded longer ago than the raw table keeps rows
//     (the stand's TTL: 3 days; the day's newest _load_ts) count as expired, not missing.
//   - orders: every order the run's snapshots carry present at the version FINAL keeps (its
//     latest snapshot_date), every row of a version holding what the intake stores of the
//     snapshot's row, and no version of a snapshot of the range that did not carry it.
//   - marts: per closed day, orders per mismatch_class as the inventory's days[].orders, the
//     classes the stand has no word for summed into one row.
//
// Values are compared as RowBinary, the server's binary row format: what intake.StoredHit and
// intake.StoredOrder write for the column's type (package chtype) against the store's own
// bytes. Rows that name a date outside the run (a store holding more days than the run
// verified) are counted but not judged. Memory follows one date, not the run: the events table
// is read date by date in WatchID order while the run's units are walked once (the same units
// the sender sends and the inventory counts), a planned event keeping its WatchID and the
// digest of its row, and the raw and error tables keep 8 bytes per clean event's raw row and
// 16 per other planned row. Every string of the store a result holds is cut and escaped. A table that cannot be read is a difference;
// a store that cannot be read at all (it does not answer in time, refuses the credentials,
// breaks an answer off) is an error: Verify never judges a store it did not read whole.
package store
