package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// TestWriteAndSend: the file written holds a small world's hits of two days as key<TAB>value
// lines, in the order Play gives them, with each day's count beside it; sent into the embedded
// broker, every line is acknowledged and the topic holds them all, keys and values as written.
func TestWriteAndSend(t *testing.T) {
	w, err := world.NewWorld(world.Params{Scale: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hits.kv")
	if err := writeHits(path, w, 2); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []string // key<TAB>value
	for d := range 2 {
		day := w.Day(d)
		for i := range day.Len() {
			want = append(want, strconv.FormatUint(day.ClientID(i), 10)+"\t"+string(day.AppendEvent(nil, i)))
		}
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(want) || len(want) == 0 {
		t.Fatalf("%d lines written, the two days have %d events", len(lines), len(want))
	}
	for i, l := range lines {
		if l != want[i] {
			t.Fatalf("line %d is not event %d's key<TAB>value: %.120q", i, i, l)
		}
	}
	counts, err := os.ReadFile(path + ".days")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(counts), strings.Join([]string{strconv.Itoa(w.Day(0).Len()), strconv.Itoa(w.Day(1).Len()), ""}, "\n"); got != want {
		t.Errorf("%s.days = %q, want %q", path, got, want)
	}

	b, err := broker.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out bytes.Buffer
	if err := send(&out, strings.Join(b.Addrs(), ","), "hits", path); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "prebuilt: "+strconv.Itoa(len(want))+" acked of "+strconv.Itoa(len(want))+" in ") {
		t.Errorf("send printed %q, want all %d acked", out.String(), len(want))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // they are there: a bound, not a wait
	defer cancel()
	recs, err := broker.Consume(ctx, b.Addrs(), "hits")
	if err != nil || len(recs) != len(want) {
		t.Fatalf("the topic holds %d records (%v), want %d", len(recs), err, len(want))
	}
	held := map[string]int{}
	for _, r := range recs {
		held[string(r.Key)+"\t"+string(r.Value)]++
	}
	for i, l := range lines {
		if held[l]--; held[l] < 0 {
			t.Fatalf("line %d is not in the topic (or more often than written): %.120q", i, l)
		}
	}
}
