package intake_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/internal/tier/chdb"
	"github.com/clickgen/clickgen/internal/tier/realkafka"
	"github.com/clickgen/clickgen/schema"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The engine tier with clickgen's own output: a garbage-heavy run of the canonical world,
// interleaved exactly as the CLI sends it, through the real ClickHouse (chDB 26.7), once from a
// file of `batch --file` lines read with LineAsString and once through a Kafka table reading
// clickgen's own Kafka sink. Every count the stand ends up with must be the inventory's, and
// every message must get the same class from the engine and from the Go classifier.

// heavyGarbage is the garbage profile of these tests: one malformed message in twenty, every
// class with weight 1 (each topic uses the classes that apply to it), and one redelivery in a
// hundred.
var heavyGarbage = world.Garbage{
	Rate: 0.05,
	Mix: map[string]int{
		world.GarbageNotAnObject:    1,
		world.GarbageKeysetMismatch: 1,
		world.GarbageKeyUnparsed:    1,
		world.GarbageAcceptedBad:    1,
		world.GarbageVanishing:      1,
		world.GarbageFieldInvalid:   1,
	},
	Redeliver: 0.01,
}

// The run under test is the stand's starting world with heavyGarbage, `batch --day 0 --days 8`
// and `snapshot --day 0 --days 8`, of which the tests send the first day of hits (day 0) and
// the whole orders topic (the snapshots of days 0…6: snapshot 0 alone has ~250 rows and only a
// dozen malformed ones, too few to meet every kind of every order class).
const (
	runFrom = 0
	runDays = 8
	hitDay  = 0
)

// fill is the world and its inventory, computed once per test binary.
var fill struct {
	once sync.Once
	w    *world.World
	inv  *world.Inventory
	err  error
}

func fillRun(t *testing.T) (*world.World, *world.Inventory) {
	t.Helper()
	fill.once.Do(func() {
		start := time.Now()
		fill.w, fill.err = world.NewWorld(world.Params{})
		if fill.err != nil {
			return
		}
		fill.inv, fill.err = fill.w.Inventory(context.Background(), world.Range{From: runFrom, Days: runDays, Garbage: heavyGarbage}, 0)
		t.Logf("inventory of days %d…%d with %+v computed in %v", runFrom, runFrom+runDays-1, heavyGarbage, time.Since(start).Round(time.Millisecond))
	})
	if fill.err != nil {
		t.Fatal(fill.err)
	}
	return fill.w, fill.inv
}

// message is one message of a run, in send order, with what the generator meant by it.
type message struct {
	key, value []byte
	unit       int    // the model day of a hit, or the day of an order's snapshot
	intent     string // "clean", "redelivered", or the garbage class of world.Extra
	kind       string // world.Extra.Kind; "" for a clean message
}

// wantHit is the intake's verdict the generator intends for a hit: the error class ("" for
// ods.event) and whether the message makes a row at all.
func (m *message) wantHit() (class string, row bool) {
	switch m.intent {
	case "clean", "redelivered", world.GarbageAcceptedBad:
		return "", true
	case world.GarbageVanishing:
		return "", false
	}
	return m.intent, true
}

// wantOrder is wantHit for orders (which have no opt-in classes).
func (m *message) wantOrder() (class string, row bool) {
	if m.intent == "clean" || m.intent == "redelivered" {
		return "", true
	}
	return m.intent, true
}

func (m *message) String() string {
	v := m.value
	if len(v) > 300 {
		v = append(v[:300:300], "…"...)
	}
	return fmt.Sprintf("%s/%s of day %d, key %q: %q", m.intent, m.kind, m.unit, m.key, v)
}

func extraMessage(e *world.Extra, unit int) message {
	m := message{key: e.Key, value: e.Value, unit: unit, intent: e.Class, kind: e.Kind}
	if e.Redelivered() {
		m.intent = "redelivered"
	}
	return m
}

