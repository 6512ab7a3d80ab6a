package store_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clickgen/clickgen/generator/verify/store"
)

// TestWaitSkipsMissingTables is issue 38 item 2: on a server that is not the whole stand,
// verify --wait waited 30 s on "marts (no table yet) 0/272" before judging the view missing,
// and nothing said how to skip it. A table that cannot be read when the wait starts is said
// at once, with the setting that skips it as the caller names it (Options.Names), and is not
// waited for: the other tables have caught up, so the wait ends at its first count (fake
// time: no poll passes). The table is still judged, as a difference naming it.
func TestWaitSkipsMissingTables(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names func(key string, value bool) string
		skip  string
	}{
		{"the caller's names", func(key string, _ bool) string {
			return map[string]string{"tables.marts": "--marts-view", "tables.errors": "--errors-table"}[key]
		}, "(--marts-view '' skips it)"},
		{"the library's keys", nil, "(tables.marts '' skips it)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			filled(t) // the fixture made outside the bubbles
			w := bubbleWorld(t)
			synctest.Test(t, func(t *testing.T) {
				_, f, _ := filled(t)
				tables := store.StandTables()
				f.dropped[tables.Marts] = true
				for _, tb := range []string{tables.Events, tables.Errors, tables.Raw, tables.Orders, tables.OrderErrors} {
					f.counts[tb] = 1 << 40 // caught up
				}
				var log waitLog
				start := time.Now()
				res, err := store.Verify(context.Background(), w, store.Range{From: runFrom, Days: runDays, Garbage: every}, f,
					store.Options{Tables: tables, Wait: time.Hour, Logf: log.logf, Names: tc.names})
				if err != nil {
					t.Fatal(err)
				}
				text := log.text()
				if took := time.Since(start); took != 0 {
					t.Errorf("waited %v for a table that does not exist, want no wait:\n%s", took, text)
				}
				want := "verify: marts: dm.purchase_vs_orders_v does not exist; "
				if !strings.Contains(text, want) || !strings.Contains(text, "; not waited for "+tc.skip) ||
					strings.Contains(text, "no table yet") || !strings.Contains(text, "caught up") {
					t.Errorf("the log does not name the missing view at once with %s:\n%s", tc.skip, text)
				}
				if res.OK || res.Marts == nil || !strings.Contains(res.Marts.Error, "does not exist") {
					t.Errorf("the missing view is not judged a difference: OK %v, marts %+v", res.OK, res.Marts)
				}
			})
		})
	}
}
