package sink_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/broker"
	. "github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/schema"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestKafkaRoundTrip produces 10 000 keyed messages (with tombstones and
// empty values) to the 2-partition hits topic and reads them back: each
// message arrives exactly once, byte-equal, in the partition PartitionForKey
// chooses, in send order within its partition, stamped with the real send
// time (not Due). The file writer, fed the same messages, writes exactly
// value+"\n" for each and reports the same per-partition counts.
func TestKafkaRoundTrip(t *testing.T) {
	_, addrs := newCluster(t)
	k := newKafka(t, addrs)
	msgs := testMessages("hits", 10_000)
	due := time.Now().Add(-time.Second) // the pacer wanted these out a second ago
	for i := range msgs {
		msgs[i].Due = due
	}

	start := time.Now()
	sendAll(t, k, msgs)
	end := time.Now()

	st := k.Stats()
	hits := st.Topics["hits"]
	var wantBytes int64
	wantParts := map[int32]int64{}
	for _, m := range msgs {
		wantBytes += int64(len(m.Value))
		wantParts[schema.PartitionForKey(m.Key, 2)]++
	}
	if hits.Sent != 10_000 || hits.Acked != 10_000 || hits.Failed != 0 || hits.Bytes != wantBytes {
		t.Errorf("hits stats: sent %d acked %d failed %d bytes %d, want 10000 10000 0 %d", hits.Sent, hits.Acked, hits.Failed, hits.Bytes, wantBytes)
	}
	if !maps.Equal(hits.Partitions, wantParts) {
		t.Errorf("hits partitions %v, want %v (murmur2 placement)", hits.Partitions, wantParts)
	}
	if len(wantParts) != 2 {
		t.Errorf("keys used %d partitions, want both", len(wantParts))
	}
	// Latency runs from Due, a second before sending started.
	if n := st.Latency.Count(); n != 10_000 {
		t.Errorf("latency count %d, want 10000", n)
	}
	if p50, mx := st.Latency.Quantile(0.5), st.Latency.Max(); p50 < time.Second-20*time.Millisecond || mx > end.Sub(due) {
		t.Errorf("latency p50 %v max %v, want p50 >= ~1s (measured from Due) and max <= %v", p50, mx, end.Sub(due))
	}

	byKey := make(map[string]int, len(msgs))
	for i, m := range msgs {
		byKey[string(m.Key)] = i
	}
	recs := consumeAll(t, addrs, "hits")
	if len(recs) != len(msgs) {
		t.Fatalf("consumed %d records, want %d", len(recs), len(msgs))
	}
	seen := make([]bool, len(msgs))
	lastIdx := map[int32]int{0: -1, 1: -1}
	for _, r := range recs {
		i, ok := byKey[string(r.Key)]
		if !ok {
			t.Fatalf("record p%d@%d has unknown key %q", r.Partition, r.Offset, r.Key)
		}
		if seen[i] {
			t.Fatalf("message %d consumed twice", i)
		}
		seen[i] = true
		m := msgs[i]
		if !bytes.Equal(r.Value, m.Value) || (r.Value == nil) != (m.Value == nil) {
			t.Errorf("message %d: value %q (nil %v), want %q (nil %v)", i, r.Value, r.Value == nil, m.Value, m.Value == nil)
		}
		if want := schema.PartitionForKey(m.Key, 2); r.Partition != want {
			t.Errorf("message %d: partition %d, want %d", i, r.Partition, want)
		}
		if i < lastIdx[r.Partition] {
			t.Errorf("message %d stored after message %d in partition %d: reordered", i, lastIdx[r.Partition], r.Partition)
		}
		lastIdx[r.Partition] = i
		// Kafka timestamps have millisecond precision.
		if r.Timestamp.Before(start.Truncate(time.Millisecond)) || r.Timestamp.After(end) {
			t.Errorf("message %d: timestamp %v outside the send window [%v, %v]", i, r.Timestamp, start, end)
		}
	}

	// The same messages through the file writer.
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{BufferSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	sendAll(t, w, msgs)
	var want bytes.Buffer
	for _, m := range msgs {
		want.Write(m.Value)
		want.WriteByte('\n')
	}
	if !bytes.Equal(buf.Bytes(), want.Bytes()) {
		t.Errorf("file output (%d bytes) differs from value+newline concatenation (%d bytes)", buf.Len(), want.Len())
	}
	fst := w.Stats().Topics["hits"]
	if fst.Acked != hits.Acked || fst.Bytes != hits.Bytes || !maps.Equal(fst.Partitions, hits.Partitions) {
		t.Errorf("file stats acked %d bytes %d partitions %v, Kafka reported %d %d %v", fst.Acked, fst.Bytes, fst.Partitions, hits.Acked, hits.Bytes, hits.Partitions)
	}
}

// TestKafkaCompressionCodecs produces with each codec, checks on the broker
// side that batches arrive compressed with it, and reads the values back.
func TestKafkaCompressionCodecs(t *testing.T) {
	codecs := map[Compression]int8{
		CompressionNone: 0, CompressionGzip: 1, CompressionSnappy: 2, CompressionLZ4: 3, CompressionZstd: 4,
	}
	for comp, attr := range codecs {
		t.Run(string(comp), func(t *testing.T) {
			c, addrs := newCluster(t)
			var mu sync.Mutex
			seen := map[int8]int{}
			c.ControlKey(int16(kmsg.Produce), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				for _, rt := range kreq.(*kmsg.ProduceRequest).Topics {
					for _, rp := range rt.Partitions {
						var b kmsg.RecordBatch
						if err := b.ReadFrom(rp.Records); err == nil {
							got := int8(b.Attributes & 0x07)
							if got == 0 && attr != 0 && !shrinks(attr, b.Records) {
								got = -1 // uncompressed as the codec would not shrink it, as franz-go sends it
							}
							mu.Lock()
							seen[got]++
							mu.Unlock()
						}
					}
				}
				return nil, nil, false
			})
			k := newKafka(t, addrs, BatchCompression(comp))
			msgs := testMessages("hits", 2000)
			sendAll(t, k, msgs)
			mu.Lock()
			got := maps.Clone(seen)
			mu.Unlock()
			if got[attr] == 0 || len(got) != 1+min(got[-1], 1) {
				t.Errorf("batch codecs seen %v (attribute: batches; -1: uncompressed, the codec would not shrink it), want only %d", got, attr)
			}
			recs := consumeAll(t, addrs, "hits")
			if len(recs) != len(msgs) {
				t.Fatalf("consumed %d, want %d", len(recs), len(msgs))
			}
			want := map[string][]byte{}
			for _, m := range msgs {
				want[string(m.Key)] = m.Value
			}
			for _, r := range recs {
				if !bytes.Equal(r.Value, want[string(r.Key)]) {
					t.Fatalf("key %s: value %q, want %q", r.Key, r.Value, want[string(r.Key)])
				}
			}
		})
	}
}

// shrinks says whether the codec of batch attribute attr (1 gzip, 2 snappy, 3 lz4, 4 zstd)
// makes records (a batch's records section) shorter: franz-go sends a batch uncompressed
// when it would not (seen under the race detector, a batch of a few records through snappy).
func shrinks(attr int8, records []byte) bool {
	codecs := map[int8]kgo.CompressionCodec{1: kgo.GzipCompression(), 2: kgo.SnappyCompression(), 3: kgo.Lz4Compression(), 4: kgo.ZstdCompression()}
	codec, ok := codecs[attr]
	if !ok {
		return false
	}
	c, err := kgo.DefaultCompressor(codec)
	if err != nil || c == nil {
		return false
	}
	out, _ := c.Compress(new(bytes.Buffer), records)
	return out != nil && len(out) < len(records)
}

// TestKafkaNonRetriableFailure lets the first produce requests through and
// then answers TOPIC_AUTHORIZATION_FAILED: Flush reports a DeliveryError
// naming the failed tags, failed > 0, acked equals what the topic holds, and
// Send refuses further messages.
func TestKafkaNonRetriableFailure(t *testing.T) {
	c, addrs := newCluster(t)
	failProduce(c, 3, kerr.TopicAuthorizationFailed.Code)
	k := newKafka(t, addrs, Linger(0), MaxBufferedRecords(100))
	msgs := testMessages("hits", 5000)

	ctx := context.Background()
	var sendErr error
	sent := 0
	for _, m := range msgs {
		if sendErr = k.Send(ctx, m); sendErr != nil {
			break
		}
		sent++
	}
	fctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	err := k.Flush(fctx)
	var de *DeliveryError
	if !errors.As(err, &de) {
		t.Fatalf("Flush = %v, want a *DeliveryError", err)
	}
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Errorf("Flush = %v, want it to wrap TOPIC_AUTHORIZATION_FAILED", err)
	}
	if sendErr == nil {
		t.Errorf("all %d Sends succeeded after deliveries failed, want Send to return the sticky error", sent)
	} else if !errors.As(sendErr, &de) {
		t.Errorf("Send = %v, want the *DeliveryError", sendErr)
	}
	if err := k.Send(ctx, msgs[0]); !errors.As(err, &de) {
		t.Errorf("Send after failure = %v, want the *DeliveryError", err)
	}

	hits := k.Stats().Topics["hits"]
	recs := consumeAll(t, addrs, "hits")
	if hits.Failed == 0 || hits.Acked != int64(len(recs)) || hits.Sent != int64(sent) || hits.Acked+hits.Failed != hits.Sent {
		t.Errorf("stats sent %d acked %d failed %d; topic holds %d, Sends accepted %d: want failed > 0, acked == held, acked+failed == sent",
			hits.Sent, hits.Acked, hits.Failed, len(recs), sent)
	}
	if de.Failed != hits.Failed || de.Topic != "hits" || len(de.Tags["hits"]) == 0 {
		t.Errorf("DeliveryError failed %d topic %q tags %v, want failed %d, topic hits, some tags", de.Failed, de.Topic, de.Tags, hits.Failed)
	}
	if !equalU32(de.Tags["hits"], hits.FailedTags) {
		t.Errorf("DeliveryError tags %v, Stats failed tags %v: want equal", de.Tags["hits"], hits.FailedTags)
	}
	// Failed tags are exactly the tags of the messages that did not arrive.
	arrived := map[string]bool{}
	for _, r := range recs {
		arrived[string(r.Key)] = true
	}
	missing := map[uint32]bool{}
	for _, m := range msgs[:sent] {
		if !arrived[string(m.Key)] {
			missing[m.Tag] = true
		}
	}
	if len(missing) != len(hits.FailedTags) {
		t.Errorf("failed tags %v, want the tags of undelivered messages %v", hits.FailedTags, missing)
	}
	for _, tag := range hits.FailedTags {
		if !missing[tag] {
			t.Errorf("tag %d reported failed but all its messages arrived", tag)
		}
	}
}

