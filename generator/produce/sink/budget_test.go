package sink

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBudget(t *testing.T) {
	ctx := context.Background()
	b := newBudget(2, 100)
	if err := b.acquire(ctx, 60); err != nil {
		t.Fatal(err)
	}
	// 60 + 50 bytes exceed the byte budget: waits, and a cancelled wait
	// returns the context's error without taking room.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := b.acquire(short, 50); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire over the byte budget = %v, want a deadline error", err)
	}
	if n := b.inFlight(); n != 1 {
		t.Fatalf("in flight %d after a cancelled acquire, want 1", n)
	}
	// A waiting acquire proceeds when room is released.
	done := make(chan error, 1)
	go func() { done <- b.acquire(ctx, 50) }()
	select {
	case err := <-done:
		t.Fatalf("acquire returned %v before room was released", err)
	case <-time.After(20 * time.Millisecond):
	}
	b.release(60)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The record limit: 2 in flight.
	if err := b.acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	short2, cancel2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel2()
	if err := b.acquire(short2, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third acquire with a limit of 2 = %v, want a deadline error", err)
	}
	b.release(50)
	b.release(1)
	if err := b.drained(ctx); err != nil {
		t.Fatalf("drained = %v with nothing in flight", err)
	}
	// A record larger than the whole byte budget is admitted alone.
	if err := b.acquire(ctx, 1000); err != nil {
		t.Fatalf("oversize acquire on an empty budget = %v", err)
	}
	short3, cancel3 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel3()
	if err := b.drained(short3); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("drained with a record in flight = %v, want a deadline error", err)
	}
}
