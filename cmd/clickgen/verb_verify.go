package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/reportfile"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/reconcile"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// addReadFlags adds the sink flags for a verb that reads topics: --brokers, the connection
// flags (--connect-timeout, TLS, SASL) and --report, hiding the ones that only apply to
// sending.
func addReadFlags(fs *pflag.FlagSet) *sinkFlags {
	sf := addSinkFlags(fs)
	for _, name := range append(sinkSendOnlyFlags, "metrics-linger") {
		fs.MarkHidden(name)
	}
	return sf
}

func runVerify(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("verify", "verify --brokers HOSTS --day D [--days N] [--hits-topic T] [--orders-topic T] [world, garbage and connection flags]\n"+
		"  clickgen verify --clickhouse URL --day D [--days N] [--events-table T ...] [--exactly-once] [--wait DURATION] [world and garbage flags]",
		`Read topics hits and orders back from the start of every partition (no consumer group, nothing
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
or misclassified. The table goes to stdout; with --report FILE the full result as JSON. The
topics must hold exactly what those runs sent: anything else (another day, a replayed day, an
injected message) is a difference. A topic the runs send nothing to (orders, for run day 0
alone) may be absent.

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
never says OK on a store it did not read whole. Ctrl-C ends the wait or the read at once.

Exit status: 0 when everything agrees, 1 when anything differs or the topics (the store) cannot
be read (within --connect-timeout and --timeout), 2 for usage errors.`)
	v := &verifyRun{wf: addWorldFlags(fs), df: addDayFlags(fs, "number of run days the topics (the store) hold")}
	kafka := flagsAddedBy(fs, func() { addVerifyFlags(fs, &v.Verify) })
	v.gf = addGarbageFlags(fs)
	kafka = append(kafka, flagsAddedBy(fs, func() { v.sf = addReadFlags(fs) })...)
	v.seg = addSegmentFlags(fs)
	v.ch = addStoreFlags(fs, kafka)
	if err := v.parse(ctx, fs, args, sio); err != nil {
		return err
	}
	if v.ch.on() {
		return runVerifyStore(ctx, sio, v)
	}
	var ce *sink.ConfigError
	if err := v.sf.CheckConnect(ctx, connectNotice(sio)); errors.As(err, &ce) {
		return usage("verify", ce.Err)
	} else if err != nil {
		return verifyConnectError(v, err)
	}
	v.Brokers, v.Conn = v.sf.Brokers, v.sf.ConnOpts()
	v.Logf = func(format string, args ...any) { fmt.Fprintf(sio.err, "clickgen: "+format+"\n", args...) }
	r, err := v.Run(ctx, v.w, v.r)
	err = verifyReadInterrupted(v, verifyRunError(&v.Verify, err))
	if r == nil {
		return err
	}
	if err := r.WriteTable(sio.out); err != nil {
		return err
	}
	if v.sf.report != "" {
		if err := reportfile.Write(v.sf.report, r); err != nil {
			return fmt.Errorf("--report: %w", err)
		}
	}
	return err
}

// flagsAddedBy returns the names of the flags add registers on fs.
func flagsAddedBy(fs *pflag.FlagSet, add func()) []string {
	before := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
	add()
	var added []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !before[f.Name] {
			added = append(added, f.Name)
		}
	})
	return added
}

// verifyRun is what verify reads and against what: the range r of world w.
type verifyRun struct {
	reconcile.Verify
	wf  *worldFlags
	df  *dayFlags
	gf  *garbageFlags
	sf  *sinkFlags
	seg *segmentFlags
	ch  *storeFlags
	w   *world.World
	r   world.Range
}

// parse reads and checks verify's flags: every mistake is a usage error before connecting.
func (v *verifyRun) parse(ctx context.Context, fs *pflag.FlagSet, args []string, sio *stdio) error {
	if err := parseFlags(fs, args, sio.out, false); err != nil {
		return err
	}
	if err := v.df.resolve(os.LookupEnv); err != nil {
		return usage("verify", err)
	}
	if err := v.df.check(); err != nil {
		return usage("verify", err)
	}
	v.r.From, v.r.Days = v.df.day, v.df.days
	var err error
	if v.r.Garbage, err = v.gf.resolve(); err != nil {
		return usage("verify", err)
	}
	if v.r.Segment, err = v.seg.resolve(os.LookupEnv); err != nil {
		return usage("verify", err)
	}
	if err := checkVerify(&v.Verify); err != nil {
		return usage("verify", err)
	}
	if err := checkWorkers("verify", v.Workers); err != nil {
		return err
	}
	v.wf.workers = renderWorkers(v.Workers, false)
	if v.ch.on() {
		if err := v.ch.resolve(ctx, os.LookupEnv, v.sf, v.Timeout); err != nil {
			return usage("verify", err)
		}
	} else if err := v.ch.refuseWithoutURL(); err != nil {
		return usage("verify", err)
	} else if err := v.sf.check(v.sf.resolveRead(os.LookupEnv, "verify", v.HitsTopic)); err != nil {
		return err
	}
	v.w, err = v.wf.newWorld(ctx, "verify", os.LookupEnv, v.r.Garbage)
	if err != nil {
		return err
	}
	return checkPaths("verify", append(v.sf.paths(), fileio.Input("--catalog", v.wf.catalog))...)
}
