package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// TestParallelSharesABatch: the plan parses and digests the rows of each of the world's
// batches on the workers, so one batch (world.BatchEvents rows) must be shared by two of them
// at once, every row once; a threshold above a batch planned the events on one core. Each
// call of f waits until two calls are running (at most a minute).
func TestParallelSharesABatch(t *testing.T) {
	v := &verifier{opt: Options{Workers: 2}}
	n := world.BatchEvents
	var mu sync.Mutex
	seen := make([]int, n)
	arrived, both := 0, make(chan struct{})
	err := v.parallel(context.Background(), n, func(w, lo, hi int) error {
		mu.Lock()
		if arrived++; arrived == 2 {
			close(both)
		}
		for i := lo; i < hi; i++ {
			seen[i]++
		}
		mu.Unlock()
		select {
		case <-both:
			return nil
		case <-time.After(time.Minute):
			return errors.New("no second worker running beside this one for a minute")
		}
	})
	if err != nil {
		t.Fatalf("a batch of %d rows on 2 workers: %v", n, err)
	}
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("row %d of %d done %d times, want once", i, n, c)
		}
	}
}
