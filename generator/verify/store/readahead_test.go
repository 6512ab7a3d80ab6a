package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/schema"
)

// breakingAhead is a fake store whose read of one date breaks off after its first row, the
// first time: what a server that drops an answer it could not send for a while (ClickHouse's
// http_send_timeout) does to the read verify sends ahead of the date's judging.
type breakingAhead struct {
	*fakeStore
	date  schema.Date
	every bool // every read of the date breaks, not only the first
	mu    sync.Mutex
	calls int
}

func (b *breakingAhead) Events(ctx context.Context, table string, date schema.Date, cols []store.Column, row func([]byte, []int, int) error) error {
	b.mu.Lock()
	first := date == b.date && (b.calls == 0 || b.every)
	if date == b.date {
		b.calls++
	}
	b.mu.Unlock()
	if !first {
		return b.fakeStore.Events(ctx, table, date, cols, row)
	}
	return b.fakeStore.Events(ctx, table, date, cols, func(r []byte, ends []int, shard int) error {
		if err := row(r, ends, shard); err != nil {
			return err
		}
		return errors.New("connection reset by peer")
	})
}

// TestReadAheadBrokeOff: the read of the next date is sent while a date is judged; when that
// answer breaks off, the date is read afresh and judged whole, and verify says so: the store
// is exact, not unreadable. A store whose fresh read breaks too is an error.
func TestReadAheadBrokeOff(t *testing.T) {
	w, f, _ := filled(t)
	src := &breakingAhead{fakeStore: f, date: dateOf(3)}
	var log waitLog
	res, err := store.Verify(context.Background(), w, store.Range{From: runFrom, Days: runDays, Garbage: every}, src,
		store.Options{Tables: store.StandTables(), Logf: log.logf})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || src.calls != 2 || !strings.Contains(log.text(), "EventDate "+dateOf(3).String()+": the read sent ahead broke off") {
		t.Fatalf("OK %v, %d reads of %s:\n%s", res.OK, src.calls, dateOf(3), log.text())
	}

	_, f, _ = filled(t)
	always := &breakingAhead{fakeStore: f, date: dateOf(3), every: true}
	res, err = store.Verify(context.Background(), w, store.Range{From: runFrom, Days: runDays, Garbage: every}, always, store.Options{Tables: store.StandTables()})
	if res != nil || err == nil || !strings.Contains(err.Error(), "connection reset") || always.calls != 2 {
		t.Fatalf("a date whose every read breaks: %v, %v after %d reads; want the error, after the read ahead and one afresh", res != nil, err, always.calls)
	}
}
