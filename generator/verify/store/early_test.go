package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/schema"
)

// bound is how long these tests wait for an event before failing.
const bound = time.Minute

// hooked is a fake store whose reads call hooks first.
type hooked struct {
	*fakeStore
	events  func(ctx context.Context, date schema.Date) error
	digests func(ctx context.Context, table string, call int, row func(uint64, []byte, []byte, int)) (handled bool, err error)

	mu    sync.Mutex
	calls map[string]int
}

func (h *hooked) Events(ctx context.Context, table string, date schema.Date, cols []store.Column, row func([]byte, []int, int) error) error {
	if h.events != nil {
		if err := h.events(ctx, date); err != nil {
			return err
		}
	}
	return h.fakeStore.Events(ctx, table, date, cols, row)
}

func (h *hooked) Digests(ctx context.Context, table, hintKey, classColumn string, row func(uint64, []byte, []byte, int)) error {
	h.mu.Lock()
	if h.calls == nil {
		h.calls = map[string]int{}
	}
	h.calls[table]++
	call := h.calls[table]
	h.mu.Unlock()
	if h.digests != nil {
		if handled, err := h.digests(ctx, table, call, row); handled {
			return err
		}
	}
	return h.fakeStore.Digests(ctx, table, hintKey, classColumn, row)
}

// TestEarlyReadOverlapsPlanning: the raw table's read is sent before the run is planned (the
// store sorts it meanwhile): the first date of the events table is only answered once the
// raw table's read has begun, which would never happen if that read waited for the plan.
func TestEarlyReadOverlapsPlanning(t *testing.T) {
	w, f, _ := filled(t)
	raw := store.StandTables().Raw
	begun := make(chan struct{})
	var once sync.Once
	h := &hooked{fakeStore: f}
	h.events = func(ctx context.Context, date schema.Date) error {
		select {
		case <-begun:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(bound):
			return fmt.Errorf("the raw table's read had not begun %v after the events of %s were asked for", bound, date)
		}
	}
	h.digests = func(_ context.Context, table string, _ int, _ func(uint64, []byte, []byte, int)) (bool, error) {
		if table == raw {
			once.Do(func() { close(begun) })
		}
		return false, nil
	}
	res := verify(t, w, h, store.Options{})
	if !res.OK {
		t.Fatalf("the exact store differs:\n%s", table(t, res))
	}
}

// TestEarlyReadWaits: with a budget far smaller than the raw table, the early read holds what
// it can and waits for the plan for the rest; every row still arrives once and in order, the
// store reconciles, and a fault is still found exactly.
func TestEarlyReadWaits(t *testing.T) {
	defer store.SetEarlyBudget(4096, 1024)()
	w, f, inv := filled(t)
	res := verify(t, w, f, store.Options{})
	if !res.OK || res.Raw.Total.Present != inv.Expect.Hits.StgRows {
		t.Fatalf("the exact store through a small budget: OK %v, raw present %d of %d\n%s", res.OK, res.Raw.Total.Present, inv.Expect.Hits.StgRows, table(t, res))
	}
	f.raw = slicesDelete(f.raw, func(r rawRow) bool { return r.day == 0 })
	res = verify(t, w, f, store.Options{})
	if u := res.Raw.Units[0]; res.OK || u.Missing != u.Planned || res.Raw.Differences != u.Planned {
		t.Errorf("day 0's raw rows gone: OK %v, %+v, differences %d; want all missing", res.OK, u.DigestCounts, res.Raw.Differences)
	}
}

// TestEarlyReadBrokeOffWhileWaiting: a store that drops an answer it could not send while
// verify planned (a newer ClickHouse's http_send_timeout) breaks the early read off after
// rows were held; the table is read again, said so, and the result is exact.
func TestEarlyReadBrokeOffWhileWaiting(t *testing.T) {
	defer store.SetEarlyBudget(4096, 1024)()
	w, f, _ := filled(t)
	raw := store.StandTables().Raw
	h := &hooked{fakeStore: f}
	h.digests = func(ctx context.Context, table string, call int, row func(uint64, []byte, []byte, int)) (bool, error) {
		if table != raw || call > 1 {
			return false, nil
		}
		// The first rows, enough to outgrow the budget (the read then waits for the plan),
		// then the connection breaks.
		for i := range 1000 {
			row(uint64(i), []byte("2026-06-01"), nil, 0)
		}
		return true, fmt.Errorf("clickhouse: 127.0.0.1:8123: read: connection reset by peer: %w", io.ErrUnexpectedEOF)
	}
	var log waitLog
	res := verify(t, w, h, store.Options{Logf: log.logf})
	if !res.OK {
		t.Fatalf("after the broken early read: not OK\n%s", table(t, res))
	}
	if h.calls[raw] != 2 || !strings.Contains(log.text(), "broke off while it waited") {
		t.Errorf("the raw table was read %d times, want 2; the log:\n%s", h.calls[raw], log.text())
	}
}

// TestEarlyReadFailureEndsPlanning: an early read that fails in a way that ends verification
// (the store does not answer in time) ends it at once with that error, even while the run is
// still being planned (here: the events of day 0 never come).
func TestEarlyReadFailureEndsPlanning(t *testing.T) {
	w, f, _ := filled(t)
	raw := store.StandTables().Raw
	timeout := &clickhouse.TimeoutError{Phase: clickhouse.PhaseFirstByte, After: time.Second, Addr: "127.0.0.1:8123"}
	h := &hooked{fakeStore: f}
	h.events = func(ctx context.Context, _ schema.Date) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(bound):
			return errors.New("the events' read was not cancelled")
		}
	}
	h.digests = func(_ context.Context, table string, _ int, _ func(uint64, []byte, []byte, int)) (bool, error) {
		if table == raw {
			return true, timeout
		}
		return false, nil
	}
	res, err := store.Verify(context.Background(), w, store.Range{From: runFrom, Days: runDays, Garbage: every}, h, store.Options{Tables: store.StandTables()})
	var te *clickhouse.TimeoutError
	if res != nil || !errors.As(err, &te) {
		t.Fatalf("Verify = %v, %v; want no result and the raw read's timeout", res != nil, err)
	}
}
