package intake

import (
	"context"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/schema"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaBatch is what a test produced: the records and, per non-empty value, what the stand
// must end up holding.
type kafkaBatch struct {
	values     [][]byte // every value sent, nil for a tombstone
	rows       int      // messages that must become raw rows (non-empty values)
	perClass   map[string]int
	accepted   int
	distinct   int      // distinct dedup keys among accepted rows (what FINAL leaves)
	keys       []string // those keys as the engine prints them, sorted
	partitions map[int32]int
}

// hitBatch builds the messages of the Kafka tier: clean hits, a replay of some of them
// (byte-identical, as at-least-once delivery repeats them), the hand-made corpus (malformed
// messages of every class, and accepted oddities whose ids collapse in ODS: 1, "1", true and
// 1.5 are all WatchID 1), an empty value and a tombstone.
func hitBatch(t *testing.T) kafkaBatch {
	var b kafkaBatch
	clean := generatedHits(300, 42)
	b.values = append(b.values, clean...)
	b.values = append(b.values, clean[:40]...) // redelivery
	for _, s := range hitSamples(t) {          // every class, and accepted oddities ("123", 1.5, 2024-02-30…)
		if s.want != vanish {
			b.values = append(b.values, s.raw)
		}
	}
	b.values = append(b.values, []byte{}, nil) // empty value, tombstone
	b.perClass = map[string]int{}
	keys := map[string]bool{}
	for _, v := range b.values {
		class, row := ClassifyHit(v)
		if !row {
			continue
		}
		b.rows++
		if class != "" {
			b.perClass[class]++
			continue
		}
		b.accepted++
		k, _ := HitDedupKey(v)
		keys[strconv.FormatUint(k.WatchID, 10)] = true
	}
	b.setKeys(keys)
	return b
}

func (b *kafkaBatch) setKeys(keys map[string]bool) {
	b.distinct = len(keys)
	b.keys = slices.Sorted(maps.Keys(keys))
}

// produce sends the batch to topic in order, keyed by index, and records the partition of
// every non-empty value.
func produce(t *testing.T, addrs []string, topic string, b *kafkaBatch) {
	t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(addrs...),
		kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.ProducerLinger(0),
	)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	recs := make([]*kgo.Record, len(b.values))
	for i, v := range b.values {
		recs[i] = &kgo.Record{Key: []byte(strconv.Itoa(i)), Value: v}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	b.partitions = map[int32]int{}
	for _, r := range recs {
		if len(r.Value) > 0 {
			b.partitions[r.Partition]++
		}
	}
}

func queryMap(t *testing.T, q func(string, string) ([]byte, error), sql string) map[string]int {
	t.Helper()
	out, err := q(sql, "TSV")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		k, v, _ := strings.Cut(line, "\t")
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s: bad row %q", sql, line)
		}
		m[k] = n
	}
	return m
}

