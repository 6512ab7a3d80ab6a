package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/reportfile"
	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/verify/store"
)

// clickhousePasswordEnv names the variable the ClickHouse password comes from; it is never a
// flag, so it shows in no process list, and never printed.
const clickhousePasswordEnv = "CLICKHOUSE_PASSWORD"

// storeFlags are verify's flags for reading a ClickHouse store instead of Kafka (the
// ClickHouse group of flagTable).
type storeFlags struct {
	url         string
	user        string
	password    string // env CLICKHOUSE_PASSWORD
	tables      store.Tables
	columns     store.Columns
	exactlyOnce bool
	wait        time.Duration
	client      *clickhouse.Client
	answerBound time.Duration                    // the longest the first answer may take: connecting, then the first byte
	logf        func(format string, args ...any) // where the client tells what it did on its own; set by runVerifyStore
}

// resolve checks the ClickHouse flags of b and builds the client: every mistake is an error
// naming a flag, before anything is read. The shared connection flags (--connect-timeout,
// --tls-ca, --report) and --timeout are b's.
func (sf *storeFlags) resolve(ctx context.Context, b *binding) error {
	rf, timeout := &b.v.sink, b.v.verify.Timeout
	if err := sf.tables.Validate(); err != nil {
		return fmt.Errorf("a table flag: %w", err)
	}
	if sf.tables == (store.Tables{}) {
		return errors.New("every table is skipped: nothing to verify")
	}
	if sf.wait < 0 {
		return fmt.Errorf("--wait %v: want a duration ≥ 0", sf.wait)
	}
	if rf.report != "" {
		if err := reportfile.Check(rf.report); err != nil {
			return fmt.Errorf("--report %s: %w", rf.report, err)
		}
	}
	if !b.set("timeout") {
		timeout = clickhouse.DefaultFirstByteTimeout
	}
	// The server-side limit of every query is --timeout too (the client's default: its
	// first-byte timeout), and a query verify gives up on is cancelled on the server.
	opts := []clickhouse.Opt{clickhouse.ConnectTimeout(rf.ConnectTimeout), clickhouse.FirstByteTimeout(timeout), clickhouse.IdleTimeout(timeout),
		clickhouse.Logf(func(format string, args ...any) {
			if sf.logf != nil {
				sf.logf(format, args...)
			}
		})}
	if b.set("clickhouse-user") {
		opts = append(opts, clickhouse.User(sf.user))
	}
	if sf.password != "" {
		opts = append(opts, clickhouse.Password(sf.password))
	}
	if rf.TLSCA != "" {
		pem, err := fileio.Read(ctx, rf.TLSCA, fileio.Limit{Bytes: sink.MaxPEMBytes})
		if err != nil {
			return fmt.Errorf("--tls-ca: %w", err)
		}
		opts = append(opts, clickhouse.RootCAs(pem))
	}
	if rf.ConnectTimeout <= 0 || timeout <= 0 {
		return errors.New("--connect-timeout and --timeout must be positive")
	}
	c, err := clickhouse.New(sf.url, opts...)
	switch {
	case errors.Is(err, clickhouse.ErrURL):
		return fmt.Errorf("--clickhouse: %s", strings.TrimPrefix(err.Error(), clickhouse.ErrURL.Error()+": "))
	case errors.Is(err, clickhouse.ErrUser): // the name is not repeated: "a:b" may hold a password
		return fmt.Errorf("--clickhouse-user: %s", strings.TrimPrefix(err.Error(), clickhouse.ErrUser.Error()+": "))
	}
	if err != nil {
		return fmt.Errorf("--clickhouse: %w", err)
	}
	sf.client, sf.answerBound = c, rf.ConnectTimeout+timeout
	return nil
}

// verifyStoreMemory caps the soft memory limit of verify --clickhouse. The world's limit is
// play's, which holds rendered batches in flight; verify holds one day's model and its ids
// (and, with the raw table, 16 bytes per planned raw row), so with play's limit the collector
// let a ×100 day drift to 1.38 GB resident. Measured on day 0 at scale 100 (5 180 936 events)
// with GODEBUG=gctrace=1: the live heap peaked at 649 MB with the events table alone and at
// 800 MB with the raw table; under this cap, 837 416 and 894 060 KB peak resident
// (/usr/bin/time -v), against an 18.16 server holding that day.
const verifyStoreMemory = 800 << 20

