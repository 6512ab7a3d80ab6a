package realclickhouse_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// script runs the tier's script, as a user runs it, with env added; it returns its output
// and whether it succeeded.
func script(t *testing.T, env []string, args ...string) (string, bool) {
	t.Helper()
	path, err := realclickhouse.Script()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// TestScriptSaysWhatItDid is issue 38 item 1: `.ci/clickhouse/clickhouse pull-orders` exited
// 0 having pulled nothing (a read before the reader joined its group brings nothing, and the
// script said nothing either way). It now reads again until something comes, for PULL_WAIT
// seconds, then fails saying so; apply says what it laid out, delete how many rows went.
func TestScriptSaysWhatItDid(t *testing.T) {
	s := realclickhouse.Start(t, realclickhouse.Options{})
	out, ok := script(t, nil, "apply", s.Dir(), "127.0.0.1:1") // no Kafka there: nothing to pull
	if !ok || !strings.Contains(out, "the pipeline is laid out on "+s.URL()+": 19 tables and views in stg and ods; stg.hits_raw_kafka reads topic hits from 127.0.0.1:1") {
		t.Fatalf("apply: ok %v:\n%s", ok, out)
	}
	out, ok = script(t, []string{"PULL_WAIT=2"}, "pull-orders", s.Dir(), "empty-1")
	if ok || !strings.Contains(out, "clickhouse: pulled nothing from topic orders in ") || !strings.Contains(out, " over 2 s (PULL_WAIT)") {
		t.Errorf("pull-orders of nothing: ok %v, want a failure saying nothing came:\n%s", ok, out)
	}
	s.Insert("ods.event_rep", `{"WatchID":1,"ClientID":7,"EventDate":"2026-06-03"}`, `{"WatchID":2,"ClientID":7,"EventDate":"2026-06-03"}`,
		`{"WatchID":3,"ClientID":7,"EventDate":"2026-06-04"}`)
	out, ok = script(t, nil, "delete", s.Dir(), "ods.event_rep", "EventDate = '2026-06-03'")
	if !ok || !strings.Contains(out, "clickhouse: deleted 2 rows of ods.event_rep where EventDate = '2026-06-03' (1 left)") {
		t.Errorf("delete: ok %v:\n%s", ok, out)
	}
	if n := s.Int("SELECT count() FROM ods.event_rep"); n != 1 {
		t.Errorf("ods.event_rep holds %d rows after the delete returned, want 1: it did not wait for the mutation", n)
	}
}
