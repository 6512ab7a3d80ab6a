package store_test

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/internal/testenv"
)

// The store's verdict is judged on values, not only keys, and on every named table, read or
// not (issue 35). Each test is one way a store fooled verify before: it said OK about a store
// whose values were rewritten, whose planned row hid behind a wrong one, whose raw rows one
// old load time excused, whose named table did not exist, and it read a Kafka table.

func str(s string) []byte { return append(binary.AppendUvarint(nil, uint64(len(s))), s...) }

// TestValueChanged: one value of one row (URL) rewritten is a changed WatchID, counted under
// its column and date with the held and the planned value beside its key; every other value
// of the store is as planned. With --columns keys it passes, and the verdict says what was
// not compared. Before: only WatchID and ClientID were read, and the store was OK.
func TestValueChanged(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReadAhead)
	w, f, _ := filled(t)
	day1 := dateOf(1)
	var watchID uint64
	for i := range f.events {
		if f.events[i].date == day1 && f.events[i].msg != nil {
			f.events[i].set = map[string][]byte{"URL": str("https://evil.example/\x1b]0;pwned\x07")}
			watchID = f.events[i].watchID
			break
		}
	}
	res := verify(t, w, f, store.Options{})
	out := table(t, res)
	ev := res.Events
	if res.OK || ev.Differences != 1 || ev.Dates[1].Changed != 1 || len(ev.Diffs) != 1 || ev.Diffs[0].Kind != store.KindChanged ||
		ev.Diffs[0].WatchID != watchID || ev.Diffs[0].Columns != "URL" {
		t.Fatalf("one URL rewritten: OK %v, differences %d, %+v\n%s", res.OK, ev.Differences, ev.Diffs, out)
	}
	if len(ev.Columns) != 1 || ev.Columns[0].Column != "URL" || ev.Columns[0].Date != day1.String() || ev.Columns[0].Rows != 1 ||
		!strings.Contains(ev.Columns[0].Examples[0].Held, `https://evil.example/\x1b]0;pwned\x07`) ||
		!strings.HasPrefix(ev.Columns[0].Examples[0].Planned, `"https://shop.example.com`) {
		t.Errorf("per column: %+v", ev.Columns)
	}
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, day1.String()+" URL: 1; WatchID ") {
		t.Errorf("the console shows the store's bytes raw, or not the column:\n%s", out)
	}
	onlyFailing(t, res, "events")

	keys := verify(t, w, f, store.Options{Columns: store.ColumnsKeys})
	if out := table(t, keys); !keys.OK || !strings.Contains(out, "\nOK (keys only, --columns keys: values were not compared): ") {
		t.Errorf("--columns keys: OK %v\n%s", keys.OK, out)
	}
}

// TestChangedBesideEqual: a planned WatchID held a second time with another ClientID, next
// to its right row, is changed, not a copy; an error row held under its class and again under
// another is misclassified, not a copy. Before: both counted as copies, exit 0.
func TestChangedBesideEqual(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReadAhead)
	w, f, inv := filled(t)
	for _, e := range f.events {
		if e.date == dateOf(2) && e.msg != nil {
			wrong := e
			wrong.set = map[string][]byte{"ClientID": u64(e.clientID + 1)}
			f.events = append(f.events, wrong)
			break
		}
	}
	res := verify(t, w, f, store.Options{})
	if d := res.Events.Dates[2]; res.OK || d.Changed != 1 || d.Copies != inv.Days[2].Redelivered || res.Events.Diffs[0].Columns != "ClientID" {
		t.Fatalf("a second row with another ClientID: OK %v, %+v, %+v", res.OK, d.EventCounts, res.Events.Diffs)
	}

	_, f, _ = filled(t)
	e := f.errors[0]
	e.class = "keyset_mismatch"
	if f.errors[0].class == e.class {
		e.class = "not_an_object"
	}
	f.errors = append(f.errors, e)
	res = verify(t, w, f, store.Options{})
	if res.OK || res.Errors.Total.Misclassified != 1 || res.Errors.Total.Copies != 0 || res.Errors.Diffs[0].Kind != store.KindMisclassified {
		t.Fatalf("an error row under two classes: OK %v, %+v, %+v", res.OK, res.Errors.Total, res.Errors.Diffs)
	}
	onlyFailing(t, res, "errors")
}