// capMemoryLimit lowers the soft memory limit to at most limit, unless GOMEMLIMIT sets it.
func capMemoryLimit(limit int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if cur := debug.SetMemoryLimit(-1); cur > limit {
		debug.SetMemoryLimit(limit)
	}
}

// storeRange is the run the store is judged against: the one place verify's range reaches
// package store.
func (v *verifyRun) storeRange() store.Range {
	return v.r
}

// runVerifyStore reads the store and reconciles it: the table on stdout, progress on
// stderr, the result as JSON with --report; an error (exit 1) when it differs or cannot be
// read whole.
func runVerifyStore(ctx context.Context, sio *stdio, v *verifyRun) error {
	sf := &v.b.v.store
	capMemoryLimit(verifyStoreMemory)
	logf := func(format string, args ...any) { fmt.Fprintf(sio.err, "clickgen: "+format+"\n", args...) }
	sf.logf = func(format string, args ...any) { logf("verify: "+format, args...) }
	r := v.storeRange()
	if sf.password != "" && !sf.client.Secure() {
		logf("warning: the password of env %s goes to %s in clear text (http://): use https:// (with --tls-ca) where the network is not trusted",
			clickhousePasswordEnv, sf.client.Endpoint())
	}
	// A server that accepts the connection and does not answer kept verify silent for the
	// whole --timeout: its first answer is awaited here, told after a second (issue 31).
	// With --wait, the wait bounds it too: a frozen server kept `--wait 5s` for 122 s.
	bound, pingCtx := sf.answerBound, ctx
	if sf.wait > 0 && sf.wait < bound {
		var cancel context.CancelFunc
		bound = sf.wait
		pingCtx, cancel = context.WithTimeout(ctx, sf.wait)
		defer cancel()
	}
	stop := afterASecond(func() {
		logf("waiting for ClickHouse at %s to answer, at most %v (%s; Ctrl-C stops)", sf.client.Endpoint(), bound, boundFlags(bound == sf.wait))
	})
	_, err := sf.client.Ping(pingCtx)
	stop()
	if err != nil && ctx.Err() == nil && pingCtx.Err() != nil {
		return fmt.Errorf("verify: ClickHouse at %s did not answer within the wait of %v: nothing was judged (--wait)", sf.client.Endpoint(), sf.wait)
	}
	if err != nil {
		return storeReadError(sf, err)
	}
	logf("verify: %s", v.b.tablesLine())
	res, err := store.Verify(ctx, v.w, r, &store.ClickHouse{Client: sf.client}, store.Options{
		Tables: sf.tables, Columns: sf.columns, ExactlyOnce: sf.exactlyOnce, Wait: sf.wait, Workers: v.Workers, Logf: logf, Names: v.b.names,
	})
	var ce *store.ConsumesError
	if errors.As(err, &ce) {
		// Refused before anything was read (exit 2): the flag that named the table says so.
		return usage("verify", fmt.Errorf("--%s %s: %s; nothing was read (name a table that holds rows, or '' to skip it)",
			tableFlag[ce.Role], ce.Table, ce.Why))
	}
	if err != nil {
		return storeReadError(sf, err)
	}
	v.b.v.sink.keepReport(res)
	// The table's failure (stdout closed: verify | head -1) is the verb's, and the report
	// still says the result and it.
	werr := res.WriteTable(sio.out)
	if res.OK {
		return werr
	}
	return errors.Join(werr, storeDiffers(v, r, res))
}

