package world

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The garbage golden files pin the exact bytes of a day's malformed messages and re-sends.
// gofakeit feeds some of them, and its seeded output may change between minor versions: an
// upgrade that moves a byte fails here, loudly, and must come with a generator version bump.
//
// Do not edit golden outputs to make a test pass. -update rewrites them from the current
// output, only together with a deliberate version bump, said so in the commit.
var update = flag.Bool("update", false, "rewrite golden files from the current output")

// goldenHits and goldenOrders are every class, opt-in ones included, at rates small enough to
// keep the files readable and large enough that every class and every kind appears (a snapshot
// has far fewer rows than a day has events).
var (
	goldenHits   = Garbage{Rate: 0.004, Mix: everything, Redeliver: 0.001}
	goldenOrders = Garbage{Rate: 0.25, Mix: everything, Redeliver: 0.02}
)

// appendExtras writes one extra per line: position, source, class, kind, key and value, each
// byte string quoted (so tombstones, empty and non-UTF-8 values are told apart).
func appendExtras(dst []byte, extras []Extra) []byte {
	for _, e := range extras {
		key := "nil"
		if e.Key != nil {
			key = strconv.Quote(string(e.Key))
		}
		value := "nil"
		if e.Value != nil {
			value = strconv.Quote(string(e.Value))
		}
		dst = fmt.Appendf(dst, "after=%d source=%d class=%q kind=%q key=%s value=%s\n", e.After, e.Source, e.Class, e.Kind, key, value)
	}
	return dst
}

func TestGarbageGolden(t *testing.T) {
	w := canonical(t)
	hits := w.Day(0).HitExtras(goldenHits)
	rows, keys, err := NewOrderBook(w).SnapshotRows(1)
	if err != nil {
		t.Fatal(err)
	}
	orders := w.OrderExtras(1, rows, keys, goldenOrders)
	for _, tc := range []struct {
		file    string
		extras  []Extra
		classes []string
	}{
		{"garbage-hits-day0.golden", hits, HitGarbageClasses},
		{"garbage-orders-snapshot1.golden", orders, OrderGarbageClasses},
	} {
		seen := map[string]int{}
		for _, e := range tc.extras {
			seen[e.Class]++
		}
		for _, c := range append([]string{""}, tc.classes...) {
			if seen[c] == 0 {
				t.Errorf("%s: no extra of class %q; raise the golden rates so every class is pinned", tc.file, c)
			}
		}
		golden(t, tc.file, appendExtras(nil, tc.extras))
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		line := bytes.Count(want[:i], []byte{'\n'}) + 1
		t.Errorf("%s differs from the golden file at line %d (byte %d): the garbage bytes changed. "+
			"If gofakeit was upgraded, this needs a generator version bump", name, line, i)
	}
}
