package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/store"
)

// storeMemory caps the soft memory limit of verifying a store. The world's limit is play's,
// which holds rendered batches in flight; verify holds one day's model and its ids (and, with
// the raw table, 16 bytes per planned raw row), so with play's limit the collector let a ×100
// day drift to 1.38 GB resident. Measured on day 0 at scale 100 (5 180 936 events) with
// GODEBUG=gctrace=1: the live heap peaked at 649 MB with the events table alone and at 800 MB
// with the raw table; under this cap, 837 416 and 894 060 KB peak resident (/usr/bin/time
// -v), against an 18.16 server holding that day.
const storeMemory = 800 << 20

// storeSegmentMemory caps it when the days are planned from their segment days
// (store.PlansFromSegments: above scale 25, without hit garbage): what is live then is one
// segment day's model (85 MB at most: a share of scale 25 or less), the early reads' held rows
// (32 MB), and what follows the scale: the day's planned events (16 bytes each) and raw rows
// (8), and the cohorts of the day's audience kept until the range's last day (21 MB at scale
// 100); about 1.75 MB per unit of scale. Day 0 at scale 100 (5 180 936 events, GODEBUG=gctrace=1,
// heap profiles at the check's peaks): live at most 278–294 MB with every table, 205 MB with
// the events table alone; under this cap (450 MiB there) 476 144 and 392 320 KB peak resident,
// 17 collections where 800 MiB took 14.
func storeSegmentMemory(scale float64) int64 {
	return int64(200<<20 + scale*(5<<20)/2)
}

// client checks the store's settings and builds its client: every mistake is a refusal naming
// the field, before anything is read (report is the config's report file, checked among them).
func (s *Store) client(ctx context.Context, report string, logf func(format string, args ...any)) (*clickhouse.Client, error) {
	if err := s.Tables.Validate(); err != nil {
		return nil, &field.Error{Field: "Tables", Words: "a table", Err: err}
	}
	if s.Tables == (store.Tables{}) {
		return nil, errors.New("every table is skipped: nothing to verify")
	}
	if s.Wait < 0 {
		return nil, &field.Error{Field: "Wait", Words: "wait", Value: s.Wait.String(), Err: errors.New("want a duration ≥ 0")}
	}
	if err := checkReport(report); err != nil {
		return nil, err
	}
	// The server-side limit of every query is the timeout too (the client's default: its
	// first-byte timeout), and a query given up on is cancelled on the server; what the
	// client does on its own (a KILL QUERY) is told on logf.
	opts := []clickhouse.Opt{clickhouse.ConnectTimeout(s.ConnectTimeout), clickhouse.FirstByteTimeout(s.Timeout), clickhouse.IdleTimeout(s.Timeout),
		clickhouse.Logf(logf)}
	if s.User != nil {
		opts = append(opts, clickhouse.User(*s.User))
	}
	if s.Password != "" {
		opts = append(opts, clickhouse.Password(s.Password))
	}
	if s.TLSCA != "" {
		pem, err := fileio.Read(ctx, s.TLSCA, fileio.Limit{Bytes: sink.MaxPEMBytes})
		if err != nil {
			return nil, &field.Error{Field: "TLSCA", Words: "TLS CA file", Err: err}
		}
		opts = append(opts, clickhouse.RootCAs(pem))
	}
	if s.ConnectTimeout <= 0 || s.Timeout <= 0 {
		return nil, field.New("{ConnectTimeout|the connect timeout} and {Timeout|the timeout} must be positive")
	}
	c, err := clickhouse.New(s.URL, opts...)
	switch {
	case errors.Is(err, clickhouse.ErrURL):
		return nil, &field.Error{Field: "URL", Words: "URL", Err: errors.New(strings.TrimPrefix(err.Error(), clickhouse.ErrURL.Error()+": "))}
	case errors.Is(err, clickhouse.ErrUser): // the name is not repeated: "a:b" may hold a password
		return nil, &field.Error{Field: "User", Words: "user", Err: errors.New(strings.TrimPrefix(err.Error(), clickhouse.ErrUser.Error()+": "))}
	}
	if err != nil {
		return nil, &field.Error{Field: "URL", Words: "URL", Err: err}
	}
	return c, nil
}

// runStore reads the store of client and reconciles it with range r of world w.
func (c *Config) runStore(ctx context.Context, client *clickhouse.Client, w *world.World, r world.Range) error {
	s := c.Store
	if s.Password != "" && !client.Secure() {
		c.logf("warning: the password of %s goes to %s in clear text (http://): use https:// (with %s) where the network is not trusted",
			c.name("Password", "the password"), client.Endpoint(), c.name("TLSCA", "a CA"))
	}
	// A server that accepts the connection and does not answer kept verify silent for the
	// whole timeout: its first answer is awaited here, told after a second (issue 31). The
	// wait, when set, bounds it too: a frozen server kept a wait of 5 s for 122 s.
	bound, bounds, pingCtx := s.ConnectTimeout+s.Timeout, c.name("ConnectTimeout", "the connect timeout")+", then "+c.name("Timeout", "the timeout"), ctx
	if s.Wait > 0 && s.Wait < bound {
		var cancel context.CancelFunc
		bound, bounds = s.Wait, c.name("Wait", "the wait")
		pingCtx, cancel = context.WithTimeout(ctx, s.Wait)
		defer cancel()
	}
	stop := afterASecond(func() {
		c.logf("waiting for ClickHouse at %s to answer, at most %v (%s; Ctrl-C stops)", client.Endpoint(), bound, bounds)
	})
	_, err := client.Ping(pingCtx)
	stop()
	if err != nil && ctx.Err() == nil && pingCtx.Err() != nil {
		return fmt.Errorf("verify: ClickHouse at %s did not answer within the wait of %v: nothing was judged (%s)", client.Endpoint(), s.Wait, c.name("Wait", "the wait"))
	}
	if err != nil {
		return c.storeReadError(client, err)
	}
	c.logf("verify: %s", c.tablesLine())
	res, err := store.Verify(ctx, w, r, &store.ClickHouse{Client: client}, store.Options{
		Tables: s.Tables, Columns: s.Columns, ExactlyOnce: s.ExactlyOnce, Wait: s.Wait, Workers: c.Workers, Logf: c.logf, Names: c.Names,
	})
	var ce *store.ConsumesError
	if errors.As(err, &ce) {
		// Refused before anything was read: the setting that named the table says so.
		return field.Refuse(fmt.Errorf("%s %s: %s; nothing was read (name a table that holds rows, or '' to skip it)", c.tableName(ce.Role), ce.Table, ce.Why))
	}
	if err != nil {
		return c.storeReadError(client, err)
	}
	// The table's failure (stdout closed: verify | head -1) is the verification's, and the
	// report still says the result and it.
	werr := c.publish(res)
	if res.OK {
		return werr
	}
	return errors.Join(werr, c.storeDiffers(w, r, res))
}