func equalU32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestKafkaRetriableFailureTimesOut answers every produce request with the
// retriable NOT_ENOUGH_REPLICAS: the producer retries, then fails the records
// at the delivery timeout (or the retry limit) instead of hanging.
func TestKafkaRetriableFailureTimesOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Opt
		is   error
	}{
		{"delivery timeout", DeliveryTimeout(time.Second), kgo.ErrRecordTimeout},
		// With the retry limit hit, kgo fails records with the broker's
		// last error.
		{"retry limit", Retries(1), kerr.NotEnoughReplicas},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, addrs := newCluster(t)
			seen := failProduce(c, 0, kerr.NotEnoughReplicas.Code)
			k := newKafka(t, addrs, tc.opt)
			ctx := context.Background()
			msgs := testMessages("orders", 300)
			for _, m := range msgs {
				if err := k.Send(ctx, m); err != nil {
					t.Fatalf("Send: %v", err)
				}
			}
			fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			err := k.Flush(fctx)
			if fctx.Err() != nil {
				t.Fatalf("Flush hung until its deadline: %v", err)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("Flush = %v, want %v", err, tc.is)
			}
			if seen.Load() < 1 {
				t.Errorf("%d produce requests, want at least one", seen.Load())
			}
			o := k.Stats().Topics["orders"]
			if o.Sent != 300 || o.Failed != 300 || o.Acked != 0 {
				t.Errorf("orders sent %d acked %d failed %d, want 300 0 300", o.Sent, o.Acked, o.Failed)
			}
			if n := len(consumeAll(t, addrs, "orders")); n != 0 {
				t.Errorf("topic holds %d records, want 0", n)
			}
		})
	}
}

