package realclickhouse_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// TestStartAnswersAsBothUsers starts a server and asks it who and where it is, as the user
// default and as the user with a password; a wrong password is refused.
func TestStartAnswersAsBothUsers(t *testing.T) {
	start := time.Now()
	s := realclickhouse.Start(t, realclickhouse.Options{Password: "s3cret-for-this-test"})
	t.Logf("server up in %v at %s", time.Since(start).Round(time.Millisecond), s.URL())
	if got := s.Query("SELECT version()"); got != "18.16.1" {
		t.Errorf("version() = %q, want 18.16.1 (Debian's clickhouse-server)", got)
	}
	if got, want := s.Int("SELECT toUnixTimestamp(toDateTime('2026-06-01 00:00:00'))"), time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).Unix(); got != want {
		t.Errorf("2026-06-01 00:00:00 in the server's time zone is %d, want %d (UTC)", got, want)
	}
	if got := s.Query("SELECT host_address, port FROM system.clusters WHERE cluster = 'clickstream_cluster'"); got != fmt.Sprintf("127.0.0.1\t%d", s.NativePort()) {
		t.Errorf("clickstream_cluster = %q, want one replica at 127.0.0.1:%d", got, s.NativePort())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := s.QueryAs(ctx, realclickhouse.User, "s3cret-for-this-test", "SELECT 1"); err != nil || out != "1" {
		t.Errorf("as %s with its password: %q, %v; want 1", realclickhouse.User, out, err)
	}
	_, err := s.QueryAs(ctx, realclickhouse.User, "wrong", "SELECT 1")
	var qe *realclickhouse.QueryError
	if !errors.As(err, &qe) || !strings.Contains(qe.Body, "Wrong password") {
		t.Errorf("as %s with a wrong password: %v, want a refusal saying Wrong password", realclickhouse.User, err)
	}
	users, err := os.ReadFile(filepath.Join(s.Dir(), "users.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(users), "s3cret-for-this-test") {
		t.Error("users.xml holds the password in clear; want only its SHA-256")
	}
	s.Query("CREATE TABLE default.here (x UInt8) ENGINE = MergeTree ORDER BY x")
	s.Insert("default.here", `{"x":1}`)
	if _, err := os.Stat(filepath.Join(s.Dir(), "data", "data", "default", "here")); err != nil {
		t.Errorf("a table's data is not in the server's folder: %v", err)
	}
}

// TestKillRestartKeepsData kills the server (SIGKILL) and starts it again on its data: what was
// inserted before the kill is still there.
func TestKillRestartKeepsData(t *testing.T) {
	s := realclickhouse.Start(t, realclickhouse.Options{})
	s.Query("CREATE TABLE default.t (EventDate Date, WatchID UInt64) ENGINE = MergeTree PARTITION BY EventDate ORDER BY WatchID")
	s.Insert("default.t", `{"EventDate":"2026-06-01","WatchID":1}`, `{"EventDate":"2026-06-02","WatchID":2}`)
	pid := s.Pid()
	if !s.Running() {
		t.Fatal("a started server is not running")
	}
	s.Kill()
	if s.Pid() != 0 || s.Running() {
		t.Fatal("a killed server still has a pid or runs")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.QueryContext(ctx, "SELECT 1"); err == nil {
		t.Fatal("a killed server answered")
	}
	start := time.Now()
	s.Restart()
	t.Logf("restarted in %v", time.Since(start).Round(time.Millisecond))
	if s.Pid() == pid || s.Pid() == 0 {
		t.Errorf("pid after restart %d, before %d: want a new process", s.Pid(), pid)
	}
	if got := s.Query("SELECT groupArray(WatchID) FROM (SELECT WatchID FROM default.t ORDER BY WatchID)"); got != "[1,2]" {
		t.Errorf("after the restart the table holds %s, want [1,2]", got)
	}
}

// TestPauseHangsUntilResume freezes the server: a request gets no answer (it ends by its own
// deadline), and one sent while frozen is answered once the server is resumed.
func TestPauseHangsUntilResume(t *testing.T) {
	s := realclickhouse.Start(t, realclickhouse.Options{})
	s.Pause()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	_, err := s.QueryContext(ctx, "SELECT 1")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a paused server: %v, want the request's deadline exceeded", err)
	}
	answered := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := s.QueryContext(ctx, "SELECT 42")
		if err == nil && out != "42" {
			err = fmt.Errorf("answered %q", out)
		}
		answered <- err
	}()
	s.Resume()
	if err := <-answered; err != nil {
		t.Fatalf("the request sent while paused, after Resume: %v", err)
	}
}

