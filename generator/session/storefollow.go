package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/measure/storefollow"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// checkStoreFollow refuses, before anything is sent, table-following settings that cannot
// work: a table, a sample rate or a user without a server to follow, store thresholds without
// one, a URL the client refuses, and what storefollow.Options.Validate refuses.
func (c *Config) checkStoreFollow() error {
	o := &c.Outputs
	sf := o.Store
	if sf.URL == "" {
		switch {
		case sf.Table != "":
			return field.New("{Table|a table to follow} needs {URL|a ClickHouse to follow}: there is no table to follow")
		case sf.Sample != 0:
			return field.New("{Sample|a sample rate} needs {URL|a ClickHouse to follow}: there is no table to follow")
		case sf.User != nil:
			return field.New("{User|a ClickHouse user} needs {URL|a ClickHouse to follow}")
		}
		for _, t := range o.Thresholds {
			if t.Store {
				return field.Sentence("{Thresholds|threshold} %s: the time until queryable is measured by following a table: give {URL|a ClickHouse to follow}", t)
			}
		}
		return nil
	}
	if _, err := c.storeClient(nil); err != nil {
		return err
	}
	return c.storeOptions(play.Plan{}).Validate()
}

// storeOptions are the store follower's options for plan's topics.
func (c *Config) storeOptions(plan play.Plan) storefollow.Options {
	sf := c.Outputs.Store
	o := storefollow.Options{Table: sf.Table, HitsTopic: plan.Hits, OrdersTopic: plan.Orders, Sample: float64(sf.Sample),
		Every: c.Outputs.Follow.Every, Timeout: c.Outputs.Follow.Timeout}
	if o.Table == "" {
		o.Table = DefaultStoreTable
	}
	return o
}

// storeClient is the ClickHouse client of the followed table, with the CA pem (nil: the
// system's) and the sink's connect timeout; a URL or a user it refuses is a refusal naming it.
func (c *Config) storeClient(pem []byte) (*clickhouse.Client, error) {
	sf := c.Outputs.Store
	var opts []clickhouse.Opt
	if d := c.Sink.ConnectTimeout; d > 0 {
		opts = append(opts, clickhouse.ConnectTimeout(d))
	}
	if sf.User != nil {
		opts = append(opts, clickhouse.User(*sf.User))
	}
	if sf.Password != "" {
		opts = append(opts, clickhouse.Password(sf.Password))
	}
	if pem != nil {
		opts = append(opts, clickhouse.RootCAs(pem))
	}
	cl, err := clickhouse.New(sf.URL, opts...)
	switch {
	case errors.Is(err, clickhouse.ErrURL):
		return nil, &field.Error{Field: "URL", Words: "URL", Err: errors.New(strings.TrimPrefix(err.Error(), clickhouse.ErrURL.Error()+": "))}
	case errors.Is(err, clickhouse.ErrUser): // the name is not repeated: "a:b" may hold a password
		return nil, &field.Error{Field: "User", Words: "user", Err: errors.New(strings.TrimPrefix(err.Error(), clickhouse.ErrUser.Error()+": "))}
	case err != nil:
		return nil, &field.Error{Field: "URL", Words: "URL", Err: err}
	}
	return cl, nil
}

// storeFollow starts following the table for plan's topics (nil without a server to follow):
// the table is probed (its columns, its engine) and the server's clock read before anything
// is sent. A table that cannot be followed is a refusal; a server that cannot be reached fails
// the run before anything is sent.
func (c *Config) storeFollow(ctx context.Context, plan play.Plan) (*storefollow.Follower, error) {
	sf := c.Outputs.Store
	if sf.URL == "" {
		return nil, nil
	}
	var pem []byte
	if ca := c.Sink.TLSCA; ca != "" {
		var err error
		if pem, err = fileio.Read(ctx, ca, fileio.Limit{Bytes: sink.MaxPEMBytes}); err != nil {
			return nil, fmt.Errorf("%s: %w", c.name("TLSCA", "the TLS CA file"), err)
		}
	}
	cl, err := c.storeClient(pem)
	if err != nil {
		return nil, field.Refuse(err)
	}
	f, err := storefollow.New(&storefollow.ClickHouse{Client: cl}, c.storeOptions(plan))
	if err != nil {
		return nil, field.Refuse(err)
	}
	octx, cancel := context.WithTimeout(ctx, c.Sink.ConnectTimeout+clickhouse.DefaultFirstByteTimeout)
	defer cancel()
	if err := f.Open(octx); err != nil {
		if errors.Is(err, storefollow.ErrNotFollowable) {
			return nil, field.Refuse(fmt.Errorf("%s: %w", c.name("Table", "the table to follow"), err))
		}
		return nil, fmt.Errorf("%s %s: %w", c.name("URL", "following ClickHouse at"), cl.Endpoint(), err)
	}
	f.Start(ctx)
	return f, nil
}

// abortStoreFollow stops following the table when the run does not start (f, nil without
// one).
func abortStoreFollow(f *storefollow.Follower) {
	if f != nil {
		f.Finish(context.Background(), true, nil)
	}
}