// TestExpiryPerDay: one event row loaded long ago does not make its day's missing raw rows
// expired: only the day's newest load time does; and expired rows are said on the verdict
// line, never "every planned row present". Before: the oldest _load_ts decided, exit 0.
func TestExpiryPerDay(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReadAhead)
	w, f, _ := filled(t)
	f.raw = slicesDelete(f.raw, func(r rawRow) bool { return r.day == 0 })
	f.loads[dateOf(0)] = [2]int64{0, f.now - 60} // one row of 1970, the rest a minute ago
	res := verify(t, w, f, store.Options{})
	if u := res.Raw.Units[0]; res.OK || u.Expired != 0 || u.Missing != u.Planned {
		t.Fatalf("one old row: OK %v, %+v; want day 0's raw rows missing", res.OK, u.DigestCounts)
	}

	f.loads[dateOf(0)] = [2]int64{f.now - 90*3600, f.now - 80*3600}
	res = verify(t, w, f, store.Options{})
	out := strings.Join(strings.Fields(table(t, res)), " ") // the verdict line is wrapped at 100 columns
	u := res.Raw.Units[0]
	if !res.OK || u.Expired != u.Planned || res.Expired != u.Planned || strings.Contains(out, "every planned row present") ||
		!strings.Contains(out, "raw rows past the 3-day retention not judged") {
		t.Fatalf("day 0 loaded 80 h ago: OK %v, expired %d of %d\n%s", res.OK, u.Expired, u.Planned, out)
	}
}

// TestNoLoadTS: an events table without _load_ts while raw rows are missing is a difference
// naming the column; without missing raw rows it is not needed.
func TestNoLoadTS(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReadAhead)
	w, f, _ := filled(t)
	ev := f.layout[store.StandTables().Events]
	ev.Columns = ev.Columns[:len(ev.Columns)-1] // _load_ts
	if res := verify(t, w, f, store.Options{}); !res.OK {
		t.Fatalf("no raw row missing: %s", table(t, res))
	}
	f.raw = slicesDelete(f.raw, func(r rawRow) bool { return r.day == 3 })
	res := verify(t, w, f, store.Options{})
	if res.OK || len(res.Raw.Problems) != 1 || !strings.Contains(res.Raw.Problems[0], "lacks _load_ts") {
		t.Fatalf("raw rows missing, no _load_ts: problems %q\n%s", res.Raw.Problems, table(t, res))
	}
}

// TestEveryNamedTableProbed: a named table that does not exist is a difference naming it and
// the flag that skips it, whether or not the run plans rows for it (an orders table on day 0,
// a marts view with no closed day), and --wait does not wait for it. Before: OK, exit 0.
func TestEveryNamedTableProbed(t *testing.T) {
	w, f, _ := filled(t)
	tables := store.StandTables()
	tables.Orders, tables.Marts = "nowhere.tbl", "nowhere.view"
	res, err := store.Verify(context.Background(), w, store.Range{From: 0, Days: 1, Garbage: every}, f, store.Options{Tables: tables})
	if err != nil {
		t.Fatal(err)
	}
	out := table(t, res)
	if res.OK || res.Orders.OK || res.Marts.OK || !strings.Contains(res.Orders.Error, "nowhere.tbl does not exist") ||
		!strings.Contains(out, "--orders-table '' skips it") || !strings.Contains(out, "--marts-view '' skips it") {
		t.Fatalf("day 0 with tables that do not exist:\n%s", out)
	}
	if f.reads["nowhere.tbl"] != 0 || f.reads["nowhere.view"] != 0 {
		t.Errorf("read tables the probe found missing: %v", f.reads)
	}
}

// TestStreamRefused: a table whose read would consume (a Kafka table, a view over one, a
// Distributed table over one) is refused before anything is read from any table, naming its
// engine. Before: verify SELECTed it and the stand's next pull loaded nothing.
func TestStreamRefused(t *testing.T) {
	w, f, _ := filled(t)
	for _, engine := range []string{"Kafka", "RabbitMQ", "NATS", "FileLog", "S3Queue"} {
		g := *f
		g.reads = map[string]int{}
		g.layout = fakeLayout()
		raw := g.layout[store.StandTables().Raw]
		raw.Consumes = "its engine is " + engine
		res, err := store.Verify(context.Background(), w, store.Range{From: 0, Days: 2}, &g, store.Options{Tables: store.StandTables()})
		var ce *store.ConsumesError
		if res != nil || !errors.As(err, &ce) || !errors.Is(err, store.ErrConsumes) || ce.Role != store.RoleRaw || !strings.Contains(err.Error(), engine) {
			t.Fatalf("%s: Verify = %v, %v", engine, res != nil, err)
		}
		if len(g.reads) != 0 {
			t.Errorf("%s: tables read before the refusal: %v", engine, g.reads)
		}
	}
}

