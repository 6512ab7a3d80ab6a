package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/schema"
)

// waitLog collects Logf's lines.
type waitLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *waitLog) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *waitLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// TestWait: --wait polls the tables' counts and ends when they reach the inventory's, when
// nothing changed for Quiet, or at its bound; a cancelled context ends it at once. Time is
// synctest's: the test takes no wall-clock time and depends on none.
func TestWait(t *testing.T) {
	_, _, inv := filled(t)
	events := int64(*inv.Expect.Hits.ODSEvents)
	for _, tc := range []struct {
		name    string
		wait    time.Duration
		arrive  func(poll int) int64 // the events table's count at a poll
		cancel  time.Duration        // cancel the context after this long; 0: never
		took    time.Duration        // how long the wait lasts (fake time)
		saying  string
		wantErr error
	}{
		{name: "catches up", wait: time.Hour, arrive: func(p int) int64 { return min(events, int64(p)*events/4) },
			took: 4 * store.DefaultPoll, saying: "caught up"},
		{name: "nothing arrives", wait: time.Hour, arrive: func(int) int64 { return 0 },
			took: store.DefaultQuiet, saying: "nothing changed for 30s"},
		{name: "stops halfway", wait: time.Hour, arrive: func(p int) int64 { return min(events/2, int64(p)*events/4) },
			took: 2*store.DefaultPoll + store.DefaultQuiet, saying: "nothing changed for 30s"},
		{name: "the bound", wait: 7 * time.Second, arrive: func(p int) int64 { return int64(p) },
			took: 8 * time.Second, saying: "waited 7s"},
		{name: "Ctrl-C", wait: time.Hour, arrive: func(p int) int64 { return int64(p) }, cancel: 11 * time.Second,
			took: 11 * time.Second, wantErr: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := bubbleWorld(t)
			synctest.Test(t, func(t *testing.T) {
				_, f, _ := filled(t)
				var mu sync.Mutex
				polls := 0
				src := &waitStore{fakeStore: f, count: func(table string) int64 {
					mu.Lock()
					defer mu.Unlock()
					if table != store.StandTables().Events {
						return 1 << 40 // the other tables have caught up
					}
					n := tc.arrive(polls)
					polls++
					return n
				}}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tc.cancel > 0 {
					time.AfterFunc(tc.cancel, cancel)
				}
				var log waitLog
				start := time.Now()
				res, err := store.Verify(ctx, w, store.Range{From: runFrom, Days: runDays, Garbage: every}, src,
					store.Options{Tables: store.StandTables(), Wait: tc.wait, Logf: log.logf})
				took := time.Since(start)
				if !errors.Is(err, tc.wantErr) || (err == nil) != (res != nil) {
					t.Fatalf("Verify = %v; want %v", err, tc.wantErr)
				}
				// The wait ends at the poll that sees the end: within one poll of it.
				if took < tc.took || took > tc.took+store.DefaultPoll {
					t.Errorf("waited %v, want %v (+ a poll)", took, tc.took)
				}
				text := log.text()
				if !strings.Contains(text, fmt.Sprintf("waiting up to %v for the store to catch up", tc.wait)) ||
					!strings.Contains(text, fmt.Sprintf("events ods.event_dist %d rows", events)) || !strings.Contains(text, tc.saying) {
					t.Errorf("the log does not say what it waits for, or %q:\n%s", tc.saying, text)
				}
				if tc.wantErr == nil && !strings.Contains(text, "waiting (") && tc.name != "catches up" {
					t.Errorf("no progress line while waiting:\n%s", text)
				}
				t.Logf("waited %v:\n%s", took, text)
			})
		})
	}
}

// waitStore is a fake store whose Count answers come from count.
type waitStore struct {
	*fakeStore
	count func(table string) int64
}

func (s *waitStore) Count(_ context.Context, table, _ string, _, _ schema.Date) (int64, error) {
	return s.count(table), nil
}

