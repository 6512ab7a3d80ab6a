package sink_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	. "github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/schema"

	"github.com/twmb/franz-go/pkg/kfake"
)

// benchHits returns n pre-built hit-like messages: ~1.2 KB compact JSON
// documents shaped like the 47-column hit (ids, dates, URLs, a user agent,
// UTM fields), with varying ids and pages so compression sees realistic
// entropy, keyed by the decimal ClientID.
func benchHits(n int) []Message {
	rng := rand.New(rand.NewPCG(20260601, 1))
	agents := []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36",
	}
	cats := []string{"electronics", "clothes", "home", "books", "sport", "beauty"}
	msgs := make([]Message, n)
	for i := range msgs {
		client := rng.Uint64() >> 1
		cat := cats[rng.IntN(len(cats))]
		sku := rng.IntN(30)
		t := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(86400)) * time.Second)
		v := fmt.Appendf(nil, `{"WatchID":%d,"VisitID":%d,"ClientID":%d,"EventDate":"%s","UTCEventTime":"%s","EventType":"pageview",`+
			`"URL":"https://shop.example.ru/catalog/%s/item-%d?utm_source=yandex&utm_medium=cpc&utm_campaign=summer_%d",`+
			`"Referer":"https://yandex.ru/search/?text=%s+%d&lr=51","Title":"Товар %d — %s — интернет-магазин","GoodEvent":1,`+
			`"IsMobile":%d,"UserAgent":"%s","ResolutionWidth":%d,"ResolutionHeight":%d,"ClientTimeZone":240,"RegionID":51,"City":"Самара",`+
			`"Country":"RU","Language":"ru","IPNetworkID":%d,"IsNewVisit":%d,"PageViews":%d,"VisitDuration":%d,"TraficSourceID":%d,`+
			`"SearchEngineID":2,"AdvEngineID":1,"UTMSource":"yandex","UTMMedium":"cpc","UTMCampaign":"summer_%d","UTMContent":"ad_%d",`+
			`"UTMTerm":"%s","HasGCLID":0,"OpenstatServiceName":"","ProductSKU":"%s-%02d","ProductCategory":"%s","ProductPrice":"%d.%02d",`+
			`"Quantity":%d,"OrderID":"","Revenue":"0.00","CartValue":"%d.00","IsBounce":%d,"Sign":1,"DeviceCategory":%d,"OS":"%d","Browser":"%d",`+
			`"ScreenColors":24,"JavaEnable":0,"CookieEnable":1,"Robotness":0}`,
			rng.Uint64()>>1, rng.Uint64()>>1, client, t.Format(time.DateOnly), t.Format("2006-01-02T15:04:05Z"),
			cat, sku, rng.IntN(9), cat, sku, sku, cat,
			rng.IntN(2), agents[rng.IntN(len(agents))], 360+rng.IntN(1600), 640+rng.IntN(800),
			rng.Uint32(), rng.IntN(2), 1+rng.IntN(20), rng.IntN(1800), rng.IntN(8),
			rng.IntN(9), rng.IntN(50), cat, cat, sku, cat, 100+rng.IntN(90000), rng.IntN(100),
			1+rng.IntN(3), rng.IntN(200000), rng.IntN(2), 1+rng.IntN(3), rng.IntN(10), rng.IntN(10))
		msgs[i] = Message{Topic: "hits", Key: strconv.AppendUint(nil, client, 10), Value: v}
	}
	return msgs
}

func TestBenchHitsShape(t *testing.T) {
	var total int
	msgs := benchHits(1000)
	for _, m := range msgs {
		total += len(m.Value)
	}
	if avg := total / len(msgs); avg < 1100 || avg > 1300 {
		t.Errorf("benchmark messages average %d bytes, want ~1.2 KB", avg)
	}
}

// benchSink sends b.N pre-built messages through s and flushes, reporting
// messages/s and value MB/s.
func benchSink(b *testing.B, s Sink, msgs []Message) {
	b.Helper()
	ctx := context.Background()
	var bytes int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		m := msgs[i%len(msgs)]
		bytes += int64(len(m.Value))
		if err := s.Send(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "msgs/s")
	b.ReportMetric(float64(bytes)/sec/1e6, "MB/s")
	st := s.Stats().Topics["hits"]
	if st.Acked != int64(b.N) {
		b.Fatalf("acked %d of %d", st.Acked, b.N)
	}
}

// BenchmarkKafkaProduce produces pre-built ~1.2 KB hits to an in-process
// kfake broker with the sink's defaults (idempotent, acks=all, lz4 unless
// named). "stored" keeps every record in the broker's log; "blackhole" has
// the broker validate and acknowledge without storing, measuring the
// producer path alone.
func BenchmarkKafkaProduce(b *testing.B) {
	msgs := benchHits(4096)
	for _, bc := range []struct {
		name string
		comp Compression
		opts []kfake.Opt
	}{
		{"lz4/stored", CompressionLZ4, nil},
		{"lz4/blackhole", CompressionLZ4, []kfake.Opt{kfake.BlackholeProduce()}},
		{"none/blackhole", CompressionNone, []kfake.Opt{kfake.BlackholeProduce()}},
		{"zstd/blackhole", CompressionZstd, []kfake.Opt{kfake.BlackholeProduce()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			_, addrs := newCluster(b, bc.opts...)
			k := newKafka(b, addrs, BatchCompression(bc.comp))
			benchSink(b, k, msgs)
		})
	}
}

// BenchmarkWriter writes the same messages to io.Discard through the file
// sink.
func BenchmarkWriter(b *testing.B) {
	w, err := NewWriter(io.Discard, WriterOptions{})
	if err != nil {
		b.Fatal(err)
	}
	benchSink(b, w, benchHits(4096))
}

// BenchmarkWriterLinger is BenchmarkWriter with the linger a file sink opens with (Kafka's
// default 10 ms): at full speed the buffer fills before the linger passes, so a batch run
// writes as without it.
func BenchmarkWriterLinger(b *testing.B) {
	w, err := NewWriter(io.Discard, WriterOptions{Linger: 10 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	benchSink(b, w, benchHits(4096))
}

func BenchmarkPartitionForKey(b *testing.B) {
	key := []byte("12345678901234567890")
	b.ReportAllocs()
	var sink int32
	for b.Loop() {
		sink += schema.PartitionForKey(key, 2)
	}
	_ = sink
}
