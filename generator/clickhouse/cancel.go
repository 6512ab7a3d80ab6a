package clickhouse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"strconv"
	"sync/atomic"
	"time"
)

// DefaultCancelWait bounds cancelling a query on the server unless [CancelWait] says
// otherwise: a frozen server keeps a caller that gave up on it no longer than this.
const DefaultCancelWait = 3 * time.Second

// queryIDs gives a client's queries their ids: "clickgen-" and 16 random hex digits, the
// client's, then a number of its own. A server refuses a query id that is running already,
// and KILL QUERY must stop this client's query alone.
type queryIDs struct {
	prefix string
	n      atomic.Uint64
}

func newQueryIDs() queryIDs {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return queryIDs{prefix: "clickgen-" + hex.EncodeToString(b[:]) + "-"}
}

func (q *queryIDs) next() string { return q.prefix + strconv.FormatUint(q.n.Add(1), 10) }

// QueryIDPrefix is the prefix of every query id the client sends, for finding its queries
// in system.processes or system.query_log.
func (c *Client) QueryIDPrefix() string { return c.queries.prefix }

// reached reports whether a request that failed with err may have reached the server: any
// failure but a connection that was never made.
func reached(err error) bool {
	var te *TimeoutError
	if errors.As(err, &te) {
		return te.Phase != PhaseConnect
	}
	var oe *net.OpError
	return !(errors.As(err, &oe) && oe.Op == "dial")
}

// cancel stops query id on the server: KILL QUERY by its id (ASYNC: a query that checks for
// cancellation only between blocks would keep a SYNC kill waiting as long), then polls
// system.processes until the query is gone, within the cancel wait in all. What happened is
// told to the Logf function. It is called when a query ended before its answer was read
// whole, whatever the caller's context says: that context may be what ended it.
func (c *Client) cancel(id string) {
	ctx, stop := context.WithTimeout(context.Background(), c.cfg.cancelWait)
	defer stop()
	if err := c.exec(ctx, "KILL QUERY WHERE query_id = '"+id+"' ASYNC"); err != nil {
		if ctx.Err() != nil {
			err = errors.New("no answer within " + c.cfg.cancelWait.String())
		}
		c.cfg.logf("clickhouse: query %s may still run on the server: KILL QUERY failed: %v", id, err)
		return
	}
	pause := 20 * time.Millisecond
	for {
		n, err := c.count(ctx, "SELECT count() FROM system.processes WHERE query_id = '"+id+"'")
		switch {
		case err == nil && n == 0:
			c.cfg.logf("clickhouse: query %s cancelled on the server (KILL QUERY)", id)
			return
		case err != nil:
			c.cfg.logf("clickhouse: query %s was asked to stop (KILL QUERY); it was not seen gone within %v: %v", id, c.cfg.cancelWait, err)
			return
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			c.cfg.logf("clickhouse: query %s was asked to stop (KILL QUERY) and still ran after %v", id, c.cfg.cancelWait)
			return
		case <-t.C:
		}
		pause = min(2*pause, 250*time.Millisecond)
	}
}

// exec runs sql, not cancellable, reading its answer to the end.
func (c *Client) exec(ctx context.Context, sql string) error {
	rows, err := c.query(ctx, sql, false)
	if err != nil {
		return err
	}
	defer rows.Close()
	for {
		more, err := rows.More()
		if err != nil || !more {
			return err
		}
		if _, err := rows.take(rows.end - rows.pos); err != nil {
			return err
		}
	}
}

// count runs sql, a query of one UInt64, not cancellable.
func (c *Client) count(ctx context.Context, sql string) (uint64, error) {
	rows, err := c.query(ctx, sql, false)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n, err := rows.UInt64()
	if err == nil {
		err = rows.End()
	}
	return n, err
}
