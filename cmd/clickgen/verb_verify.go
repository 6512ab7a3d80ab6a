package main

import (
	"context"
	"os"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/verify"
	"github.com/clickgen/clickgen/profiles"
)

const verifyHelp = `Read topics hits and orders back from the start of every partition (no consumer group, nothing
committed) and reconcile them with what 'batch --day D --days N' and 'snapshot --day D --days N'
send with the same world and garbage flags: the hits of days D … D+N−1 and the snapshots of days
D−1 … D+N−2. Messages are matched as a multiset by a 128-bit digest of their bytes and key, so
their order does not matter. Compared, per day and per snapshot:

  * messages, distinct clean messages and redeliveries;
  * messages per class as the stand's strict intake classifies the arrived bytes (accepted,
    not_an_object, keyset_mismatch, key_field_unparsed or field_invalid, no_row for empty values
    and tombstones);
  * messages per partition, against Kafka's murmur2 of the expected keys;
  * the clean messages' SHA-256 of the inventory (it holds when every clean message arrived);
  * the stand's view: stg_rows, ods_events / ods_orders (distinct WatchIDs / order_ids of
    accepted rows, as FINAL counts them) and error rows per class, against the inventory.

Every message that does not reconcile is a difference: missing (with day, class, key, partition),
unexpected (intake class, partition, key, offset and the first bytes), wrong partition, wrong key,
or misclassified. The table goes to stdout; with --report FILE the full result as JSON. A
message of a model day outside the run (a hit by its EventDate, an order row by its
snapshot_date) is another run's, counted apart and not judged, as the store check counts rows
of other dates; with --strict the topics must hold the run alone and it is unexpected.
Anything else (a replayed day, an injected message) is a difference. A topic the runs send
nothing to (orders, for run day 0 alone) may be absent.

With --clickhouse URL, verify reads the tables a pipeline filled from those topics instead, over
ClickHouse's HTTP interface, and reconciles them with the same inventory (the stand's table names
by default; a name '' skips its table):

  * --events-table: per EventDate, every planned WatchID (clean events and accepted_bad garbage,
    as the stand's intake reads them) present exactly once as FINAL counts it; missing and
    unplanned ones are differences, listed with date, WatchID and ClientID. More rows of a
    WatchID (a replayed day, at-least-once delivery, parts not merged yet) are copies, reported
    but not differences unless --exactly-once;
  * --errors-table, --order-errors-table: every refused message present once, under the
    error_class the intake gives it (rows matched by the sipHash64 of their bytes);
  * --raw-table: every message with a value, redeliveries as often as sent; rows of a day whose
    events were loaded more than 3 days ago (the stand's TTL) count as expired, not missing;
  * --orders-table: every order at the version FINAL keeps (its latest snapshot_date);
  * --marts-view: orders per mismatch_class of every closed day, against days[].orders.

Rows naming a date outside the run are counted, not judged. The user comes from the URL or
--clickhouse-user, the password only from env CLICKHOUSE_PASSWORD (never printed); https takes
--tls-ca. --timeout bounds how long the server may stay silent (default 2m with --clickhouse),
--connect-timeout the connection. --wait DURATION polls first until the tables caught up (or
stopped changing). A table that does not exist is a difference naming it; a store that cannot be
read whole (no answer in time, credentials refused, an answer broken off) is an error: verify
never says OK on a store it did not read whole. Ctrl-C ends the wait or the read at once.`

func runVerify(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	// The world, the days and the garbage are the built-in batch profile's with the flags as
	// overrides, as batch and snapshot play them.
	p, err := b.playProfile(profiles.Batch())
	if err != nil {
		return err
	}
	seg, err := b.resolveSegment()
	if err != nil {
		return b.usage(err)
	}
	v := b.v
	c := verify.Config{Profile: p, Segment: seg, Workers: v.workers, Memory: b.memory(), SoftMemoryLimit: os.Getenv("GOMEMLIMIT") == "",
		Files: withProfile(append(b.sinkPaths(), fileio.Input(b.name("world.catalog"), p.World.Catalog))), Report: v.out.Report,
		Stdout: sio.out, Stderr: sio.err, Names: b.names, Command: "verify", Settings: b.settings()}
	if err := b.checkReadMode(); err != nil {
		return err
	}
	if b.set("clickhouse") {
		st := v.store
		st.TLSCA, st.ConnectTimeout = v.sink.TLSCA, v.sink.ConnectTimeout
		if b.set("timeout") {
			st.Timeout = v.kafka.Timeout
		}
		if b.set("clickhouse-user") {
			st.User = &v.storeUser
		}
		c.Store = &st
	} else {
		k := v.kafka
		k.Sink = v.sink
		c.Kafka = &k
	}
	return verify.Run(ctx, c)
}

// checkReadMode checks the flags of what verify reads: with --clickhouse no flag of the
// Kafka group; without it, no flag of the ClickHouse group, and brokers (--brokers or env
// KAFKA_BOOTSTRAP_SERVERS) whose flags given do something. The Kafka group's variables are
// ignored with --clickhouse: only its flags are mistakes there.
func (b *binding) checkReadMode() error {
	on := b.set("clickhouse")
	for _, r := range b.rows {
		switch g := r.groupOn(b.verb.set); {
		case r.name == "" || !b.set(r.name):
		case on && g == "Kafka" && b.source(r.name) != "--"+r.name:
			// A variable of the Kafka group (KAFKA_BOOTSTRAP_SERVERS, set for the stand's
			// Kafka verbs) is not a flag the user wrote: reading the store, verify ignores it.
		case on && g == "Kafka":
			return usagef("verify", "--%s is for reading Kafka: with --clickhouse, verify reads the store", r.name)
		case !on && g == "ClickHouse":
			return usagef("verify", "--%s applies only with --clickhouse URL", r.name)
		}
	}
	if on {
		return nil
	}
	if len(b.v.sink.Brokers) == 0 {
		return usagef("verify", "--brokers HOSTS is required (or env %s)", sinkBrokersEnv)
	}
	b.v.sink.Topic = b.v.kafka.HitsTopic
	return b.checkSink()
}
