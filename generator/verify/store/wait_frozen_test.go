package store_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/schema"
)

// frozenStore is a store that stops answering after its first count (the events table's):
// each later count waits until its context ends, as a frozen (SIGSTOPped) server's does.
type frozenStore struct {
	*fakeStore
	polls int
}

func (s *frozenStore) Count(ctx context.Context, table, dateColumn string, first, last schema.Date) (int64, error) {
	s.polls++
	if s.polls > 1 {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	return 0, nil
}

// TestWaitBoundsAFrozenStore is issue 35's finding: `--wait 5s` against a frozen server took
// 122 s, each count waiting out the client's two-minute first-byte timeout. The wait bounds
// the counts too: a count still unanswered when the wait runs out ends it with a
// *store.WaitError naming the table, at the wait's end (synctest's time). The first Ctrl-C
// is still the context's own error.
func TestWaitBoundsAFrozenStore(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cancel time.Duration
	}{{name: "the wait runs out"}, {name: "Ctrl-C", cancel: 2 * time.Second}} {
		t.Run(tc.name, func(t *testing.T) {
			w := bubbleWorld(t)
			synctest.Test(t, func(t *testing.T) {
				_, f, _ := filled(t)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tc.cancel > 0 {
					time.AfterFunc(tc.cancel, cancel)
				}
				const wait = 5 * time.Second
				start := time.Now()
				res, err := store.Verify(ctx, w, store.Range{From: runFrom, Days: runDays, Garbage: every}, &frozenStore{fakeStore: f},
					store.Options{Tables: store.StandTables(), Wait: wait, Logf: t.Logf})
				took := time.Since(start)
				var we *store.WaitError
				switch {
				case res != nil:
					t.Fatalf("a frozen store was judged: %+v", res)
				case tc.cancel > 0:
					if !errors.Is(err, context.Canceled) || took != tc.cancel {
						t.Errorf("Verify = %v after %v; want context.Canceled after %v", err, took, tc.cancel)
					}
				case !errors.As(err, &we) || we.Table != store.StandTables().Errors || we.Wait != wait || took != wait:
					t.Errorf("Verify = %v after %v; want a WaitError for %s after %v", err, took, store.StandTables().Errors, wait)
				}
			})
		})
	}
}
