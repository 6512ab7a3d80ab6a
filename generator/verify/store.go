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

// client checks the store's settings and builds its client: every mistake is a refusal naming
// the field, before anything is read (report is the config's report file, checked among them).
func (s *Store) client(ctx context.Context, report string) (*clickhouse.Client, error) {
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
	opts := []clickhouse.Opt{clickhouse.ConnectTimeout(s.ConnectTimeout), clickhouse.FirstByteTimeout(s.Timeout), clickhouse.IdleTimeout(s.Timeout)}
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
	if errors.Is(err, clickhouse.ErrURL) {
		return nil, &field.Error{Field: "URL", Words: "URL", Err: errors.New(strings.TrimPrefix(err.Error(), clickhouse.ErrURL.Error()+": "))}
	}
	if err != nil {
		return nil, &field.Error{Field: "URL", Words: "URL", Err: err}
	}
	return c, nil
}

// runStore reads the store of client and reconciles it with range r of world w.
func (c *Config) runStore(ctx context.Context, client *clickhouse.Client, w *world.World, r world.Range) error {
	s := c.Store
	// A server that accepts the connection and does not answer kept verify silent for the
	// whole timeout: its first answer is awaited here, told after a second (issue 31).
	stop := afterASecond(func() {
		c.logf("waiting for ClickHouse at %s to answer, at most %v (%s, then %s; Ctrl-C stops)", client.Endpoint(), s.ConnectTimeout+s.Timeout,
			c.name("ConnectTimeout", "the connect timeout"), c.name("Timeout", "the timeout"))
	})
	_, err := client.Ping(ctx)
	stop()
	if err != nil {
		return c.storeReadError(client, err)
	}
	res, err := store.Verify(ctx, w, r, &store.ClickHouse{Client: client}, store.Options{
		Tables: s.Tables, ExactlyOnce: s.ExactlyOnce, Wait: s.Wait, Workers: c.Workers, Logf: c.logf,
	})
	if err != nil {
		return c.storeReadError(client, err)
	}
	if err := c.report(res); err != nil {
		return err
	}
	if res.OK {
		return nil
	}
	var parts []string
	for _, t := range []struct {
		name string
		h    *store.TableHead
	}{{"events", headOf(res.Events)}, {"raw", digestHead(res.Raw)}, {"errors", digestHead(res.Errors)},
		{"orders", ordersHead(res.Orders)}, {"order errors", digestHead(res.OrderErrors)}, {"marts", martsHead(res.Marts)}} {
		if t.h != nil && !t.h.OK {
			parts = append(parts, fmt.Sprintf("%s %s: %s", t.name, t.h.Table, plural(t.h.Differences, "difference")))
		}
	}
	return fmt.Errorf("verify: the store differs from what run %s (seed %d) leaves: %s", storeRunName(r), w.Seed(), strings.Join(parts, "; "))
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
	switch {
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