// hitMessages returns the messages `batch --day d --days 1` sends with garbage g, in the CLI's
// order (cmd/clickgen playHits and extraQueue): the clean events of the day in order, each
// world.Extra placed right before clean message Extra.After, the rest after the last.
func hitMessages(t *testing.T, w *world.World, d int, g world.Garbage) []message {
	t.Helper()
	var out []message
	var extras []world.Extra
	next := 0
	upTo := func(clean, day int) {
		for ; next < len(extras) && extras[next].After <= clean; next++ {
			out = append(out, extraMessage(&extras[next], day))
		}
	}
	err := w.Play(context.Background(), d, 1, world.PlayOptions{}, func(b *world.Batch) error {
		if b.From == 0 {
			extras, next = b.Day.HitExtras(g), 0
		}
		for i := range b.Msgs {
			upTo(b.From+i, b.Day.N)
			// The batch is the callback's to keep: its bytes are never touched again.
			out = append(out, message{key: b.Key(i), value: b.Value(i), unit: b.Day.N, intent: "clean"})
		}
		if b.Last {
			upTo(b.Day.Len(), b.Day.N)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// snapshotMessages returns the messages `snapshot --day from --days n` sends with garbage g,
// in the CLI's order (cmd/clickgen playSnapshots), and where each snapshot starts: snapshot i
// of world.SnapshotDays(from, n) is out[starts[i]:starts[i+1]].
func snapshotMessages(t *testing.T, w *world.World, from, n int, g world.Garbage) (out []message, starts []int) {
	t.Helper()
	book := world.NewOrderBook(w)
	for _, d := range world.SnapshotDays(from, n) {
		starts = append(starts, len(out))
		rows, keys, err := book.SnapshotRows(d)
		if err != nil {
			t.Fatal(err)
		}
		extras := w.OrderExtras(d, rows, keys, g)
		next := 0
		upTo := func(clean int) {
			for ; next < len(extras) && extras[next].After <= clean; next++ {
				out = append(out, extraMessage(&extras[next], d))
			}
		}
		for i := range rows {
			upTo(i)
			out = append(out, message{key: keys[i], value: rows[i], unit: d, intent: "clean"})
		}
		upTo(len(rows))
	}
	return out, append(starts, len(out))
}

// send sends msgs to topic through snk in order, flushing at the end of every unit (day or
// snapshot) as the CLI does, and checks that every message was acknowledged.
func send(t *testing.T, snk sink.Sink, topic string, msgs []message) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := range msgs {
		m := &msgs[i]
		if err := snk.Send(ctx, sink.Message{Topic: topic, Key: m.key, Value: m.value, Tag: uint32(m.unit)}); err != nil {
			t.Fatalf("send message %d: %v", i, err)
		}
		if i+1 == len(msgs) || msgs[i+1].unit != m.unit {
			if err := snk.Flush(ctx); err != nil {
				t.Fatalf("flush after unit %d: %v", m.unit, err)
			}
		}
	}
	st := snk.Stats().Topics[topic]
	if st.Acked != int64(len(msgs)) || st.Failed != 0 {
		t.Fatalf("%s: %d acknowledged, %d failed, want all %d acknowledged", topic, st.Acked, st.Failed, len(msgs))
	}
}

// reporter reports disagreements, stopping the test after the first 25.
type reporter struct {
	t *testing.T
	n int
}

func (r *reporter) errorf(format string, args ...any) {
	r.t.Helper()
	r.t.Errorf(format, args...)
	if r.n++; r.n >= 25 {
		r.t.Fatalf("stopping after %d disagreements", r.n)
	}
}

// tsv runs q and splits its TSV output into rows of fields.
func tsv(t *testing.T, s *chdb.Session, q string) [][]string {
	t.Helper()
	out, err := s.Query(q, "TSV")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for line := range strings.SplitSeq(strings.TrimSuffix(string(out), "\n"), "\n") {
		if line != "" {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	return rows
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("engine printed %q, want a number", s)
	}
	return n
}

func md5hex(b []byte) string {
	h := md5.Sum(b)
	return strings.ToUpper(hex.EncodeToString(h[:]))
}

// nonZero drops zero counts, which an engine's GROUP BY cannot show.
func nonZero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// writeLines writes msgs with clickgen's file sink, as `batch --file` and `snapshot --file`
// do: each value followed by "\n", a tombstone or empty value as an empty line. A value holding
// "\n" could not be read back as one line, by LineAsString or by anyone: that would be a bug
// of the generator's file output, so it fails the test.
func writeLines(t *testing.T, path, topic string, msgs []message) {
	t.Helper()
	for i := range msgs {
		if bytes.IndexByte(msgs[i].value, '\n') >= 0 {
			t.Fatalf("message %d holds a newline, which batch --file cannot carry: %v", i, &msgs[i])
		}
	}
	w, err := sink.CreateFile(path, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	send(t, w, topic, msgs)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d messages, %.1f MB, sha256 %x", filepath.Base(path), len(msgs), float64(n)/1e6, h.Sum(nil))
}

// engineLine is what the engine makes of one non-empty line of a file.
type engineLine struct {
	md5, class, key, date string // key: WatchID or order_id as the engine reads it; date: EventDate
}

// readLines reads the file at path with LineAsString and applies classSQL (over the column
// raw) to every row, returning per line number (0-based, as _row_number counts) the row's
// MD5, class and the extra expressions. An empty line is filtered out: it stands for an empty
// Kafka message or a tombstone, which produce no row in the stand's RawBLOB table.
func readLines(t *testing.T, s *chdb.Session, path, classSQL, keySQL, dateSQL string) map[int]engineLine {
	t.Helper()
	q := fmt.Sprintf(`SELECT _row_number, hex(MD5(raw)), %s, toString(%s), toString(%s)
FROM file(%s, 'LineAsString', 'raw String') WHERE raw != ''`, classSQL, keySQL, dateSQL, intake.Quote(path))
	rows := map[int]engineLine{}
	for _, r := range tsv(t, s, q) {
		if len(r) != 5 {
			t.Fatalf("engine row %q: want 5 fields", r)
		}
		rows[atoi(t, r[0])] = engineLine{md5: r[1], class: r[2], key: r[3], date: r[4]}
	}
	return rows
}

// fileCounts asks the engine directly what the stand would hold after reading the file: lines,
// empty lines (no row), rows, and rows and distinct dedup keys per class ("" = accepted).
func fileCounts(t *testing.T, s *chdb.Session, path, classSQL, keySQL string) (lines, empty int, perClass, distinct map[string]int) {
	t.Helper()
	src := fmt.Sprintf("file(%s, 'LineAsString', 'raw String')", intake.Quote(path))
	r := tsv(t, s, "SELECT count(), countIf(raw = '') FROM "+src)
	lines, empty = atoi(t, r[0][0]), atoi(t, r[0][1])
	perClass, distinct = map[string]int{}, map[string]int{}
	q := fmt.Sprintf("SELECT c, count(), uniqExact(k) FROM (SELECT %s AS c, %s AS k FROM %s WHERE raw != '') GROUP BY c", classSQL, keySQL, src)
	for _, row := range tsv(t, s, q) {
		perClass[row[0]], distinct[row[0]] = atoi(t, row[1]), atoi(t, row[2])
	}
	return lines, empty, perClass, distinct
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

var (
	hitWatchID   = schema.HitColumns[0].Name
	hitEventDate = schema.HitColumns[4].Name
	orderIDKey   = schema.OrderKeys[0].Name
)

// TestEngineWorldFile: clickgen's own garbage-heavy output, written as `batch --file` and
// `snapshot --file` write it and read back by ClickHouse with LineAsString, lands exactly as the
// inventory says (rows, errors per class, rows FINAL leaves), and every message gets the same
// class from the engine's intake SQL, from the Go classifier and from the generator's intent.
func TestEngineWorldFile(t *testing.T) {
	t.Parallel() // databases of its own names (see engineParallel)
	s := intake.OpenEngine(t)
	w, inv := fillRun(t)

	t.Run("hits", func(t *testing.T) {
		start := time.Now()
		msgs := hitMessages(t, w, hitDay, heavyGarbage)
		path := filepath.Join(t.TempDir(), "hits.ndjson")
		writeLines(t, path, "hits", msgs)
		generated := time.Since(start)

		day := inv.Days[hitDay-runFrom]
		exp := day.Expect
		if len(msgs) != day.Messages {
			t.Fatalf("day %d: %d messages, inventory says %d", hitDay, len(msgs), day.Messages)
		}
		watchID := fmt.Sprintf("JSONExtract(raw, %s, 'Nullable(UInt64)')", intake.Quote(hitWatchID))
		eventDate := fmt.Sprintf("JSONExtract(raw, %s, 'Nullable(Date)')", intake.Quote(hitEventDate))

		// The stand's counts, computed by the engine alone.
		lines, empty, perClass, distinct := fileCounts(t, s, path, intake.HitClassSQL(), watchID)
		accepted := perClass[""]
		delete(perClass, "")
		t.Logf("engine: %d lines, %d empty (no row), %d rows, %d accepted, %d distinct WatchIDs accepted (FINAL), errors %v",
			lines, empty, lines-empty, accepted, distinct[""], perClass)
		t.Logf("inventory: %d messages, garbage %v, %d redelivered; stg_rows %d, ods_events %d, ods_errors %v",
			day.Messages, day.Garbage, day.Redelivered, exp.StgRows, *exp.ODSEvents, exp.ODSErrors)
		if lines != day.Messages {
			t.Errorf("lines = %d, want the inventory's %d messages", lines, day.Messages)
		}
		if empty != day.Garbage[world.GarbageVanishing] {
			t.Errorf("empty lines = %d, want the inventory's %d vanishing", empty, day.Garbage[world.GarbageVanishing])
		}
		if lines-empty != exp.StgRows {
			t.Errorf("rows = %d, want stg_rows %d", lines-empty, exp.StgRows)
		}
		if !maps.Equal(perClass, nonZero(exp.ODSErrors)) {
			t.Errorf("errors per class = %v, want ods_errors %v", perClass, exp.ODSErrors)
		}
		if distinct[""] != *exp.ODSEvents {
			t.Errorf("distinct WatchIDs of accepted rows = %d, want ods_events %d", distinct[""], *exp.ODSEvents)
		}

		// Message by message: engine, Go classifier, generator's intent.
		rows := readLines(t, s, path, intake.HitClassSQL(), watchID, eventDate)
		r := &reporter{t: t}
		goClass, goKeys := map[string]int{}, map[uint64]bool{}
		agree := 0
		for i := range msgs {
			m := &msgs[i]
			class, row := intake.ClassifyHit(m.value)
			meant := true
			if wc, wr := m.wantHit(); wc != class || wr != row {
				r.errorf("message %d: generator meant (class %q, row %v), ClassifyHit says (%q, %v): %v", i, wc, wr, class, row, m)
				meant = false
			}
			got, inEngine := rows[i]
			if !row {
				if inEngine {
					r.errorf("message %d: no row expected, the engine has one (class %q): %v", i, got.class, m)
				}
				continue
			}
			if !inEngine {
				r.errorf("message %d: missing from the engine's rows: %v", i, m)
				continue
			}
			if got.md5 != md5hex(m.value) {
				r.errorf("message %d: LineAsString read other bytes (MD5 %s, want %s): %v", i, got.md5, md5hex(m.value), m)
				continue
			}
			if got.class != class {
				r.errorf("message %d: engine %q, ClassifyHit %q: %v", i, got.class, class, m)
				continue
			}
			if class == "" {
				k, _ := intake.HitDedupKey(m.value)
				if got.key != strconv.FormatUint(k.WatchID, 10) || got.date != k.EventDate.String() {
					r.errorf("message %d: engine key (%s, %s), HitDedupKey (%d, %s): %v", i, got.key, got.date, k.WatchID, k.EventDate, m)
					continue
				}
				goKeys[k.WatchID] = true
			} else {
				goClass[class]++
			}
			if meant {
				agree++
			}
		}
		if len(rows) != exp.StgRows {
			t.Errorf("engine rows by line number = %d, want %d", len(rows), exp.StgRows)
		}
		t.Logf("message by message: %d of %d rows agree (engine = ClassifyHit = intent, same bytes, same dedup key); Go: errors %v, %d distinct WatchIDs",
			agree, len(rows), goClass, len(goKeys))
		if len(goKeys) != *exp.ODSEvents || !maps.Equal(goClass, nonZero(exp.ODSErrors)) {
			t.Errorf("Go classifier: %d distinct WatchIDs, errors %v; want %d and %v", len(goKeys), goClass, *exp.ODSEvents, exp.ODSErrors)
		}
		t.Logf("hits file: generated and written in %v, total %v", generated.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	})

	t.Run("orders", func(t *testing.T) {
		start := time.Now()
		msgs, starts := snapshotMessages(t, w, runFrom, runDays, heavyGarbage)
		path := filepath.Join(t.TempDir(), "orders.ndjson")
		writeLines(t, path, "orders", msgs)
		if len(starts)-1 != len(inv.Snapshots) {
			t.Fatalf("%d snapshots sent, the inventory has %d", len(starts)-1, len(inv.Snapshots))
		}
		exp := inv.Expect.Orders
		orderID := fmt.Sprintf("JSONExtractString(raw, %s)", intake.Quote(orderIDKey))

		lines, empty, perClass, distinct := fileCounts(t, s, path, intake.OrderClassSQL(), orderID)
		accepted := perClass[""]
		delete(perClass, "")
		t.Logf("engine: %d lines, %d empty, %d rows, %d accepted, %d distinct order_ids accepted (FINAL), errors %v",
			lines, empty, lines-empty, accepted, distinct[""], perClass)
		t.Logf("inventory, snapshots %d…%d: stg_rows %d, ods_orders %d, ods_errors %v",
			inv.Snapshots[0].Day, inv.Snapshots[len(inv.Snapshots)-1].Day, exp.StgRows, *exp.ODSOrders, exp.ODSErrors)
		if lines != len(msgs) || empty != 0 {
			t.Errorf("lines = %d with %d empty, want %d and none", lines, empty, len(msgs))
		}
		if lines-empty != exp.StgRows {
			t.Errorf("rows = %d, want stg_rows %d", lines-empty, exp.StgRows)
		}
		if !maps.Equal(perClass, nonZero(exp.ODSErrors)) {
			t.Errorf("errors per class = %v, want ods_errors %v", perClass, exp.ODSErrors)
		}
		if distinct[""] != *exp.ODSOrders {
			t.Errorf("distinct order_ids of accepted rows = %d, want ods_orders %d", distinct[""], *exp.ODSOrders)
		}

		rows := readLines(t, s, path, intake.OrderClassSQL(), orderID, "''")
		r := &reporter{t: t}
		agree := 0
		for si, snap := range inv.Snapshots {
			errs, ids, nrows := map[string]int{}, map[string]bool{}, 0
			for i := starts[si]; i < starts[si+1]; i++ {
				m := &msgs[i]
				if m.unit != snap.Day {
					t.Fatalf("message %d is of snapshot %d, want %d", i, m.unit, snap.Day)
				}
				class, row := intake.ClassifyOrder(m.value)
				meant := true
				if wc, wr := m.wantOrder(); wc != class || wr != row {
					r.errorf("message %d: generator meant (class %q, row %v), ClassifyOrder says (%q, %v): %v", i, wc, wr, class, row, m)
					meant = false
				}
				got, inEngine := rows[i]
				if !inEngine {
					r.errorf("message %d: missing from the engine's rows: %v", i, m)
					continue
				}
				nrows++
				if got.md5 != md5hex(m.value) {
					r.errorf("message %d: LineAsString read other bytes: %v", i, m)
					continue
				}
				if got.class != class {
					r.errorf("message %d: engine %q, ClassifyOrder %q: %v", i, got.class, class, m)
					continue
				}
				if class == "" {
					if k, _ := intake.OrderDedupKey(m.value); got.key != k {
						r.errorf("message %d: engine order_id %q, OrderDedupKey %q: %v", i, got.key, k, m)
						continue
					}
					ids[got.key] = true
				} else {
					errs[class]++
				}
				if meant {
					agree++
				}
			}
			// Per snapshot, from the engine's verdicts.
			se := snap.Expect
			if nrows != se.StgRows || len(ids) != *se.ODSOrders || !maps.Equal(errs, nonZero(se.ODSErrors)) {
				t.Errorf("snapshot %d: %d rows, %d distinct order_ids, errors %v; inventory: %d, %d, %v",
					snap.Day, nrows, len(ids), errs, se.StgRows, *se.ODSOrders, se.ODSErrors)
			} else {
				t.Logf("snapshot %d: %d rows, %d distinct order_ids, errors %v, as the inventory says", snap.Day, nrows, len(ids), errs)
			}
		}
		t.Logf("message by message: %d of %d rows agree (engine = ClassifyOrder = intent, same bytes, same order_id); total %v",
			agree, len(rows), time.Since(start).Round(time.Millisecond))
	})
}

// TestEngineWorldKafka: the same garbage-heavy run produced with clickgen's own Kafka sink
// into an in-process broker (hits keyed by ClientID, orders by order_id, as the CLI sends
// them) and consumed by the stand's pipelines on the real engine: hits pushed through a Kafka
// table (RawBLOB) and materialized views into raw, event and error tables; orders pulled by
// direct SELECT and parsed. The tables hold exactly the inventory's counts.
func TestEngineWorldKafka(t *testing.T) {
	t.Parallel() // databases of its own names (see engineParallel)
	s := intake.OpenEngine(t)
	broker, err := broker.Start("127.0.0.1:0") // hits with 2 partitions, orders with 1
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	worldThroughKafka(t, s, broker.Addrs(), "w")
}

// TestEngineWorldRealKafka is TestEngineWorldKafka against real Apache Kafka 4.3.1, one node
// configured as the stand's (internal/tier/realkafka), with hits created with 2 partitions
// and orders with 1 as the stand's DAG creates them: librdkafka inside ClickHouse consumes
// clickgen's output from the real broker, in the stand's consumer groups, and the tables hold
// exactly the inventory's counts. Runs where CLICKGEN_TIERS
// selects the chdb and kafka tiers.
func TestEngineWorldRealKafka(t *testing.T) {
	t.Parallel() // databases of its own names (see engineParallel)
	s := intake.OpenEngine(t)
	c := realkafka.Start(t, 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for topic, parts := range sink.DefaultTopics() {
		if _, err := kadm.NewClient(cl).CreateTopic(ctx, parts, -1, nil, topic); err != nil {
			t.Fatalf("create topic %s: %v", topic, err)
		}
	}
	defer cl.Close()
	worldThroughKafka(t, s, c.Addrs(), "r")

	// The engine consumed in the stand's groups and committed there all it read: the groups'
	// offsets are the topics' ends (a later run of the stand's DAG starts after them). A minute
	// of its own for that: the world's run took the first one (under a busy machine, more).
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	adm := kadm.NewClient(cl)
	for group, topic := range map[string]string{"clickstream_hits": "hits", "clickstream_orders": "orders"} {
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int32]int64{}
		ends.Each(func(o kadm.ListedOffset) { want[o.Partition] = o.Offset })
		var got map[int32]int64
		for {
			committed, err := adm.FetchOffsets(ctx, group)
			if err != nil {
				t.Fatalf("offsets of group %s: %v", group, err)
			}
			got = map[int32]int64{}
			committed.Each(func(o kadm.OffsetResponse) {
				if o.Topic == topic {
					got[o.Partition] = o.At
				}
			})
			if maps.Equal(got, want) || ctx.Err() != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if !maps.Equal(got, want) {
			t.Errorf("group %s committed %v on %s, want its end offsets %v", group, got, topic, want)
		} else {
			t.Logf("group %s committed %s's end offsets %v", group, topic, got)
		}
	}
}

// worldThroughKafka is TestEngineWorldKafka on the brokers at addrs, whose topics hits (2
// partitions) and orders (1) must be empty; the engine's databases are named after prefix.
// The stand's consumer groups are used: clickstream_hits for the hits' Kafka table,
// clickstream_orders for the direct SELECTs of orders (kafka_commit_on_select).
func worldThroughKafka(t *testing.T, s *chdb.Session, addrs []string, prefix string) {
	w, inv := fillRun(t)
	brokers := strings.Join(addrs, ",")

	produce := func(t *testing.T, topic string, msgs []message) {
		t.Helper()
		start := time.Now()
		// The options of the CLI's --brokers with its defaults (cmd/clickgen kafkaOpts).
		k, err := sink.NewKafka(sink.SeedBrokers(addrs...), sink.BatchCompression(sink.CompressionLZ4),
			sink.Linger(10*time.Millisecond), sink.ConnectTimeout(10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		defer k.Close()
		if err := k.CheckConnect(context.Background()); err != nil {
			t.Fatal(err)
		}
		send(t, k, topic, msgs)
		st := k.Stats().Topics[topic]
		t.Logf("produced %d messages (%.1f MB) to %s with clickgen's Kafka sink in %v; per partition %v",
			st.Acked, float64(st.Bytes)/1e6, topic, time.Since(start).Round(time.Millisecond), st.Partitions)
	}

	t.Run("hits", func(t *testing.T) {
		start := time.Now()
		msgs := hitMessages(t, w, hitDay, heavyGarbage)
		day := inv.Days[hitDay-runFrom]
		exp := day.Expect
		if len(msgs) != day.Messages {
			t.Fatalf("day %d: %d messages, inventory says %d", hitDay, len(msgs), day.Messages)
		}
		produce(t, "hits", msgs)

		p := intake.HitsPipeline{Brokers: brokers, STG: prefix + "k_stg", ODS: prefix + "k_ods", Flush: 200 * time.Millisecond}
		// The engine lives as long as the test binary: start from empty tables under -count=N.
		if err := s.Exec("DROP DATABASE IF EXISTS "+p.STG+" SYNC", "DROP DATABASE IF EXISTS "+p.ODS+" SYNC"); err != nil {
			t.Fatal(err)
		}
		ddl, err := p.DDL()
		if err != nil {
			t.Fatal(err)
		}
		consumed := time.Now()
		if err := s.Exec(ddl...); err != nil {
			t.Fatal(err)
		}
		defer func() {
			// Detach the consumer before the broker goes away.
			if err := s.Exec("DROP TABLE IF EXISTS "+p.STG+".hits_raw_mv SYNC", "DROP TABLE IF EXISTS "+p.STG+".hits_raw_kafka SYNC"); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		raw, err := s.WaitCount(ctx, "SELECT count() FROM "+p.RawTable(), uint64(exp.StgRows), 250*time.Millisecond)
		if err != nil {
			t.Fatalf("raw rows = %d, want stg_rows %d: %v", raw, exp.StgRows, err)
		}
		rawAfter := time.Since(consumed)
		t.Logf("ClickHouse's Kafka table consumed %d rows in %v", raw, rawAfter.Round(time.Millisecond))

		// The parse views run in the same insert as the raw rows, but the raw table's part is
		// committed first: on a large block the views' parts appear a little later. Wait for
		// them too (a count past the expected one fails at once).
		if n, err := s.WaitCount(ctx, "SELECT count() FROM "+p.ErrorTable(), uint64(sum(exp.ODSErrors)), 100*time.Millisecond); err != nil {
			t.Errorf("error rows = %d, want %d: %v", n, sum(exp.ODSErrors), err)
		}
		if n, err := s.WaitCount(ctx, "SELECT count() FROM "+p.EventTable()+" FINAL", uint64(*exp.ODSEvents), 100*time.Millisecond); err != nil {
			t.Errorf("events FINAL = %d, want %d: %v", n, *exp.ODSEvents, err)
		}
		t.Logf("the parse views' rows complete %v after the raw rows", time.Since(consumed.Add(rawAfter)).Round(time.Millisecond))
		errorClasses := map[string]int{}
		for _, row := range tsv(t, s, "SELECT error_class, count() FROM "+p.ErrorTable()+" GROUP BY error_class") {
			errorClasses[row[0]] = atoi(t, row[1])
		}
		final := atoi(t, tsv(t, s, "SELECT count() FROM "+p.EventTable()+" FINAL")[0][0])
		events := atoi(t, tsv(t, s, "SELECT count() FROM "+p.EventTable())[0][0])
		t.Logf("engine: raw %d, events FINAL %d (%d before FINAL), errors %v", raw, final, events, errorClasses)
		t.Logf("inventory: stg_rows %d, ods_events %d, ods_errors %v", exp.StgRows, *exp.ODSEvents, exp.ODSErrors)
		if !maps.Equal(errorClasses, nonZero(exp.ODSErrors)) {
			t.Errorf("errors per class = %v, want ods_errors %v", errorClasses, exp.ODSErrors)
		}
		if final != *exp.ODSEvents {
			t.Errorf("events FINAL = %d, want ods_events %d", final, *exp.ODSEvents)
		}

		// Which messages: the raw rows are the non-empty values sent, byte for byte (compared
		// by MD5), in the partition murmur2 of the key gives; each error row has the class
		// ClassifyHit gives its bytes; the WatchIDs FINAL leaves are HitDedupKey's.
		wantRaw, wantErr, wantParts := map[string]int{}, map[string]string{}, map[string]int{}
		goKeys := map[string]bool{}
		for i := range msgs {
			m := &msgs[i]
			class, row := intake.ClassifyHit(m.value)
			if !row {
				continue
			}
			if m.key == nil {
				t.Fatalf("message %d has no key; the CLI keys every hit by ClientID: %v", i, m)
			}
			h := md5hex(m.value)
			wantRaw[h]++
			wantParts[strconv.Itoa(int(schema.PartitionForKey(m.key, 2)))]++
			if class != "" {
				wantErr[h] = class
			} else {
				k, _ := intake.HitDedupKey(m.value)
				goKeys[strconv.FormatUint(k.WatchID, 10)] = true
			}
		}
		gotRaw, gotParts := map[string]int{}, map[string]int{}
		for _, row := range tsv(t, s, "SELECT hex(MD5(raw)), kafka_partition FROM "+p.RawTable()) {
			gotRaw[row[0]]++
			gotParts[row[1]]++
		}
		if !maps.Equal(gotRaw, wantRaw) {
			t.Errorf("raw rows differ from the non-empty values sent: %d distinct MD5s, want %d", len(gotRaw), len(wantRaw))
		}
		if !maps.Equal(gotParts, wantParts) {
			t.Errorf("raw rows per partition = %v, want %v (murmur2 of the ClientID)", gotParts, wantParts)
		}
		r := &reporter{t: t}
		for _, row := range tsv(t, s, "SELECT hex(MD5(raw)), error_class FROM "+p.ErrorTable()) {
			if want, ok := wantErr[row[0]]; !ok || want != row[1] {
				var m *message
				for i := range msgs {
					if md5hex(msgs[i].value) == row[0] {
						m = &msgs[i]
						break
					}
				}
				r.errorf("error row %s: engine %q, ClassifyHit %q: %v", row[0], row[1], want, m)
			}
		}
		var gotKeys []string
		for _, row := range tsv(t, s, "SELECT WatchID FROM "+p.EventTable()+" FINAL") {
			gotKeys = append(gotKeys, row[0])
		}
		slices.Sort(gotKeys)
		if want := slices.Sorted(maps.Keys(goKeys)); !slices.Equal(gotKeys, want) {
			t.Errorf("WatchIDs after FINAL differ from HitDedupKey's: %d, want %d", len(gotKeys), len(want))
		}
		t.Logf("hits through Kafka: total %v", time.Since(start).Round(time.Millisecond))
	})

	t.Run("orders", func(t *testing.T) {
		start := time.Now()
		msgs, _ := snapshotMessages(t, w, runFrom, runDays, heavyGarbage)
		exp := inv.Expect.Orders
		produce(t, "orders", msgs)

		p := intake.OrdersPull{Brokers: brokers, STG: prefix + "o_stg", ODS: prefix + "o_ods"}
		if err := s.Exec("DROP DATABASE IF EXISTS "+p.STG+" SYNC", "DROP DATABASE IF EXISTS "+p.ODS+" SYNC"); err != nil {
			t.Fatal(err)
		}
		ddl, err := p.DDL()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Exec(ddl...); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := s.Exec("DROP TABLE IF EXISTS " + p.STG + ".orders_raw_kafka SYNC"); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}()
		pull, err := p.Pull("fill")
		if err != nil {
			t.Fatal(err)
		}
		count := func(q string) int { return atoi(t, tsv(t, s, q)[0][0]) }
		deadline := time.Now().Add(90 * time.Second)
		polls := 0
		for count("SELECT count() FROM "+p.RawTable()) < exp.StgRows {
			if time.Now().After(deadline) {
				t.Fatalf("after %d pulls: %d of %d raw rows", polls, count("SELECT count() FROM "+p.RawTable()), exp.StgRows)
			}
			if err := s.Exec(pull...); err != nil {
				t.Fatal(err)
			}
			polls++
		}
		parse, err := p.Parse("fill")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Exec(parse...); err != nil {
			t.Fatal(err)
		}
		raw := count("SELECT count() FROM " + p.RawTable())
		final := count("SELECT count() FROM " + p.OrderTable() + " FINAL")
		errorClasses := map[string]int{}
		for _, row := range tsv(t, s, "SELECT error_class, count() FROM "+p.ErrorTable()+" GROUP BY error_class") {
			errorClasses[row[0]] = atoi(t, row[1])
		}
		t.Logf("engine after %d pulls: raw %d, orders FINAL %d, errors %v", polls, raw, final, errorClasses)
		t.Logf("inventory: stg_rows %d, ods_orders %d, ods_errors %v", exp.StgRows, *exp.ODSOrders, exp.ODSErrors)
		if raw != exp.StgRows {
			t.Errorf("raw rows = %d, want stg_rows %d", raw, exp.StgRows)
		}
		if final != *exp.ODSOrders {
			t.Errorf("orders FINAL = %d, want ods_orders %d", final, *exp.ODSOrders)
		}
		if !maps.Equal(errorClasses, nonZero(exp.ODSErrors)) {
			t.Errorf("errors per class = %v, want ods_errors %v", errorClasses, exp.ODSErrors)
		}
		// FINAL keeps each order's latest snapshot: its snapshot_date is the last day the
		// order was in a snapshot.
		last := map[string]int{}
		for i := range msgs {
			if k := string(msgs[i].key); msgs[i].intent == "clean" && msgs[i].unit >= last[k] {
				last[k] = msgs[i].unit
			}
		}
		bad := 0
		for _, row := range tsv(t, s, "SELECT order_id, toString(snapshot_date) FROM "+p.OrderTable()+" FINAL") {
			d, ok := last[row[0]]
			if want := world.DayDate(d).String(); (!ok || row[1] != want) && bad < 10 {
				bad++
				t.Errorf("order %q: FINAL kept snapshot %s, want %s (a clean row of it sent: %v)", row[0], row[1], want, ok)
			}
		}
		t.Logf("orders through Kafka: total %v", time.Since(start).Round(time.Millisecond))
	})
}