// TestWaitJudgesAgainAStoreThatMoved: a store whose counts stood still for Quiet while its
// raw table lacked its last block, which arrived while verify read the other tables (as
// 18.16's Kafka reader flushed the fill world's last 12 498 hits after more than 30 s on a
// loaded machine, and verify found the events complete and the raw rows short). That verdict
// is not given: verify judges again once the store is still, and says why. A store that did
// not move keeps its verdict after one judging, and so does one that moved once the wait was
// over. Time is synctest's.
func TestWaitJudgesAgainAStoreThatMoved(t *testing.T) {
	_, _, inv := filled(t)
	const late = 100
	for _, tc := range []struct {
		name     string
		wait     time.Duration
		arrives  bool // the late block lands once raw has been read
		changed  bool // an event's URL differs from the planned one
		ok       bool
		rawReads int
		saying   string
	}{
		{name: "the late block lands", wait: time.Hour, arrives: true, ok: true, rawReads: 2,
			saying: fmt.Sprintf("the store changed while it was judged (raw %d → %d of %d rows); judging it again once it is still",
				inv.Expect.Hits.StgRows-late, inv.Expect.Hits.StgRows, inv.Expect.Hits.StgRows)},
		{name: "nothing lands", wait: time.Hour, rawReads: 1, saying: "nothing changed for 30s"},
		// The second judging is a whole one: a store that is wrong besides is still wrong.
		{name: "the late block lands on a store with a value changed", wait: time.Hour, arrives: true, changed: true, rawReads: 2,
			saying: "judging it again once it is still"},
		{name: "the wait is over", wait: 20 * time.Second, arrives: true, rawReads: 1, saying: "the wait is over, so that verdict stands"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := bubbleWorld(t)
			synctest.Test(t, func(t *testing.T) {
				_, f, _ := filled(t)
				src := &movingStore{fakeStore: f, late: slices.Clone(f.raw[len(f.raw)-late:]), arrives: tc.arrives}
				f.raw = f.raw[:len(f.raw)-late]
				if tc.changed {
					f.events[0].set = map[string][]byte{"URL": str("https://evil.example/")}
				}
				var log waitLog
				res, err := store.Verify(context.Background(), w, store.Range{From: runFrom, Days: runDays, Garbage: every}, src,
					store.Options{Tables: store.StandTables(), Wait: tc.wait, Logf: log.logf})
				if err != nil {
					t.Fatal(err)
				}
				text := log.text()
				if res.OK != tc.ok || !strings.Contains(text, tc.saying) {
					t.Errorf("OK %v, want %v; the log does not say %q:\n%s", res.OK, tc.ok, tc.saying, text)
				}
				switch {
				case tc.changed && (res.Events.Differences == 0 || res.Raw.Total.Missing != 0):
					t.Errorf("events: %d differences, raw: %d missing; want the changed value found and the late block present",
						res.Events.Differences, res.Raw.Total.Missing)
				case !tc.ok && !tc.changed && res.Raw.Total.Missing != late:
					t.Errorf("raw: %d missing, want the late block's %d", res.Raw.Total.Missing, late)
				}
				if n := src.rawReads(); n != tc.rawReads {
					t.Errorf("raw read %d times, want %d", n, tc.rawReads)
				}
			})
		})
	}
}

// movingStore is a fake store whose raw table lacks its late rows until its first read has
// ended, when they land if arrives; the other tables' counts have caught up.
type movingStore struct {
	*fakeStore
	late    []rawRow
	arrives bool
}

func (s *movingStore) Count(_ context.Context, table, _ string, _, _ schema.Date) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if table != store.StandTables().Raw {
		return 1 << 40, nil
	}
	return int64(len(s.raw)), nil
}

func (s *movingStore) Digests(ctx context.Context, table, hintKey, classColumn string, row func(uint64, []byte, []byte, int)) error {
	err := s.fakeStore.Digests(ctx, table, hintKey, classColumn, row)
	if table == store.StandTables().Raw && s.arrives {
		s.mu.Lock()
		s.raw = append(s.raw, s.late...)
		s.late = nil
		s.mu.Unlock()
	}
	return err
}

func (s *movingStore) rawReads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads[store.StandTables().Raw]
}
