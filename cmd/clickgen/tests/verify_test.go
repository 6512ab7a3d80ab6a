package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/generator/verify/topics"
	"github.com/clickgen/clickgen/schema"
	"github.com/twmb/franz-go/pkg/kfake"
)

// verifyAfterBatchAndSnapshot is TestVerifyAfterBatchAndSnapshot on empty topics hits and
// orders at addr.
func verifyAfterBatchAndSnapshot(t *testing.T, addr string) {
	run := concatArgs([]string{"--day", "1", "--days", "2"}, smallWorld, allGarbage)
	for _, verb := range []struct{ name, topic string }{{"batch", "hits"}, {"snapshot", "orders"}} {
		if _, errs, code := clickgen(t, concatArgs([]string{verb.name}, run, []string{"--brokers", addr, "--topic", verb.topic})...); code != 0 {
			t.Fatalf("%s: exit %d: %s", verb.name, code, errs)
		}
	}
	report := filepath.Join(t.TempDir(), "verify.json")
	out, errs, code := clickgen(t, concatArgs([]string{"verify", "--brokers", addr, "--report", report}, run)...)
	if code != 0 {
		t.Fatalf("verify of what was sent: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{"day 1 2026-06-02", "day 2 2026-06-03", "snapshot 0 2026-06-01", "snapshot 1 2026-06-02", "OK: every message"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify table lacks %q:\n%s", want, out)
		}
	}
	var res topics.Result
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if !res.OK || len(res.Hits.Units) != 2 || len(res.Orders.Units) != 2 {
		t.Fatalf("report: ok %v, %d days, %d snapshots", res.OK, len(res.Hits.Units), len(res.Orders.Units))
	}
	for _, o := range topics.Outcomes("hits") {
		if res.Hits.Got.Classes[o] == 0 {
			t.Errorf("no hits message classified %s: the run proves nothing for it", o)
		}
	}
	if res.Hits.Got.Redelivered == 0 || res.Orders.Got.Classes[intake.FieldInvalid] == 0 {
		t.Errorf("hits redelivered %d, orders field_invalid %d: want both", res.Hits.Got.Redelivered, res.Orders.Got.Classes[intake.FieldInvalid])
	}

	// One hand-made message more.
	injected, errs, code := clickgen(t, "inject", "--brokers", addr, "--topic", "hits", "--class", "keyset_mismatch", "--day", "2", "--scale", "0.3")
	m := sentLine.FindStringSubmatch(injected)
	if code != 0 || m == nil {
		t.Fatalf("inject: exit %d, stdout %q, stderr %s", code, injected, errs)
	}
	key, partition := m[5], m[6]
	out, errs, code = clickgen(t, concatArgs([]string{"verify", "--brokers", addr}, run)...)
	if code != 1 {
		t.Fatalf("verify after an injection: exit %d, want 1\n%s", code, out)
	}
	want := "unexpected: hits, keyset_mismatch, key " + key + ", partition " + partition + ", offset "
	if !strings.Contains(out, want) || !strings.Contains(out, "1 unexpected") || !strings.Contains(errs, "1 unexpected") {
		t.Errorf("verify does not name the injected message (%q)\nstdout:\n%s\nstderr:\n%s", want, out, errs)
	}
}

// TestVerifyMissingDay: only day 0 was sent but verify is asked about days 0 and 1: exit 1,
// naming the missing hits of day 1 and the missing snapshot of day 0.
func TestVerifyMissingDay(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, addr := kfakeCluster(t)
	verifyMissingDay(t, addr)
}