// TestDeleteDayAndInsert deletes one date of an events table (a mutation, waited for) and
// inserts rows into it.
func TestDeleteDayAndInsert(t *testing.T) {
	s := realclickhouse.Start(t, realclickhouse.Options{})
	s.Query("CREATE TABLE default.e (EventDate Date, WatchID UInt64, ClientID UInt64) ENGINE = ReplacingMergeTree PARTITION BY EventDate ORDER BY WatchID")
	var rows []string
	for i := range 30 {
		rows = append(rows, fmt.Sprintf(`{"EventDate":"2026-06-0%d","WatchID":%d,"ClientID":7}`, 1+i%3, i))
	}
	s.Insert("default.e", rows...)
	s.DeleteDay("default.e", "2026-06-02")
	if got := s.Query("SELECT groupArray((toString(EventDate), c)) FROM (SELECT EventDate, count() AS c FROM default.e GROUP BY EventDate ORDER BY EventDate)"); got != "[('2026-06-01',10),('2026-06-03',10)]" {
		t.Errorf("after DeleteDay(2026-06-02): %s, want 10 rows on each other date and none on it", got)
	}
	s.Insert("default.e", `{"EventDate":"2026-06-02","WatchID":1000}`)
	if got := s.Count("default.e", true); got != 21 {
		t.Errorf("after one insert: %d rows, want 21", got)
	}
}

// standTables are the stand's tables the DDL lays out on 18.16, with their engines.
var standTables = []string{
	"ods.event_dist Distributed", "ods.event_errors_dist Distributed", "ods.event_errors_mv MaterializedView",
	"ods.event_errors_rep MergeTree", "ods.event_mv MaterializedView", "ods.event_rep ReplacingMergeTree",
	"ods.event_v View", "ods.order_dist Distributed", "ods.order_errors_dist Distributed",
	"ods.order_errors_rep MergeTree", "ods.order_rep ReplacingMergeTree", "ods.order_v View",
	"stg.hits_raw_dist Distributed", "stg.hits_raw_kafka Kafka", "stg.hits_raw_mv MaterializedView",
	"stg.hits_raw_rep MergeTree", "stg.orders_raw_dist Distributed", "stg.orders_raw_kafka Kafka",
	"stg.orders_raw_rep MergeTree",
}