// TestKafkaCancelMidSend cancels the sender's context while Send waits for
// buffer space in the middle of a large send: Send returns the context's
// error, nothing already queued is lost, and after Flush every accepted
// message is acknowledged and acked equals what the topic holds.
func TestKafkaCancelMidSend(t *testing.T) {
	_, addrs := newCluster(t)
	k := newKafka(t, addrs, MaxBufferedRecords(200))
	msgs := testMessages("hits", 200_000)

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for k.Stats().Topics["hits"].Acked < 5000 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	var sendErr error
	for _, m := range msgs {
		if sendErr = k.Send(ctx, m); sendErr != nil {
			break
		}
	}
	cancel()
	if !errors.Is(sendErr, context.Canceled) {
		t.Fatalf("Send = %v, want context.Canceled", sendErr)
	}
	fctx, fcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer fcancel()
	if err := k.Flush(fctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	hits := k.Stats().Topics["hits"]
	held := len(consumeAll(t, addrs, "hits"))
	if hits.Sent >= int64(len(msgs)) || hits.Sent < 5000 {
		t.Errorf("sent %d, want cancellation in the middle of %d", hits.Sent, len(msgs))
	}
	if hits.Acked != hits.Sent || hits.Failed != 0 || hits.Acked != int64(held) {
		t.Errorf("sent %d acked %d failed %d, topic holds %d: want acked == sent == held", hits.Sent, hits.Acked, hits.Failed, held)
	}
}

// TestKafkaFlushTimeoutThenClose: the broker stops accepting (retriable
// errors) after a few requests; Flush with a short timeout returns the
// deadline error and how much is unacknowledged, Close fails the rest, and
// acked then equals what the topic holds.
func TestKafkaFlushTimeoutThenClose(t *testing.T) {
	c, addrs := newCluster(t)
	failProduce(c, 1, kerr.NotEnoughReplicas.Code)
	k := newKafka(t, addrs, Linger(0))
	msgs := testMessages("hits", 3000)
	ctx := context.Background()
	sendAll(t, k, msgs[:1]) // the one request that succeeds
	for _, m := range msgs[1:] {
		if err := k.Send(ctx, m); err != nil {
			t.Fatalf("Send: %v", err)
		}
	}
	fctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	err := k.Flush(fctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "unacknowledged") {
		t.Fatalf("Flush = %v, want a deadline error counting unacknowledged messages", err)
	}
	k.Close()
	hits := k.Stats().Topics["hits"]
	held := len(consumeAll(t, addrs, "hits"))
	if hits.Acked != int64(held) || hits.Acked+hits.Failed != hits.Sent || hits.Failed == 0 {
		t.Errorf("sent %d acked %d failed %d, topic holds %d: want acked == held, acked+failed == sent, failed > 0", hits.Sent, hits.Acked, hits.Failed, held)
	}
	if err := k.Send(ctx, msgs[0]); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close = %v, want ErrClosed", err)
	}
}