// TestWrongType: a key column of another type is named with its type, and its table is not
// read; a contract column of a type the stand does not fill it as is a difference naming it.
// Before: "the answer is not in order_id order".
func TestWrongType(t *testing.T) {
	// A type named by one goroutine's check of the layout; the reads are watched elsewhere.
	testenv.SkipUnderRace(t, watchedReadAhead)
	w, f, _ := filled(t)
	for i, c := range f.layout[store.StandTables().Orders].Columns {
		if c.Name == "order_id" {
			f.layout[store.StandTables().Orders].Columns[i].Type = "UInt64"
		}
	}
	for i, c := range f.layout[store.StandTables().Events].Columns {
		if c.Name == "URL" {
			f.layout[store.StandTables().Events].Columns[i].Type = "Map(String, String)"
		}
	}
	res := verify(t, w, f, store.Options{})
	if res.OK || !strings.Contains(res.Orders.Error, "column order_id is UInt64; verify reads it as a String") || f.reads["ods.order_dist"] != 0 {
		t.Errorf("order_id UInt64: %q, read %d times", res.Orders.Error, f.reads["ods.order_dist"])
	}
	if len(res.Events.Problems) != 1 || !strings.Contains(res.Events.Problems[0], "column URL is Map(String, String), a type verify does not compare") ||
		res.Events.Total.Present != res.Events.Total.Planned {
		t.Errorf("URL a Map: problems %q, present %d of %d", res.Events.Problems, res.Events.Total.Present, res.Events.Total.Planned)
	}
}

// TestStoreStringsBounded: whatever the store holds (an order_id with an escape sequence and
// a newline forging a verdict line, an error class of a megabyte, two hundred thousand unknown
// mart classes), the console shows it cut and escaped, one line each, and unknown classes as
// one row per day with their number.
func TestStoreStringsBounded(t *testing.T) {
	w, f, _ := filled(t)
	f.orders = append(f.orders, ordRow{id: "20260602-0001\x1b]0;title\x07\nOK: forged", date: dateOf(3)})
	f.errors = append(f.errors, errRow{raw: []byte("x"), class: strings.Repeat("c", 1<<20), day: 1})
	for i := range 200_000 {
		f.marts = append(f.marts, store.MartCount{Day: dateOf(0), Class: "class-" + string(rune('a'+i%26)) + strings.Repeat("x", i%7), Count: 1})
	}
	res := verify(t, w, f, store.Options{})
	out := table(t, res)
	if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "\nOK: forged") || len(out) > 200<<10 {
		t.Errorf("the console carries the store's bytes raw, or is %d bytes:\n%.3000s", len(out), out)
	}
	if d := res.Marts.Days[0]; d.Other == nil || d.Other.Rows != 200_000 || res.Marts.OK {
		t.Errorf("marts: %+v", d)
	}
	for _, d := range res.Errors.Diffs {
		if len(d.GotClass) > 300 {
			t.Errorf("an error class of %d bytes in the result", len(d.GotClass))
		}
	}
}

// TestWaitSkipsProbedMissingTables: --wait does not wait for a named table the probe found missing
// (its count would never come): the others caught up, the wait ends at its first poll, and
// the missing table is never counted. Time is synctest's.
func TestWaitSkipsProbedMissingTables(t *testing.T) {
	filled(t) // the fixture made outside the bubble
	w := bubbleWorld(t)
	synctest.Test(t, func(t *testing.T) {
		_, f, _ := filled(t)
		tables := store.StandTables()
		tables.Orders = "nowhere.tbl"
		counted := map[string]int{}
		var mu sync.Mutex
		src := &waitStore{fakeStore: f, count: func(table string) int64 {
			mu.Lock()
			defer mu.Unlock()
			counted[table]++
			return 1 << 40
		}}
		start := time.Now()
		res, err := store.Verify(context.Background(), w, store.Range{From: runFrom, Days: runDays, Garbage: every}, src,
			store.Options{Tables: tables, Wait: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > store.DefaultPoll || counted["nowhere.tbl"] != 0 || res.Orders.OK {
			t.Errorf("waited %v, counted the missing table %d times, orders OK %v", took, counted["nowhere.tbl"], res.Orders.OK)
		}
	})
}