// storeDiffers is the verdict line of a store that differs: per table, what it could not read
// (and the flag that skips it) or how many differences it holds.
func storeDiffers(v *verifyRun, r store.Range, res *store.Result) error {
	var parts []string
	for _, t := range []struct {
		name string
		h    *store.TableHead
	}{{"events", headOf(res.Events)}, {"raw", digestHead(res.Raw)}, {"errors", digestHead(res.Errors)},
		{"orders", ordersHead(res.Orders)}, {"order errors", digestHead(res.OrderErrors)}, {"marts", martsHead(res.Marts)}} {
		switch {
		case t.h == nil || t.h.OK:
		case t.h.Error != "":
			parts = append(parts, fmt.Sprintf("%s %s cannot be read (%s '' skips it)", t.name, t.h.Table, v.b.names("tables."+strings.ReplaceAll(t.name, " ", "_"), false)))
		default:
			parts = append(parts, fmt.Sprintf("%s %s: %s", t.name, t.h.Table, plural(t.h.Differences, "difference")))
		}
	}
	return fmt.Errorf("verify: the store differs from what run %s (seed %d) leaves: %s", storeRunName(r), v.w.Seed(), strings.Join(parts, "; "))
}

// tableFlag is the flag naming the table of each role.
var tableFlag = map[string]string{store.RoleEvents: "events-table", store.RoleErrors: "errors-table", store.RoleRaw: "raw-table",
	store.RoleOrders: "orders-table", store.RoleOrderErrors: "order-errors-table", store.RoleMarts: "marts-view"}

func headOf(e *store.EventsResult) *store.TableHead {
	if e == nil {
		return nil
	}
	return &e.TableHead
}

func digestHead(d *store.DigestResult) *store.TableHead {
	if d == nil {
		return nil
	}
	return &d.TableHead
}

func ordersHead(o *store.OrdersResult) *store.TableHead {
	if o == nil {
		return nil
	}
	return &o.TableHead
}

func martsHead(m *store.MartsResult) *store.TableHead {
	if m == nil {
		return nil
	}
	return &m.TableHead
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func storeRunName(r store.Range) string {
	if r.Days == 1 {
		return fmt.Sprintf("day %d", r.From)
	}
	return fmt.Sprintf("days %d…%d", r.From, r.From+r.Days-1)
}

// boundFlags names the flags that bound the first answer: --wait, or the connection's.
func boundFlags(wait bool) string {
	if wait {
		return "--wait"
	}
	return "--connect-timeout, then --timeout"
}

// storeReadError words a store that could not be read: which flag bounds a wait that ran
// out, where the password comes from when it was refused.
func storeReadError(sf *storeFlags, err error) error {
	where := "ClickHouse at " + sf.client.Endpoint()
	if errors.Is(err, context.Canceled) {
		return interrupted("verify", err, " while reading %s: nothing was judged", where)
	}
	var te *clickhouse.TimeoutError
	var we *store.WaitError
	switch {
	case errors.As(err, &we):
		return fmt.Errorf("verify: %s: %w (--wait)", where, err)
	case errors.Is(err, clickhouse.ErrAuth):
		hint := "(the password comes from env " + clickhousePasswordEnv + ", the user from --clickhouse-user or the URL)"
		return fmt.Errorf("verify: %s refused the credentials: %w %s", where, err, hint)
	case errors.As(err, &te) && te.Phase == clickhouse.PhaseConnect:
		return fmt.Errorf("verify: cannot read %s: %w (--connect-timeout)", where, err)
	case errors.As(err, &te):
		return fmt.Errorf("verify: cannot read %s: %w (--timeout)", where, err)
	}
	return fmt.Errorf("verify: cannot read %s: %w", where, err)
}

// tablesLine is the one line that says which tables verify judges and which it skips, each
// with the flag that names it: "judging events ods.event_dist, …; skipped: marts
// (--marts-view ”)".
func (b *binding) tablesLine() string {
	t := b.v.store.tables
	var judged, skipped []string
	for _, tb := range []struct{ name, key, table string }{{"events", "events", t.Events}, {"raw", "raw", t.Raw},
		{"errors", "errors", t.Errors}, {"orders", "orders", t.Orders}, {"order errors", "order_errors", t.OrderErrors},
		{"marts", "marts", t.Marts}} {
		if tb.table == "" {
			skipped = append(skipped, fmt.Sprintf("%s (%s '')", tb.name, b.names("tables."+tb.key, false)))
		} else {
			judged = append(judged, tb.name+" "+tb.table)
		}
	}
	line := "judging " + strings.Join(judged, ", ")
	if len(skipped) > 0 {
		line += "; skipped: " + strings.Join(skipped, ", ")
	}
	return line
}