// TestStandIntake lays out the stand's pipeline (its Kafka readers pointed at a port where no
// broker listens) and feeds the raw table directly: 2 000 clean events of day 0 and 60 injected
// messages of each hit error class. The clean events must land in ods.event with their own
// field values, every message exactly once in ods.event or ods.event_errors, and messages cut
// inside a value or holding a NUL byte (which crash 18.16's visitParamExtractRaw when it reads
// them unguarded) must leave the server up. How the 18.16 rendering files the garbage is
// logged; it differs from the stand's for some kinds (README in .ci/clickhouse).
func TestStandIntake(t *testing.T) {
	s := realclickhouse.Start(t, realclickhouse.Options{})
	start := time.Now()
	s.ApplyDDL("127.0.0.1:1", realclickhouse.Topics{})
	t.Logf("DDL applied in %v", time.Since(start).Round(time.Millisecond))
	got := strings.Split(s.Query("SELECT concat(database, '.', name, ' ', engine) FROM system.tables WHERE database IN ('stg', 'ods') ORDER BY database, name"), "\n")
	want := slices.Sorted(slices.Values(standTables))
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("tables:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	var clean [][]byte
	err = w.Play(context.Background(), 0, 1, world.PlayOptions{}, func(b *world.Batch) error {
		for i := range b.Msgs {
			if len(clean) < 2000 {
				clean = append(clean, b.Value(i))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.InsertRaw("stg.hits_raw_rep", clean...)
	if n := s.Count("ods.event_rep", false); n != int64(len(clean)) {
		t.Fatalf("ods.event_rep holds %d rows after %d clean events, want all of them", n, len(clean))
	}
	if n := s.Count("ods.event_errors_rep", false); n != 0 {
		t.Fatalf("ods.event_errors_rep holds %d rows after clean events only, want 0", n)
	}
	// Every column of a few events as the server stored it, against the message.
	for _, i := range []int{0, 777, 1999} {
		msg := decode(t, clean[i])
		row := decode(t, []byte(s.Query("SELECT * FROM ods.event_rep WHERE WatchID = "+canon(msg["WatchID"])+" FORMAT JSONEachRow")))
		if len(msg) != 47 {
			t.Fatalf("event %d has %d keys, want the contract's 47", i, len(msg))
		}
		for key, want := range msg {
			stored := row[key]
			if key == "UTCEventTime" { // DateTime is written "2026-06-01 20:00:00"
				stored = strings.Replace(fmt.Sprint(stored), " ", "T", 1) + "Z"
			}
			got := canon(stored)
			if got != canon(want) {
				t.Errorf("event %d, column %s: stored %s, sent %s", i, key, got, canon(want))
			}
		}
	}

	classes := []string{world.GarbageNotAnObject, world.GarbageKeysetMismatch, world.GarbageKeyUnparsed, world.GarbageAcceptedBad}
	var sent int
	for _, class := range classes {
		extras, err := w.Inject("hits", class, 0, 60)
		if err != nil {
			t.Fatal(err)
		}
		var msgs [][]byte
		for _, e := range extras {
			msgs = append(msgs, e.Value)
		}
		// The class rides in kafka_topic, which the error view carries over.
		s.Query("ALTER TABLE stg.hits_raw_rep MODIFY COLUMN kafka_topic String DEFAULT '" + class + "'")
		s.InsertRaw("stg.hits_raw_rep", msgs...)
		sent += len(msgs)
	}
	s.Query("ALTER TABLE stg.hits_raw_rep MODIFY COLUMN kafka_topic String DEFAULT 'crash'")
	s.InsertRaw("stg.hits_raw_rep", []byte(`{"WatchID":1443058733645975,"VisitID":6`), []byte("{\"WatchID\":1\x00,\"VisitID\":2}"))
	sent += 2
	if got := s.Query("SELECT 1"); got != "1" {
		t.Fatalf("the server after the garbage: %q", got)
	}
	errs := s.Count("ods.event_errors_rep", false)
	events := s.Count("ods.event_rep", false) - int64(len(clean))
	if errs+events != int64(sent) {
		t.Errorf("%d malformed messages made %d error rows and %d event rows: want each exactly once", sent, errs, events)
	}
	t.Logf("18.16's classes of the injected messages (sent as → filed as, count):\n%s",
		s.Query("SELECT kafka_topic, error_class, count() FROM ods.event_errors_rep GROUP BY kafka_topic, error_class ORDER BY kafka_topic, error_class"))
	if n := s.Int("SELECT count() FROM ods.event_errors_rep WHERE kafka_topic = 'not_an_object' AND error_class != 'not_an_object'"); n != 0 {
		t.Errorf("%d not_an_object messages filed under another class", n)
	}
}

// decode parses one JSON object keeping numbers as written.
func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return m
}

// canon writes a JSON value so that the message's and the server's spelling of one value
// agree: a number or a string holding one (the server quotes 64-bit integers and writes
// Decimal(18, 2) with two decimals) as its exact rational value, an array element by element.
func canon(v any) string {
	switch v := v.(type) {
	case json.Number:
		return rat(string(v))
	case string:
		return rat(v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = canon(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprint(v)
}

func rat(s string) string {
	if r, ok := new(big.Rat).SetString(s); ok && s != "" && !strings.ContainsAny(s, "/eExX") {
		return r.RatString()
	}
	return strconv.Quote(s)
}

// TestStatements splits SQL text as ApplyDDL does.
func TestStatements(t *testing.T) {
	got := realclickhouse.Statements("-- a comment\nCREATE DATABASE a;\n\nCREATE TABLE a.t\n(\n    x String -- why\n)\nENGINE = Memory;\nSELECT ';'  ;\n")
	want := []string{"CREATE DATABASE a", "CREATE TABLE a.t\n(\n    x String -- why\n)\nENGINE = Memory", "SELECT ';'  "}
	if !slices.Equal(got, want) {
		t.Errorf("Statements = %q, want %q", got, want)
	}
}
