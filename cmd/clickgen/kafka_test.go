package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/internal/tier/kafkatest"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kfakeCluster starts an in-process broker with the stand's topics.
func kfakeCluster(t *testing.T, opts ...kfake.Opt) (*kfake.Cluster, string) {
	c, addrs := kafkatest.NewCluster(t, opts...)
	return c, strings.Join(addrs, ",")
}

func consume(t *testing.T, addr, topic string) []broker.Record {
	t.Helper()
	return kafkatest.ConsumeAll(t, []string{addr}, topic)
}

type report struct {
	Topics map[string]struct {
		Sent, Acked, Failed, Bytes int64
		Partitions                 map[string]int64
	} `json:"topics"`
	Interrupted bool `json:"interrupted"`
}

func readReport(t *testing.T, path string) report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return r
}

// TestBrokerRejectsProduces: a broker that starts refusing produce requests makes the run
// fail with exit 1, name the incomplete day, and report exactly what was acknowledged.
func TestBrokerRejectsProduces(t *testing.T) {
	c, addr := kfakeCluster(t)
	refuseProducesAfter(c, 2000)
	rep := filepath.Join(t.TempDir(), "report.json")
	_, errs, code := clickgen(t, "batch", "--day", "0", "--days", "2", "--brokers", addr, "--topic", "hits", "--report", rep)
	if code != 1 || !strings.Contains(errs, "day 0 (2026-06-01) is incomplete") {
		t.Fatalf("exit %d, stderr %q; want exit 1 naming day 0 as incomplete", code, errs)
	}
	r := readReport(t, rep)
	held := len(consume(t, addr, "hits"))
	h := r.Topics["hits"]
	if h.Failed == 0 || h.Acked != int64(held) || h.Acked+h.Failed != h.Sent {
		t.Errorf("report sent %d acked %d failed %d; topic holds %d", h.Sent, h.Acked, h.Failed, held)
	}
}

// TestInterruptLeavesHonestReport cancels a multi-day run in the middle (Ctrl-C): the run
// exits non-zero, the report says interrupted, and acked equals what the topic holds.
func TestInterruptLeavesHonestReport(t *testing.T) {
	// Under the race detector the days are a tenth of the size (raceScaled), and so are the
	// produce requests before the interruption and the four days' messages.
	interruptAt, fourDays := int64(40), 4*48000
	if testenv.Race {
		interruptAt, fourDays = 4, 4*4800
	}
	c, addr := kfakeCluster(t)
	var produces atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if produces.Add(1) == interruptAt {
			cancel() // Ctrl-C while records are in flight
		}
		return nil, nil, false
	})
	rep := filepath.Join(t.TempDir(), "report.json")
	var out, errb bytes.Buffer
	err := run(ctx, raceScaled("batch", "--day", "0", "--days", "4", "--brokers", addr, "--topic", "hits", "--report", rep), &out, &errb)
	if !errors.Is(err, context.Canceled) || exitCode(err, &errb) == 0 {
		t.Fatalf("interrupted run returned %v (exit %d), want an interruption", err, exitCode(err, &errb))
	}
	r := readReport(t, rep)
	held := len(consume(t, addr, "hits"))
	h := r.Topics["hits"]
	if !r.Interrupted || h.Acked != int64(held) || h.Failed != 0 || held == 0 || held >= fourDays {
		t.Errorf("report interrupted=%v sent %d acked %d failed %d; topic holds %d", r.Interrupted, h.Sent, h.Acked, h.Failed, held)
	}
}