// closedPort returns an address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestCheckConnectUnreachable: a closed port (asked again until then) and a
// listener that accepts but never answers fail at the connect timeout; both
// errors name the brokers.
func TestCheckConnectUnreachable(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // accept, never answer
		}
	}()

	for _, tc := range []struct {
		name, addr string
	}{
		{"closed port", closedPort(t)},
		{"silent listener", silent.Addr().String()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The check gives up by its own connect timeout (1 s), not by the caller's
			// context (a minute, the bound of this wait): its error is a *ConnectError that
			// was not interrupted.
			k := newKafka(t, []string{tc.addr}, ConnectTimeout(time.Second))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := k.CheckConnect(ctx)
			if err == nil {
				t.Fatal("CheckConnect succeeded, want an error")
			}
			if ce := (*ConnectError)(nil); ctx.Err() != nil || errors.As(err, &ce) && ce.Interrupted {
				t.Errorf("CheckConnect ended by the caller's minute, not by its connect timeout: %v", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.addr) || !strings.Contains(msg, "cannot reach Kafka") {
				t.Errorf("error %q does not say which brokers are unreachable (%s)", msg, tc.addr)
			}
		})
	}
}

func TestCheckConnectOK(t *testing.T) {
	_, addrs := newCluster(t)
	k := newKafka(t, addrs, ConnectTimeout(2*time.Second))
	if err := k.CheckConnect(context.Background()); err != nil {
		t.Fatalf("CheckConnect: %v", err)
	}
}

