package world

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// bigCatalogCSV is a valid catalog of n products spread over the six categories, each row
// about 60 bytes as the 1 000 000-row (60 MB) file.
func bigCatalogCSV(n int) []byte {
	var b bytes.Buffer
	b.WriteString("sku,name,category,brand,price,demand\n")
	for i := range n {
		c := categories[i%len(categories)]
		fmt.Fprintf(&b, "%s-%07d,Товар номер %d,%s,Бренд,%d,%s\n", c.Prefix, i, i, c.Name, 1000+i%100000, DemandNames[i%3])
	}
	return b.Bytes()
}

// catalogCost loads a catalog of n rows and builds its world, returning the heap bytes the
// world keeps per row (live after collection, beyond an embedded-catalog world) and the
// time per row.
func catalogCost(tb testing.TB, n int) (perRow float64, nsPerRow float64) {
	data := bigCatalogCSV(n)
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base, _ := NewWorld(Params{})
	before := live()
	start := nanotime()
	c, err := ParseCatalog(data)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := NewWorld(Params{Catalog: c})
	if err != nil {
		tb.Fatal(err)
	}
	took := nanotime() - start
	after := live()
	runtime.KeepAlive(w)
	runtime.KeepAlive(base)
	return float64(int64(after)-int64(before)) / float64(n), float64(took) / float64(n)
}

// BenchmarkCatalogRows reports what a catalog row costs once loaded into a world (issue 24
// item 7: 5.7 KB and 0.08 ms per row; a 1 000 000-row catalog died with Go's out of memory).
func BenchmarkCatalogRows(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				per, ns := catalogCost(b, n)
				b.ReportMetric(per, "B/row")
				b.ReportMetric(ns, "ns/row")
			}
		})
	}
}

func nanotime() int64 { return time.Now().UnixNano() }