// TestEngineKafkaPipeline is the Kafka engine tier: an in-process kfake broker, a real
// ClickHouse Kafka table (RawBLOB, librdkafka) with the stand's materialized views, and the
// counts the generator's classifier predicts: raw rows, rows per partition, errors per
// class, events, and events after FINAL.
func TestEngineKafkaPipeline(t *testing.T) {
	t.Parallel() // databases of its own names (see engineParallel)
	s := openEngine(t)
	start := time.Now()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "hits"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := hitBatch(t)
	produce(t, c.ListenAddrs(), "hits", &b)
	t.Logf("produced %d messages (%d rows expected, %d accepted, %d distinct, errors %v, partitions %v) in %v",
		len(b.values), b.rows, b.accepted, b.distinct, b.perClass, b.partitions, time.Since(start))

	p := HitsPipeline{Brokers: strings.Join(c.ListenAddrs(), ","), STG: "kt_stg", ODS: "kt_ods", Flush: 200 * time.Millisecond}
	// The engine session lives as long as the test binary: start from empty databases, so a
	// second run in the same process (-count) does not find the first one's rows.
	if err := s.Exec("DROP DATABASE IF EXISTS kt_stg SYNC", "DROP DATABASE IF EXISTS kt_ods SYNC"); err != nil {
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
		// Detach the consumer before the broker goes away.
		if err := s.Exec("DROP TABLE IF EXISTS kt_stg.hits_raw_mv SYNC", "DROP TABLE IF EXISTS kt_stg.hits_raw_kafka SYNC"); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	consumed := time.Now()
	got, err := s.WaitCount(ctx, "SELECT count() FROM "+p.RawTable(), uint64(b.rows), 100*time.Millisecond)
	if err != nil {
		t.Fatalf("raw rows: %v", err)
	}
	t.Logf("ClickHouse consumed %d rows in %v (total %v)", got, time.Since(consumed), time.Since(start))

	// The parse views run inside the same insert as the raw rows, so errors and events are
	// complete once the raw rows are. Errors (MergeTree) keep every row; events
	// (ReplacingMergeTree) collapse redeliveries already on insert (optimize_on_insert) and on
	// merges, so only count() FINAL is a stable number: the distinct keys.
	errorsWant := 0
	for _, n := range b.perClass {
		errorsWant += n
	}
	if got, err := s.WaitCount(ctx, "SELECT count() FROM "+p.ErrorTable(), uint64(errorsWant), 50*time.Millisecond); err != nil {
		t.Fatalf("error rows = %d: %v", got, err)
	}
	gotClasses := queryMap(t, s.Query, "SELECT error_class, count() FROM "+p.ErrorTable()+" GROUP BY error_class")
	if !maps.Equal(gotClasses, b.perClass) {
		t.Errorf("errors per class = %v, want %v", gotClasses, b.perClass)
	}
	if got, err := s.WaitCount(ctx, "SELECT count() FROM "+p.EventTable()+" FINAL", uint64(b.distinct), 50*time.Millisecond); err != nil {
		t.Errorf("events FINAL = %d: %v", got, err)
	}
	// FINAL collapses equal WatchIDs across EventDate partitions too (the corpus has the same
	// WatchID on several dates), so what it leaves is one row per distinct WatchID.
	out, err := s.Query("SELECT WatchID FROM "+p.EventTable()+" FINAL", "TSV")
	if err != nil {
		t.Fatal(err)
	}
	gotKeys := tsvColumn(out)
	slices.Sort(gotKeys)
	if !slices.Equal(gotKeys, b.keys) {
		t.Errorf("event keys after FINAL differ from HitDedupKey's: %d rows, want %d", len(gotKeys), len(b.keys))
	}
	events := queryMap(t, s.Query, "SELECT 'events', count() FROM "+p.EventTable())
	if n := events["events"]; n < b.distinct || n > b.accepted {
		t.Errorf("events without FINAL = %d, want between %d and %d", n, b.distinct, b.accepted)
	}
	parts := queryMap(t, s.Query, "SELECT kafka_partition, count() FROM "+p.RawTable()+" GROUP BY kafka_partition")
	for part, n := range b.partitions {
		if parts[strconv.Itoa(int(part))] != n {
			t.Errorf("partition %d: %d raw rows, want %d", part, parts[strconv.Itoa(int(part))], n)
		}
	}
	// RawBLOB keeps the bytes: the raw table holds exactly the non-empty values sent.
	out, err = s.Query("SELECT hex(raw) FROM "+p.RawTable()+" ORDER BY hex(raw)", "TSV")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, v := range b.values {
		if len(v) > 0 {
			want = append(want, strings.ToUpper(hex.EncodeToString(v)))
		}
	}
	slices.Sort(want)
	if gotRaw := strings.Fields(string(out)); !slices.Equal(gotRaw, want) {
		t.Errorf("raw rows differ from the values sent (%d rows, %d values)", len(gotRaw), len(want))
	}
	// The DDL is IF NOT EXISTS throughout, like the stand's: applying it again changes nothing.
	if err := s.Exec(ddl...); err != nil {
		t.Errorf("DDL applied twice: %v", err)
	}
	meta := queryMap(t, s.Query, "SELECT 'topic:'||kafka_topic, count() FROM "+p.RawTable()+" GROUP BY kafka_topic"+
		" UNION ALL SELECT 'null_ts', countIf(kafka_timestamp IS NULL) FROM "+p.RawTable())
	t.Logf("delivery metadata: %v; total %v", meta, time.Since(start))
	if meta["topic:hits"] != b.rows {
		t.Errorf("kafka_topic: %v, want %d rows of hits", meta, b.rows)
	}
}

// orderBatch: 120 clean orders in two snapshots each (FINAL keeps the later one), a replay of
// 20 messages, the hand-made order corpus (every class, and accepted variants of one order
// whose created_at days differ, so they sit in different partitions and FINAL still keeps one),
// an empty value and a tombstone.
func orderBatch(t *testing.T) kafkaBatch {
	var b kafkaBatch
	for snap := range 2 {
		for i := range 120 {
			day := schema.Date(20605 + i%20)
			o := schema.Order{
				OrderID: fmt.Sprintf("2026%04d-%04d", 601+i%20, i), UserID: uint64(1000 + i), Status: schema.StatusCreated,
				CreatedAt: schema.Millis(int64(day)*86400000 + int64(i)*1000 + 317), ItemsTotal: 129000, Total: 129000,
				Items:        []schema.OrderItem{{SKU: "POSU-0003", Qty: 1, Price: 129000}},
				SnapshotDate: day + schema.Date(snap),
			}
			o.UpdatedAt = o.CreatedAt + schema.Millis(snap*3600000)
			if snap == 1 {
				o.Status = schema.StatusPaid
			}
			raw, err := schema.AppendOrder(nil, &o)
			if err != nil {
				t.Fatal(err)
			}
			b.values = append(b.values, raw)
		}
	}
	b.values = append(b.values, b.values[:20]...)
	for _, s := range orderSamples(t) { // every class, and accepted oddities of order 20260601-0042
		if s.want != vanish {
			b.values = append(b.values, s.raw)
		}
	}
	b.values = append(b.values, []byte{}, nil)
	b.perClass = map[string]int{}
	keys := map[string]bool{}
	for _, v := range b.values {
		class, row := ClassifyOrder(v)
		if !row {
			continue
		}
		b.rows++
		if class != "" {
			b.perClass[class]++
			continue
		}
		b.accepted++
		k, _ := OrderDedupKey(v)
		keys[k] = true
	}
	b.setKeys(keys)
	return b
}

// TestEngineKafkaOrdersPull is the pull path of orders: direct SELECTs from a Kafka table
// without views, committing offsets, until everything sent is in STG; a further pull then
// returns nothing; the parse step splits the run into orders and errors.
func TestEngineKafkaOrdersPull(t *testing.T) {
	t.Parallel() // databases of its own names (see engineParallel)
	s := openEngine(t)
	start := time.Now()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := orderBatch(t)
	produce(t, c.ListenAddrs(), "orders", &b)

	p := OrdersPull{Brokers: strings.Join(c.ListenAddrs(), ","), STG: "ko_stg", ODS: "ko_ods"}
	// The engine session lives as long as the test binary: start from empty databases, so a
	// second run in the same process (-count) does not find the first one's rows.
	if err := s.Exec("DROP DATABASE IF EXISTS ko_stg SYNC", "DROP DATABASE IF EXISTS ko_ods SYNC"); err != nil {
		t.Fatal(err)
	}
	ddl, err := p.DDL()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(ddl...); err != nil {
		t.Fatal(err)
	}
	defer s.Exec("DROP TABLE IF EXISTS ko_stg.orders_raw_kafka SYNC")

	count := func(q string) int {
		out, err := s.Query(q, "TSV")
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
		return n
	}
	pull, err := p.Pull("run-1")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	polls := 0
	for count("SELECT count() FROM "+p.RawTable()) < b.rows {
		if time.Now().After(deadline) {
			t.Fatalf("after %d pulls: %d of %d raw rows", polls, count("SELECT count() FROM "+p.RawTable()), b.rows)
		}
		if err := s.Exec(pull...); err != nil {
			t.Fatal(err)
		}
		polls++
	}
	t.Logf("%d rows in STG after %d direct SELECTs, %v", b.rows, polls, time.Since(start))
	again, err := p.Pull("run-2")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := s.Exec(again...); err != nil {
		t.Fatal(err)
	}
	t.Logf("second pull took %v", time.Since(t0))
	if n := count("SELECT count() FROM " + p.RawTable()); n != b.rows {
		t.Errorf("after a second pull: %d raw rows, want %d (offsets not committed?)", n, b.rows)
	}
	parse, err := p.Parse("run-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(parse...); err != nil {
		t.Fatal(err)
	}
	gotClasses := queryMap(t, s.Query, "SELECT error_class, count() FROM "+p.ErrorTable()+" GROUP BY error_class")
	if !maps.Equal(gotClasses, b.perClass) {
		t.Errorf("order errors per class = %v, want %v", gotClasses, b.perClass)
	}
	if n := count("SELECT count() FROM " + p.OrderTable() + " FINAL"); n != b.distinct {
		t.Errorf("orders FINAL = %d, want %d", n, b.distinct)
	}
	out, err := s.Query("SELECT order_id FROM "+p.OrderTable()+" FINAL", "TSV")
	if err != nil {
		t.Fatal(err)
	}
	gotKeys := tsvColumn(out)
	slices.Sort(gotKeys)
	if !slices.Equal(gotKeys, b.keys) {
		t.Errorf("order_ids after FINAL differ from OrderDedupKey's: %d rows, want %d", len(gotKeys), len(b.keys))
	}
	if n := count("SELECT count() FROM " + p.OrderTable() + " FINAL WHERE status = 'paid' AND user_id BETWEEN 1000 AND 1119"); n != 120 {
		t.Errorf("clean orders FINAL in their later (paid) snapshot = %d, want 120", n)
	}
	t.Logf("orders: %d accepted, %d distinct, errors %v; total %v", b.accepted, b.distinct, b.perClass, time.Since(start))
}

// tsvColumn splits a one-column TSV result into its values. Only the final newline is cut: a
// value may be empty (the corpus has an order whose order_id is ""), and trimming all space
// dropped it whenever the unordered result put it first, a test failure one run in several.
func tsvColumn(out []byte) []string {
	if len(out) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}