// TestEnsureTopics: missing topics are a *MissingTopicsError that names them;
// with create they are created with the wanted partitions; a topic with
// another partition count is a warning, not an error.
func TestEnsureTopics(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "hits"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addrs := c.ListenAddrs()
	k := newKafka(t, addrs, ConnectTimeout(5*time.Second))
	ctx := context.Background()
	want := DefaultTopics()
	want["events-5"] = 5

	warns, err := k.EnsureTopics(ctx, false, want)
	var mt *MissingTopicsError
	if !errors.As(err, &mt) || mt.List() != "events-5 (5 partitions), orders (1 partitions)" || mt.Brokers != strings.Join(addrs, ",") ||
		!strings.HasSuffix(err.Error(), ": create them, or have them created") || strings.Contains(err.Error(), "--") {
		t.Fatalf("EnsureTopics(create=false) = %v, want a *MissingTopicsError naming orders and events-5, and no flag", err)
	}
	if len(warns) != 1 || warns[0] != (PartitionsWarning{Topic: "hits", Has: 3, Want: 2}) ||
		!strings.HasPrefix(warns[0].String(), "topic hits has 3 partitions, want 2") || strings.Contains(warns[0].String(), "--") {
		t.Errorf("warnings %v, want one about hits having 3 partitions, naming no flag", warns)
	}

	warns, err = k.EnsureTopics(ctx, true, want)
	if err != nil {
		t.Fatalf("EnsureTopics(create=true): %v", err)
	}
	if len(warns) != 1 || warns[0].Topic != "hits" {
		t.Errorf("warnings %v, want the hits partition mismatch only", warns)
	}
	// A fresh client: kadm answers from a metadata cache up to 5 s old.
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	details, err := kadm.NewClient(cl).ListTopics(ctx, "orders", "events-5", "hits")
	if err != nil {
		t.Fatal(err)
	}
	for topic, n := range map[string]int{"orders": 1, "events-5": 5, "hits": 3} {
		d := details[topic]
		if d.Err != nil || len(d.Partitions) != n {
			t.Errorf("topic %s: err %v, %d partitions, want %d", topic, d.Err, len(d.Partitions), n)
		}
		for _, p := range d.Partitions {
			if topic != "hits" && len(p.Replicas) != 1 {
				t.Errorf("topic %s partition %d: %d replicas, want replication factor 1", topic, p.Partition, len(p.Replicas))
			}
		}
	}
	// Now everything exists: no error, the mismatch still reported.
	if warns, err = k.EnsureTopics(ctx, false, want); err != nil || len(warns) != 1 {
		t.Errorf("EnsureTopics after creation = %v, %v; want one warning, no error", warns, err)
	}
	// And the new topic takes messages, placed by murmur2 over 5 partitions.
	msgs := testMessages("events-5", 500)
	sendAll(t, k, msgs)
	for _, r := range consumeAll(t, addrs, "events-5") {
		if want := schema.PartitionForKey(r.Key, 5); r.Partition != want {
			t.Fatalf("key %s in partition %d, want %d", r.Key, r.Partition, want)
		}
	}
}

