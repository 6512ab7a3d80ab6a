// Package cmdtest holds what the command's test packages (cmd/clickgen, which runs the
// command in process, cmd/clickgen/tests and verify/intake's engine tier, which run the built
// binary) share: the command built once per test binary, a writer whose lines a test waits
// for, and the part of a stress report the tests read. It is linked into tests only.
package cmdtest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	runreport "github.com/clickgen/clickgen/generator/measure/report"
)

// LineWatch is a writer whose lines a test can wait for: an event, not a point in time.
type LineWatch struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    bytes.Buffer
	lines  []string
	closed bool
}

// NewLineWatch returns an empty LineWatch.
func NewLineWatch() *LineWatch {
	l := &LineWatch{}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *LineWatch) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadString('\n')
		if err != nil {
			l.buf.WriteString(line) // an incomplete line waits for the rest
			break
		}
		l.lines = append(l.lines, strings.TrimSuffix(line, "\n"))
	}
	l.cond.Broadcast()
	return len(p), nil
}

// Close wakes the waiters for good: the writer will get no more lines.
func (l *LineWatch) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	l.cond.Broadcast()
}

// Await waits for a line from index from on that ok accepts, and returns it and its index;
// -1 when the writer was closed first.
func (l *LineWatch) Await(from int, ok func(string) bool) (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		for i := from; i < len(l.lines); i++ {
			if ok(l.lines[i]) {
				return l.lines[i], i
			}
		}
		if l.closed {
			return "", -1
		}
		l.cond.Wait()
	}
}

func (l *LineWatch) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n") + "\n" + l.buf.String()
}

// StressDoc is the part of a stress report the tests read.
type StressDoc struct {
	Topics map[string]struct{ Sent, Acked, Failed int64 } `json:"topics"`
	Rate   struct {
		TargetPerS   float64 `json:"target_per_s"`
		AchievedPerS float64 `json:"achieved_per_s"`
	} `json:"rate"`
	LatencyMS map[string]float64 `json:"latency_ms"`
	Stress    struct {
		Shape     string               `json:"shape"`
		Released  uint64               `json:"released"`
		Stopped   string               `json:"stopped"`
		MaxLagMS  float64              `json:"max_lag_ms"`
		FirstDay  int                  `json:"first_day"`
		LastDay   int                  `json:"last_day"`
		Intervals []runreport.Interval `json:"intervals"`
	} `json:"stress"`
}

// ReadStress reads the stress report at path, failing t when it cannot.
func ReadStress(t testing.TB, path string) StressDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d StressDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return d
}

// Built is the clickgen command compiled once per run of a test binary: Path compiles it on
// first use into a folder of its own, Remove deletes the folder (TestMain, after the tests).
type Built struct {
	once sync.Once
	dir  string
	bin  string
	out  []byte
	err  error
}

// Path compiles cmd/clickgen on the first call and returns the binary's path; a failed build
// fails t with go build's output, on every call.
func (b *Built) Path(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		if b.dir, b.err = os.MkdirTemp("", "clickgen-built-"); b.err != nil {
			return
		}
		b.bin = filepath.Join(b.dir, "clickgen")
		b.out, b.err = exec.Command(goBin, "build", "-o", b.bin, "github.com/clickgen/clickgen/cmd/clickgen").CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go build: %v\n%s", b.err, b.out)
	}
	return b.bin
}

// Remove deletes what Path compiled, if it did.
func (b *Built) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}