// verifyMissingDay is TestVerifyMissingDay on empty topics hits and orders at addr.
func verifyMissingDay(t *testing.T, addr string) {
	if _, errs, code := clickgen(t, concatArgs([]string{"batch", "--day", "0", "--brokers", addr, "--topic", "hits"}, smallWorld)...); code != 0 {
		t.Fatalf("batch: exit %d: %s", code, errs)
	}
	out, errs, code := clickgen(t, concatArgs([]string{"verify", "--brokers", addr, "--day", "0", "--days", "2"}, smallWorld)...)
	if code != 1 {
		t.Fatalf("verify of a missing day: exit %d, want 1\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"missing: hits day 1, clean", "missing: orders snapshot 0, clean row", "DIFFERS", "missing"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
	// The table comes in parts that fit a terminal, each row repeating its label.
	day0 := regexp.MustCompile(`(?m)^day 0 2026-06-01 +ok [0-9a-f]{12} `)
	day1 := regexp.MustCompile(`(?m)^day 1 2026-06-02 +0≠\d+ `)
	day1sha := regexp.MustCompile(`(?m)^day 1 2026-06-02 +DIFFERS: \d+ of \d+ clean missing`)
	if !day0.MatchString(out) || !day1.MatchString(out) || !day1sha.MatchString(out) {
		t.Errorf("table rows: day 0 should reconcile, day 1 be wholly missing:\n%s", out)
	}
}

// TestInjectEveryClass: every class of each topic, injected, reads back as the class it
// claims when the stand's intake classifies it, keyed and placed as the contract says and in
// the partitions inject printed.
func TestInjectEveryClass(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, addr := kfakeCluster(t)
	injectEveryClass(t, addr)
}

// injectEveryClass is TestInjectEveryClass on empty topics hits and orders at addr.
func injectEveryClass(t *testing.T, addr string) {
	for _, kind := range []string{"hits", "orders"} {
		held := map[[2]int64]bool{}
		for _, class := range world.GarbageClassesFor(kind) {
			out, errs, code := clickgen(t, "inject", "--brokers", addr, "--topic", kind, "--class", class, "--count", "3", "--day", "1")
			lines := sentLine.FindAllStringSubmatch(out, -1)
			if code != 0 || len(lines) != 3 {
				t.Fatalf("inject %s %s: exit %d, %d lines\n%s\n%s", kind, class, code, len(lines), out, errs)
			}
			var printed, stored []string
			for _, l := range lines {
				if l[1] != kind || l[2] != kind || l[3] != class {
					t.Errorf("inject %s %s printed %q", kind, class, l[0])
				}
				printed = append(printed, l[5]+"@"+l[6])
			}
			want := class
			switch class {
			case world.GarbageAcceptedBad:
				want = topics.Accepted
			case world.GarbageVanishing:
				want = topics.NoRow
			}
			for _, r := range consume(t, addr, kind) {
				id := [2]int64{int64(r.Partition), r.Offset}
				if held[id] {
					continue
				}
				held[id] = true
				if got := intakeVerdict(kind, r.Value); got != want {
					t.Errorf("inject %s %s: the intake says %s of %.120q", kind, class, got, r.Value)
				}
				if r.Key == nil || r.Partition != schema.PartitionForKey(r.Key, sink.DefaultTopics()[kind]) {
					t.Errorf("inject %s %s: key %q in partition %d", kind, class, r.Key, r.Partition)
				}
				stored = append(stored, string(r.Key)+"@"+strconv.Itoa(int(r.Partition)))
			}
			slices.Sort(printed)
			slices.Sort(stored)
			if !slices.Equal(printed, stored) {
				t.Errorf("inject %s %s: printed keys@partitions %v, the topic holds %v", kind, class, printed, stored)
			}
		}
	}
}

// intakeVerdict is what the stand's intake does with a message: its error class, accepted, or
// no_row.
func intakeVerdict(kind string, v []byte) string {
	classify := intake.ClassifyHit
	if kind == "orders" {
		classify = intake.ClassifyOrder
	}
	class, row := classify(v)
	switch {
	case !row:
		return topics.NoRow
	case class == "":
		return topics.Accepted
	}
	return class
}

// TestVerifyNoticesPartitionCount: a topic created with another partition count than verify
// assumes is named as such, not reported as every key misplaced (issue 11 item 10).
func TestVerifyNoticesPartitionCount(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "hits"), kfake.SeedTopics(1, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	partitionCountMismatch(t, strings.Join(c.ListenAddrs(), ","))
}

// partitionCountMismatch: at addr, hits has 3 partitions (orders 1). batch, with
// --create-topics too, leaves the topic as it is and says so, naming the verify flag that
// checks it; verify refuses the topic with the same wording, and with --hits-partitions 3
// reconciles what batch sent (keys placed by murmur2 over 3 partitions).
func partitionCountMismatch(t *testing.T, addr string) {
	_, errs, code := clickgen(t, concatArgs([]string{"batch", "--day", "0", "--brokers", addr, "--topic", "hits", "--create-topics"}, smallWorld)...)
	if code != 0 || !strings.Contains(errs, "topic hits has 3 partitions, want 2") || !strings.Contains(errs, "--hits-partitions 3") ||
		!strings.Contains(errs, "left as it is") {
		t.Errorf("batch --create-topics into a 3-partition hits: exit %d, stderr %q; want exit 0 and a statement naming --hits-partitions 3", code, errs)
	}
	_, errs, code = clickgen(t, concatArgs([]string{"verify", "--brokers", addr, "--day", "0"}, smallWorld)...)
	if code != 1 || !strings.Contains(errs, "topic hits has 3 partitions, but its keys are checked against 2") || !strings.Contains(errs, "--hits-partitions 3") {
		t.Errorf("verify against a 3-partition hits topic: exit %d, stderr %q", code, errs)
	}
	if out, errs, code := clickgen(t, concatArgs([]string{"verify", "--brokers", addr, "--day", "0", "--hits-partitions", "3"}, smallWorld)...); code != 0 {
		t.Errorf("verify --hits-partitions 3 of what batch sent: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestVerifyAfterBatchAndSnapshot: what batch and snapshot send with garbage and redelivery
// reconciles (exit 0 and a table); one injected message more makes verify exit 1 and name it,
// with its class and partition.
func TestVerifyAfterBatchAndSnapshot(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, addr := kfakeCluster(t)
	verifyAfterBatchAndSnapshot(t, addr)
}
