package world

import (
	"context"
	"errors"
	"testing"
)

// TestPlayCancelledBeforeStart: a context done before the first batch is an error, never a
// silent success that emitted nothing (Ctrl-C at the very start of a run).
func TestPlayCancelledBeforeStart(t *testing.T) {
	w, err := NewWorld(Params{Scale: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 20 {
		emitted := 0
		err := w.Play(ctx, 0, 2, PlayOptions{}, func(b *Batch) error { emitted++; return nil })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Play(cancelled) = %v after %d batches, want context.Canceled", err, emitted)
		}
	}
}