func TestEnsureTopicsUnreachable(t *testing.T) {
	addr := closedPort(t)
	k := newKafka(t, []string{addr}, ConnectTimeout(time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // the bound of this wait
	defer cancel()
	_, err := k.EnsureTopics(ctx, true, DefaultTopics())
	if err == nil || !strings.Contains(err.Error(), addr) {
		t.Errorf("EnsureTopics = %v, want an error naming %s", err, addr)
	}
	if ctx.Err() != nil {
		t.Errorf("EnsureTopics against a closed port ended by the caller's minute, not by its connect timeout: %v", err)
	}
}

// TestConsumeBounds: an empty topic returns nothing at once, a missing topic
// is an error, a cancelled context ends the read, and records produced after
// Consume started are not waited for.
func TestConsumeBounds(t *testing.T) {
	_, addrs := newCluster(t)
	ctx := context.Background()

	bounded, unbound := context.WithTimeout(ctx, time.Minute) // the bound of this wait
	defer unbound()
	recs, err := broker.Consume(bounded, addrs, "orders")
	if err != nil || len(recs) != 0 {
		t.Errorf("broker.Consume(empty) = %d records, %v; want none, nil (an empty topic is read at once)", len(recs), err)
	}
	if _, err := broker.Consume(ctx, addrs, "nope"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("broker.Consume(missing) = %v, want 'does not exist'", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := broker.Consume(cctx, addrs, "orders"); !errors.Is(err, context.Canceled) {
		t.Errorf("broker.Consume(cancelled) = %v, want context.Canceled", err)
	}

	k := newKafka(t, addrs)
	first := testMessages("hits", 300)
	sendAll(t, k, first)
	more := testMessages("hits", 600)[300:]
	var n int
	err = broker.ConsumeFunc(ctx, addrs, "hits", func(r broker.Record) error {
		if n == 0 {
			sendAll(t, k, more) // lands after the end offsets Consume took
		}
		n++
		return nil
	})
	if err != nil || n != 300 {
		t.Errorf("ConsumeFunc read %d records (%v), want the 300 present at start", n, err)
	}
	if got := len(consumeAll(t, addrs, "hits")); got != 600 {
		t.Errorf("second Consume read %d, want 600", got)
	}
	stop := errors.New("stop")
	if err := broker.ConsumeFunc(ctx, addrs, "hits", func(broker.Record) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("ConsumeFunc = %v, want fn's error", err)
	}
}

// TestCheckConnectBadSASL is part of issue 11 item 10: wrong SASL credentials read "cannot
// reach Kafka", sending the user after the network. The error must say the brokers refused
// the credentials, name the mechanism and user, and never contain the password.
func TestCheckConnectBadSASL(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser("PLAIN", "admin", "right"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k, err := NewKafka(SeedBrokers(c.ListenAddrs()...), SASL(SASLPlain, "admin", "wrong-secret"), ConnectTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	err = k.CheckConnect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "refused the SASL credentials") || !strings.Contains(err.Error(), "admin") ||
		strings.Contains(err.Error(), "wrong-secret") || strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("CheckConnect with a wrong password = %v; want the credentials refused, naming user admin, without the password", err)
	}
}

// TestDial: Dial connects, checks the topics (creating them only when asked) and reports bad
// options as a ConfigError, closing the client on every failure.
func TestDial(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "hits"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addrs := c.ListenAddrs()
	ctx := context.Background()
	want := map[string]int32{"hits": 2, "orders": 1}
	if _, err := Dial(ctx, false, want, nil, SeedBrokers(addrs...)); err == nil || !strings.Contains(err.Error(), "orders") {
		t.Errorf("Dial without orders, no create = %v, want an error naming orders", err)
	}
	var warned []PartitionsWarning
	k, err := Dial(ctx, true, want, func(w PartitionsWarning) { warned = append(warned, w) }, SeedBrokers(addrs...))
	if err != nil {
		t.Fatalf("Dial with create: %v", err)
	}
	k.Close()
	if _, err := Dial(ctx, false, map[string]int32{"hits": 3}, func(w PartitionsWarning) { warned = append(warned, w) }, SeedBrokers(addrs...)); err != nil {
		t.Errorf("Dial with another partition count = %v, want a warning only", err)
	}
	if len(warned) != 1 || warned[0].Topic != "hits" {
		t.Errorf("warnings %v, want one about hits' partition count", warned)
	}
	var ce *ConfigError
	if _, err := Dial(ctx, false, want, nil); !errors.As(err, &ce) {
		t.Errorf("Dial without brokers = %v, want a ConfigError", err)
	}
}

// TestEnsureTopicsReplicationFactor: topics created without a ReplicationFactor ask for the
// brokers' default (-1), not 1: on a replicated cluster --create-topics used to create hits
// with a single replica (found on a real three-node Kafka 4.3.1). An explicit factor is sent
// as given, and a broker's refusal names it.
func TestEnsureTopicsReplicationFactor(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Opt
		want int16
		err  string
	}{
		{"default", nil, -1, ""},
		{"explicit", []Opt{ReplicationFactor(2)}, 2, "replication factor 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(1))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var mu sync.Mutex
			var asked []int16
			c.ControlKey(int16(kmsg.CreateTopics), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				mu.Lock()
				defer mu.Unlock()
				for _, rt := range kreq.(*kmsg.CreateTopicsRequest).Topics {
					asked = append(asked, rt.ReplicationFactor)
				}
				return nil, nil, false
			})
			k := newKafka(t, c.ListenAddrs(), append(tc.opts, ConnectTimeout(5*time.Second))...)
			_, err = k.EnsureTopics(context.Background(), true, map[string]int32{"hits": 2})
			if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("EnsureTopics = %v, want error %q", err, tc.err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) == 0 || asked[0] != tc.want {
				t.Errorf("CreateTopics asked for replication factors %v, want %d", asked, tc.want)
			}
		})
	}
}
