package sink_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	. "github.com/clickgen/clickgen/generator/produce/sink"
)

// timedWriter records when each write came and what it held; a write blocks while hold is
// set, until release is closed.
type timedWriter struct {
	mu      sync.Mutex
	start   time.Time
	writes  []timedWrite
	hold    bool
	release chan struct{}
}

type timedWrite struct {
	at    time.Duration
	lines string
}

func (w *timedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	hold := w.hold
	w.mu.Unlock()
	if hold {
		<-w.release
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, timedWrite{time.Since(w.start), strings.ReplaceAll(string(p), "\n", " ")})
	return len(p), nil
}

func (w *timedWriter) got() []timedWrite {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]timedWrite(nil), w.writes...)
}

// TestWriterLingerWritesDueLines is issue 38 item 8: a live day into a file was not live (the
// file sink wrote, and acknowledged, only when its 1 MiB buffer filled: latency p99 1.9 s).
// With a linger, a line handed over is written within it, with whatever came meanwhile, and
// acknowledged then; a write under way does not hold up Send; without a linger nothing is
// written before the buffer fills or Flush. Time is synctest's: no wall clock.
func TestWriterLingerWritesDueLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		tw := &timedWriter{start: time.Now(), release: make(chan struct{})}
		w, err := NewWriter(tw, WriterOptions{Linger: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		send := func(v string) {
			t.Helper()
			if err := w.Send(ctx, Message{Topic: "hits", Key: []byte(v), Value: []byte(v), Due: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		send("a")
		time.Sleep(9 * time.Millisecond)
		synctest.Wait()
		if got := tw.got(); len(got) != 0 {
			t.Fatalf("written before the linger: %v", got)
		}
		send("b") // comes during a's linger: written with it
		time.Sleep(time.Millisecond)
		synctest.Wait()
		want := []timedWrite{{10 * time.Millisecond, "a b "}}
		if got := tw.got(); !equalWrites(got, want) {
			t.Fatalf("writes %v, want %v", got, want)
		}
		if st := w.Stats(); st.Topics["hits"].Acked != 2 || st.Latency.Max() != 10*time.Millisecond {
			t.Errorf("acked %d, latency max %v; want 2 acknowledged when written, the oldest after 10ms", st.Topics["hits"].Acked, st.Latency.Max())
		}

		// A write that blocks (a slow reader) does not hold up Send; what came meanwhile is
		// written as soon as it ends, its oldest line having waited more than the linger.
		tw.mu.Lock()
		tw.hold = true
		tw.mu.Unlock()
		time.Sleep(20 * time.Millisecond) // at 30 ms
		send("c")
		time.Sleep(10 * time.Millisecond) // c's write starts at 40 ms and blocks
		synctest.Wait()
		done := make(chan struct{})
		go func() { send("d"); send("e"); close(done) }()
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("Send waited for a write under way")
		}
		time.Sleep(25 * time.Millisecond) // the slow write ends at 65 ms
		tw.mu.Lock()
		tw.hold = false
		tw.mu.Unlock()
		close(tw.release)
		synctest.Wait()
		want = append(want, timedWrite{65 * time.Millisecond, "c "}, timedWrite{65 * time.Millisecond, "d e "})
		if got := tw.got(); !equalWrites(got, want) {
			t.Fatalf("writes %v, want %v", got, want)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}

		// Without a linger, nothing is written before Flush.
		tw2 := &timedWriter{start: time.Now()}
		w2, _ := NewWriter(tw2, WriterOptions{})
		if err := w2.Send(ctx, Message{Topic: "hits", Value: []byte("x"), Due: time.Now()}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := tw2.got(); len(got) != 0 {
			t.Errorf("written without a linger, before Flush: %v", got)
		}
		if err := w2.Flush(ctx); err != nil || len(tw2.got()) != 1 {
			t.Errorf("Flush: %v, %d writes", err, len(tw2.got()))
		}
	})
}

// TestWriterLingerAbandonedWrite: a linger's write that blocks (a reader that stopped) is
// abandoned by the first Send that needs to write and whose context ends (Ctrl-C), at once,
// and by WriteTimeout otherwise: its lines stay unaccounted and the writer fails from then on.
func TestWriterLingerAbandonedWrite(t *testing.T) {
	for _, byTimeout := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			tw := &timedWriter{start: time.Now(), hold: true, release: make(chan struct{})}
			defer close(tw.release)
			opts := WriterOptions{Linger: 10 * time.Millisecond, BufferSize: 8}
			if byTimeout {
				opts.WriteTimeout = time.Second
			}
			w, _ := NewWriter(tw, opts)
			ctx, cancel := context.WithCancel(context.Background())
			if err := w.Send(ctx, Message{Topic: "hits", Value: []byte("a"), Due: time.Now()}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(10 * time.Millisecond) // the linger's write starts and blocks
			synctest.Wait()
			start := time.Now()
			if byTimeout {
				time.Sleep(2 * time.Second)
				synctest.Wait()
			} else {
				time.AfterFunc(5*time.Millisecond, cancel)
			}
			err := w.Send(ctx, Message{Topic: "hits", Value: []byte("a full buffer"), Due: time.Now()})
			took := time.Since(start)
			switch {
			case byTimeout && (err == nil || !strings.Contains(err.Error(), "did not finish within 1s")):
				t.Errorf("after the write timeout: Send = %v, want the write said abandoned", err)
			case !byTimeout && (!errors.Is(err, context.Canceled) || took != 5*time.Millisecond):
				t.Errorf("Ctrl-C during a blocked write: Send = %v after %v, want context.Canceled at once", err, took)
			}
			if st := w.Stats(); st.Topics["hits"].Acked != 0 || st.Topics["hits"].Failed != 0 {
				t.Errorf("acked %d, failed %d: an abandoned write's lines stay unaccounted", st.Topics["hits"].Acked, st.Topics["hits"].Failed)
			}
			if err := w.Flush(context.Background()); err == nil {
				t.Errorf("Flush after an abandoned write: nil, want the writer stuck")
			}
			cancel()
		})
	}
}

func equalWrites(a, b []timedWrite) bool {
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

// TestFileSinkLingers: the settings' linger (Kafka's default of 10 ms, or --linger) reaches
// the file sink they open, a file and stdout alike: a message sent is in the file 10 ms
// later, with no Flush; a linger of 0 writes at once.
func TestFileSinkLingers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		linger time.Duration
		file   bool
	}{{"a file, the default", -1, true}, {"stdout, the default", -1, false}, {"a file, linger 0", 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := DefaultSettings()
				if tc.linger >= 0 {
					s.Linger = tc.linger
				}
				var out timedWriter
				out.start = time.Now()
				path := filepath.Join(t.TempDir(), "hits.json")
				s.File = "-"
				if tc.file {
					s.File = path
				}
				k, err := s.Open(context.Background(), &out, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer k.Close()
				if err := k.Send(context.Background(), Message{Topic: "hits", Value: []byte(`{"a":1}`), Due: time.Now()}); err != nil {
					t.Fatal(err)
				}
				written := func() bool {
					if !tc.file {
						return len(out.got()) == 1
					}
					b, _ := os.ReadFile(path)
					return string(b) == "{\"a\":1}\n"
				}
				synctest.Wait()
				if tc.linger != 0 && written() {
					t.Errorf("written before the linger passed")
				}
				time.Sleep(max(s.Linger, time.Nanosecond))
				synctest.Wait()
				if !written() || k.Stats().Topics["hits"].Acked != 1 {
					t.Errorf("not written and acknowledged %v after it was sent", s.Linger)
				}
			})
		})
	}
}