// tableName names the setting of the table of role (store.RoleEvents …: tables.events,
// tables.order_errors).
func (c *Config) tableName(role string) string {
	key := "tables." + strings.ReplaceAll(role, " ", "_")
	return c.name(key, key)
}

// storeDiffers is the verdict of a store that differs: per table, what could not be read
// (and the setting that skips it) or how many differences it holds.
func (c *Config) storeDiffers(w *world.World, r world.Range, res *store.Result) error {
	var parts []string
	for _, t := range []struct {
		role string
		h    *store.TableHead
	}{{store.RoleEvents, headOf(res.Events)}, {store.RoleRaw, digestHead(res.Raw)}, {store.RoleErrors, digestHead(res.Errors)},
		{store.RoleOrders, ordersHead(res.Orders)}, {store.RoleOrderErrors, digestHead(res.OrderErrors)}, {store.RoleMarts, martsHead(res.Marts)}} {
		switch {
		case t.h == nil || t.h.OK:
		case t.h.Error != "":
			parts = append(parts, fmt.Sprintf("%s %s cannot be read (%s '' skips it)", t.role, t.h.Table, c.tableName(t.role)))
		default:
			parts = append(parts, fmt.Sprintf("%s %s: %s", t.role, t.h.Table, plural(t.h.Differences, "difference")))
		}
	}
	return fmt.Errorf("verify: the store differs from what run %s (seed %d) leaves: %s", storeRunName(r), w.Seed(), strings.Join(parts, "; "))
}

// tablesLine is the one line that says which tables verify judges and which it skips, each
// skipped one with the setting that named it empty: "judging events ods.event_dist, …;
// skipped: marts (--marts-view ...)".
func (c *Config) tablesLine() string {
	t := c.Store.Tables
	var judged, skipped []string
	for _, tb := range []struct{ role, table string }{{store.RoleEvents, t.Events}, {store.RoleRaw, t.Raw}, {store.RoleErrors, t.Errors},
		{store.RoleOrders, t.Orders}, {store.RoleOrderErrors, t.OrderErrors}, {store.RoleMarts, t.Marts}} {
		if tb.table == "" {
			skipped = append(skipped, fmt.Sprintf("%s (%s '')", tb.role, c.tableName(tb.role)))
		} else {
			judged = append(judged, tb.role+" "+tb.table)
		}
	}
	line := "judging " + strings.Join(judged, ", ")
	if len(skipped) > 0 {
		line += "; skipped: " + strings.Join(skipped, ", ")
	}
	return line
}

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

func storeRunName(r world.Range) string {
	if r.Days == 1 {
		return fmt.Sprintf("day %d", r.From)
	}
	return fmt.Sprintf("days %d…%d", r.From, r.From+r.Days-1)
}

// storeReadError words a store that could not be read: which setting bounds a wait that ran
// out, where the password comes from when it was refused.
func (c *Config) storeReadError(client *clickhouse.Client, err error) error {
	where := "ClickHouse at " + client.Endpoint()
	if errors.Is(err, context.Canceled) {
		return c.interrupted(err, " while reading %s: nothing was judged", where)
	}
	var te *clickhouse.TimeoutError
	var we *store.WaitError
	switch {
	case errors.As(err, &we):
		return fmt.Errorf("verify: %s: %w (%s)", where, err, c.name("Wait", "the wait"))
	case errors.Is(err, clickhouse.ErrAuth):
		hint := fmt.Sprintf("(the password comes from %s, the user from %s or the URL)", c.name("Password", "the password"), c.name("User", "the user"))
		return fmt.Errorf("verify: %s refused the credentials: %w %s", where, err, hint)
	case errors.As(err, &te) && te.Phase == clickhouse.PhaseConnect:
		return fmt.Errorf("verify: cannot read %s: %w (%s)", where, err, c.name("ConnectTimeout", "the connect timeout"))
	case errors.As(err, &te):
		return fmt.Errorf("verify: cannot read %s: %w (%s)", where, err, c.name("Timeout", "the timeout"))
	}
	return fmt.Errorf("verify: cannot read %s: %w", where, err)
}

// ShownURL is a store's URL, or any text that may hold one, as a message or a report may
// show it: a password in it and the values of the parameters that carry secrets masked
// (clickhouse.Redacted).
func ShownURL(s string) string { return clickhouse.Redacted(s) }
