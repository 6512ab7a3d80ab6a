package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// verifyBound bounds one verify process: a verify that does not end within it hangs.
const verifyBound = 5 * time.Minute

// storeRun is one `clickgen verify --clickhouse` process and what it left.
type storeRun struct {
	code           int
	stdout, stderr string
	report         *store.Result // nil when it wrote none
	reportText     string
	took           time.Duration
}

// verifyCmd is the command line of `clickgen verify --clickhouse` against s's server as
// realclickhouse.User, with a report into file, then args and the stand's world flags; the
// stand has no marts view. The
// stand's start built the command.
func (s *realStand) verifyCmd(ctx context.Context, password, file string, args ...string) *exec.Cmd {
	all := append(append([]string{"verify", "--clickhouse", s.ch.UserURL(), "--marts-view", "", "--report", file}, args...), s.world...)
	cmd := exec.CommandContext(ctx, s.bin, all...)
	cmd.Env = append(os.Environ(), "CLICKHOUSE_PASSWORD="+password)
	return cmd
}

// verifyStore runs verify to its end (at most verifyBound) with CLICKHOUSE_PASSWORD set to
// password, and checks that neither that password nor the server's shows in what it printed
// or wrote.
func (s *realStand) verifyStore(t *testing.T, password string, args ...string) storeRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), verifyBound)
	defer cancel()
	file := filepath.Join(t.TempDir(), "verify.json")
	cmd := s.verifyCmd(ctx, password, file, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := storeRun{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("clickgen verify %q did not end within %v:\n%s", args, verifyBound, r.stderr)
	}
	r.code = exitCodeOf(t, err)
	s.readReport(t, &r, file, password)
	return r
}

// judged says whether the report holds a judgement of the store (a result's "store" key),
// not only a failure's ok false and error, which every failed verify writes.
func (r storeRun) judged() bool {
	return r.report != nil && strings.Contains(r.reportText, `"store":`) && !strings.Contains(r.reportText, `"store": ""`)
}

// exitCodeOf is a finished process's exit code.
func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("clickgen verify: %v", err)
	return -1
}

// readReport reads the report file into r, if verify wrote one, and checks that no password
// shows anywhere.
func (s *realStand) readReport(t *testing.T, r *storeRun, file, password string) {
	t.Helper()
	if b, err := os.ReadFile(file); err == nil {
		r.reportText = string(b)
		r.report = &store.Result{}
		if err := json.Unmarshal(b, r.report); err != nil {
			t.Fatalf("the report: %v\n%s", err, b)
		}
	}
	for _, p := range []string{password, s.ch.Password()} {
		for what, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "the report": r.reportText} {
			if p != "" && strings.Contains(text, p) {
				t.Errorf("the password %q shows in %s", p, what)
			}
		}
	}
}

// eventRows is `WatchID → ClientID` of a query answering those two columns (any two UInt64s:
// idCounts reads counts with it).
func eventRows(t *testing.T, ch *realclickhouse.Server, sql string) map[uint64]uint64 {
	t.Helper()
	m := map[uint64]uint64{}
	out := ch.Query(sql)
	if out == "" {
		return m
	}
	for line := range strings.SplitSeq(out, "\n") {
		w, c, _ := strings.Cut(line, "\t")
		id, err1 := strconv.ParseUint(w, 10, 64)
		client, err2 := strconv.ParseUint(c, 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: a line %q", sql, line)
		}
		m[id] = client
	}
	return m
}

// counts answers a query of two integers.
func counts(t *testing.T, ch *realclickhouse.Server, sql string) (int, int) {
	t.Helper()
	a, b, _ := strings.Cut(ch.Query(sql), "\t")
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: %q %q, want two integers", sql, a, b)
	}
	return x, y
}

// mustDiffer checks that a verify found differences: exit 1, the table on stdout saying so.
func mustDiffer(t *testing.T, r storeRun) {
	t.Helper()
	if r.code != 1 || r.report == nil || r.report.OK || !strings.Contains(r.stdout, "\nDIFFERS: ") || !strings.Contains(r.stderr, "the store differs") {
		t.Fatalf("exit %d; want 1 with the differences listed:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// mustAgree checks that a verify found the store exact.
func mustAgree(t *testing.T, r storeRun) {
	t.Helper()
	if r.code != 0 || r.report == nil || !r.report.OK || !strings.Contains(r.stdout, "\nOK: ") {
		t.Fatalf("exit %d; want 0, the store exact:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// othersOK checks that every table of the report but the ones named agrees.
func othersOK(t *testing.T, res *store.Result, differing ...string) {
	t.Helper()
	heads := map[string]*store.TableHead{}
	if res.Events != nil {
		heads["events"] = &res.Events.TableHead
	}
	if res.Raw != nil {
		heads["raw"] = &res.Raw.TableHead
	}
	if res.Errors != nil {
		heads["errors"] = &res.Errors.TableHead
	}
	if res.Orders != nil {
		heads["orders"] = &res.Orders.TableHead
	}
	if res.OrderErrors != nil {
		heads["order errors"] = &res.OrderErrors.TableHead
	}
	for _, name := range slices.Sorted(maps.Keys(heads)) {
		if h := heads[name]; h.OK == slices.Contains(differing, name) {
			t.Errorf("%s %s: OK %v, differences %d %s", name, h.Table, h.OK, h.Differences, h.Error)
		}
	}
}

// lastLines is the end of a text, for the log.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// waitGroupCaughtUp waits until the stand's consumer group of hits has committed the topic's
// end offsets: the engine has read, written and committed every message sent.
func (s *realStand) waitGroupCaughtUp(t *testing.T, bound time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	var ends, got map[int32]int64
	waitFor(t, ctx, "the consumer group "+realclickhouse.HitsGroup+" committing the end of hits", func() error {
		return admin(t, s.brokers, func(adm *kadm.Client) error {
			listed, err := adm.ListEndOffsets(ctx, "hits")
			if err != nil {
				return err
			}
			ends = map[int32]int64{}
			listed.Each(func(o kadm.ListedOffset) { ends[o.Partition] = o.Offset })
			committed, err := adm.FetchOffsets(ctx, realclickhouse.HitsGroup)
			if err != nil {
				return err
			}
			got = map[int32]int64{}
			committed.Each(func(o kadm.OffsetResponse) {
				if o.Topic == "hits" {
					got[o.Partition] = o.At
				}
			})
			if !maps.Equal(got, ends) {
				return fmt.Errorf("committed %v, end offsets %v", got, ends)
			}
			return nil
		})
	})
}

// firstMessage is the first hit of a day of the world of a scale (judgedWorld's), as sent.
func firstMessage(t *testing.T, day int, scale float64) []byte {
	t.Helper()
	w, err := world.NewWorld(world.Params{Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	var msg []byte
	errEnough := errors.New("enough")
	err = w.Play(context.Background(), day, 1, world.PlayOptions{}, func(b *world.Batch) error {
		msg = bytes.Clone(b.Value(0))
		return errEnough
	})
	if !errors.Is(err, errEnough) {
		t.Fatalf("day %d: %v", day, err)
	}
	return msg
}

// idCounts answers a query of (UInt64, count) rows as a map.
func idCounts(t *testing.T, ch *realclickhouse.Server, sql string) map[uint64]int {
	t.Helper()
	m := map[uint64]int{}
	for id, n := range eventRows(t, ch, sql) {
		m[id] = int(n)
	}
	return m
}

// moreThanOnce is the keys of m held more than once, with their counts.
func moreThanOnce(m map[uint64]int) map[uint64]int {
	out := map[uint64]int{}
	for k, n := range m {
		if n > 1 {
			out[k] = n
		}
	}
	return out
}

func sumCounts(m map[uint64]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// sentHits is the WatchIDs and the SipHash64 of the messages of hits days [from, from+n) of
// the world, as batch sends them.
func sentHits(t *testing.T, from, n int) (ids, hashes map[uint64]bool) {
	t.Helper()
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	ids, hashes = map[uint64]bool{}, map[uint64]bool{}
	err = w.Play(context.Background(), from, n, world.PlayOptions{}, func(b *world.Batch) error {
		for i := range b.Msgs {
			ids[b.WatchID(i)] = true
			hashes[store.SipHash64(b.Value(i))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, hashes
}

// listedEvents is the WatchIDs a report lists as kind, with their rows (1 for missing ones).
func listedEvents(res *store.Result, kind string) map[uint64]int {
	m := map[uint64]int{}
	for _, d := range res.Events.Diffs {
		if d.Kind == kind {
			m[d.WatchID] = max(d.Rows, 1)
		}
	}
	return m
}

// listedRaw is the hashes a report lists as kind in the raw table, with their rows.
func listedRaw(t *testing.T, res *store.Result, kind string) map[uint64]int {
	t.Helper()
	m := map[uint64]int{}
	for _, d := range res.Raw.Diffs {
		if d.Kind != kind {
			continue
		}
		h, err := strconv.ParseUint(d.Hash, 10, 64)
		if err != nil {
			t.Fatalf("raw listed %+v: its hash is no sipHash64", d)
		}
		m[h] = d.Rows
	}
	return m
}

// sameSet fails t unless got and want hold the same keys with the same counts.
func sameSet(t *testing.T, what string, got, want map[uint64]int) {
	t.Helper()
	bad := 0
	for k, n := range want {
		if got[k] != n {
			bad++
			if bad <= 5 {
				t.Errorf("%s: %d listed with %d rows, want %d", what, k, got[k], n)
			}
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			bad++
			if bad <= 5 {
				t.Errorf("%s: %d listed with %d rows, want it not listed", what, k, n)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d listed, %d wanted, %d differ", what, len(got), len(want), bad)
	}
}

// TestRealClickHouseVerify: the fill world// TestRealClickHouseVerify: the fill world through real Kafka into the real server, then
// verify --clickhouse (the built command, as a user with a password) finds the store exact,
// and each fault exactly: a day deleted (the missing WatchIDs are that day's), rows inserted
// (the unplanned ones are those), a day replayed (copies, exit 0; exit 1 with
// --exactly-once), the server killed while consuming and restarted (what it lost or holds
// twice, as SQL counts it), --wait while the engine consumes, a wrong password, and a server
// that stops answering (exit 1 within --timeout, before the first query and mid-read).
func TestRealClickHouseVerify(t *testing.T) {
	t.Parallel() // its own servers: it waits on them beside the other real tiers
	s, inv := fillRealStand(t, judgedWorld)
	fill := []string{"--day", "0", "--days", "8"}
	password := s.ch.Password()

	t.Run("exact", func(t *testing.T) {
		r := s.verifyStore(t, password, fill...)
		mustAgree(t, r)
		rep := r.report
		if rep.Events.Total.Present != *inv.Expect.Hits.ODSEvents || rep.Raw.Total.Present != inv.Expect.Hits.StgRows ||
			rep.Orders.Total.Present != *inv.Expect.Orders.ODSOrders || rep.Errors.Total.Planned != 0 || rep.OrderErrors.Total.Planned != 0 {
			t.Errorf("report: events %d, raw %d, orders %d, error rows planned %d and %d; inventory %d, %d, %d, none",
				rep.Events.Total.Present, rep.Raw.Total.Present, rep.Orders.Total.Present, rep.Errors.Total.Planned, rep.OrderErrors.Total.Planned,
				*inv.Expect.Hits.ODSEvents, inv.Expect.Hits.StgRows, *inv.Expect.Orders.ODSOrders)
		}
		t.Logf("verify --clickhouse %s of the fill world: exit 0 in %v\n%s", strings.Join(fill, " "), r.took.Round(time.Millisecond), lastLines(r.stdout, 3))
	})

	t.Run("a day deleted", func(t *testing.T) {
		ch := s.ch.In(t)
		day := 2
		date := inv.Days[day].Date
		held := eventRows(t, ch, "SELECT WatchID, ClientID FROM ods.event_rep WHERE EventDate = '"+date+"'")
		if len(held) != *inv.Days[day].Expect.ODSEvents {
			t.Fatalf("%s holds %d WatchIDs before the delete, want %d", date, len(held), *inv.Days[day].Expect.ODSEvents)
		}
		ch.Query("CREATE TABLE ods.event_kept AS ods.event_rep")
		ch.Query("INSERT INTO ods.event_kept SELECT * FROM ods.event_rep WHERE EventDate = '" + date + "'")
		ch.DeleteDay("ods.event_rep", date)
		defer func() {
			ch.Query("INSERT INTO ods.event_rep SELECT * FROM ods.event_kept")
			ch.Query("DROP TABLE ods.event_kept")
		}()

		r := s.verifyStore(t, password, fill...)
		mustDiffer(t, r)
		ev := r.report.Events
		if d := ev.Dates[day]; d.Missing != len(held) || d.Present != 0 || ev.Differences != len(held) || len(ev.Diffs) != len(held) {
			t.Errorf("%s: missing %d, present %d; %d differences, %d listed; want the %d deleted missing", date, d.Missing, d.Present, ev.Differences, len(ev.Diffs), len(held))
		}
		for _, d := range ev.Diffs {
			if client, ok := held[d.WatchID]; !ok || d.Kind != store.KindMissing || d.Date != date || d.ClientID != client {
				t.Fatalf("listed %+v; want only the deleted rows of %s (WatchID %d: deleted %v, ClientID %d)", d, date, d.WatchID, ok, client)
			}
			delete(held, d.WatchID)
		}
		if len(held) != 0 {
			t.Errorf("%d deleted WatchIDs not listed missing", len(held))
		}
		othersOK(t, r.report, "events")
		t.Logf("ALTER TABLE ods.event_rep DELETE WHERE EventDate = '%s': exit 1 in %v, %d missing listed\n%s", date, r.took.Round(time.Millisecond),
			len(ev.Diffs), lastLines(r.stdout, 6))
	})

	t.Run("rows inserted", func(t *testing.T) {
		ch := s.ch.In(t)
		now := ch.Query("SELECT toString(now())")
		// A hit of day 2 under a WatchID no day has, and a line that is no JSON object, as
		// the Kafka reader would have passed them on: each a raw row, the first an event of
		// day 2, the second an error row; and two events of day 4 inserted into ODS alone.
		base := firstMessage(t, 2, judgedScale)
		rest := base[bytes.IndexByte(base, ',')+1:]
		const x, y, z = uint64(1<<62 + 1), uint64(1<<62 + 2), uint64(1<<62 + 3)
		msg := append([]byte(`{"WatchID":`+strconv.FormatUint(x, 10)+","), rest...)
		garbage := []byte("clickgen-test: not a JSON object")
		if n := ch.Int(fmt.Sprintf("SELECT count() FROM ods.event_rep WHERE WatchID IN (%d, %d, %d)", x, y, z)); n != 0 {
			t.Fatalf("the store already holds %d rows of the WatchIDs to insert", n)
		}
		var rows []string
		for _, m := range [][]byte{msg, garbage} {
			raw, _ := json.Marshal(string(m))
			rows = append(rows, fmt.Sprintf(`{"raw":%s,"kafka_topic":"hits","_load_ts":"%s"}`, raw, now))
		}
		ch.Insert("stg.hits_raw_rep", rows...)
		day4 := inv.Days[4].Date
		ch.Insert("ods.event_rep",
			fmt.Sprintf(`{"WatchID":%d,"ClientID":71,"EventDate":"%s","CounterID":42150607,"_load_ts":"%s"}`, y, day4, now),
			fmt.Sprintf(`{"WatchID":%d,"ClientID":72,"EventDate":"%s","CounterID":42150607,"_load_ts":"%s"}`, z, day4, now))
		hMsg, hGarbage := store.SipHash64(msg), store.SipHash64(garbage)
		defer func() {
			ch.DeleteWhere("ods.event_rep", fmt.Sprintf("WatchID IN (%d, %d, %d)", x, y, z))
			ch.DeleteWhere("stg.hits_raw_rep", fmt.Sprintf("sipHash64(raw) IN (%d, %d)", hMsg, hGarbage))
			ch.DeleteWhere("ods.event_errors_rep", fmt.Sprintf("sipHash64(raw) = %d", hGarbage))
			mustAgree(t, s.verifyStore(t, password, fill...))
		}()
		clientX, err := strconv.ParseUint(ch.Query(fmt.Sprintf("SELECT ClientID FROM ods.event_rep WHERE WatchID = %d", x)), 10, 64)
		if err != nil {
			t.Fatalf("the inserted hit did not reach ods.event_rep: %v", err)
		}

		r := s.verifyStore(t, password, fill...)
		mustDiffer(t, r)
		rep := r.report
		wantEvents := map[uint64]store.EventDiff{
			x: {Kind: store.KindUnplanned, Date: inv.Days[2].Date, WatchID: x, ClientID: clientX, Rows: 1},
			y: {Kind: store.KindUnplanned, Date: day4, WatchID: y, ClientID: 71, Rows: 1},
			z: {Kind: store.KindUnplanned, Date: day4, WatchID: z, ClientID: 72, Rows: 1},
		}
		if rep.Events.Total.Unplanned != 3 || rep.Events.Differences != 3 || len(rep.Events.Diffs) != 3 {
			t.Errorf("events: %d unplanned, %d differences: %+v; want the 3 inserted", rep.Events.Total.Unplanned, rep.Events.Differences, rep.Events.Diffs)
		}
		for _, d := range rep.Events.Diffs {
			if d != wantEvents[d.WatchID] {
				t.Errorf("events listed %+v, want %+v", d, wantEvents[d.WatchID])
			}
		}
		wantRaw := map[string]store.DigestDiff{
			strconv.FormatUint(hMsg, 10):     {Kind: store.KindUnplanned, Day: -1, Hash: strconv.FormatUint(hMsg, 10), Hint: inv.Days[2].Date, Rows: 1},
			strconv.FormatUint(hGarbage, 10): {Kind: store.KindUnplanned, Day: -1, Hash: strconv.FormatUint(hGarbage, 10), Rows: 1},
		}
		if rep.Raw.Unplanned != 2 || rep.Raw.Differences != 2 || len(rep.Raw.Diffs) != 2 {
			t.Errorf("raw: %d unplanned, %d differences: %+v; want the 2 inserted", rep.Raw.Unplanned, rep.Raw.Differences, rep.Raw.Diffs)
		}
		for _, d := range rep.Raw.Diffs {
			if d != wantRaw[d.Hash] {
				t.Errorf("raw listed %+v, want %+v", d, wantRaw[d.Hash])
			}
		}
		wantErr := store.DigestDiff{Kind: store.KindUnplanned, Day: -1, GotClass: "not_an_object", Hash: strconv.FormatUint(hGarbage, 10), Rows: 1}
		if rep.Errors.Unplanned != 1 || rep.Errors.Differences != 1 || len(rep.Errors.Diffs) != 1 || rep.Errors.Diffs[0] != wantErr {
			t.Errorf("errors: %d unplanned: %+v; want %+v", rep.Errors.Unplanned, rep.Errors.Diffs, wantErr)
		}
		othersOK(t, rep, "events", "raw", "errors")
		t.Logf("a hit and a non-object through stg.hits_raw_rep, two events into ods.event_rep: exit 1 in %v\n%s", r.took.Round(time.Millisecond), lastLines(r.stdout, 10))
	})

	t.Run("a day replayed", func(t *testing.T) {
		ch := s.ch.In(t)
		day := 3
		date, n, sent := inv.Days[day].Date, *inv.Days[day].Expect.ODSEvents, inv.Days[day].Expect.StgRows
		// No merge collapses the copies while they are counted here and by verify.
		ch.Query("SYSTEM STOP MERGES ods.event_rep")
		defer ch.Query("SYSTEM START MERGES ods.event_rep")
		raw, events := ch.Count("stg.hits_raw_rep", false), ch.Count("ods.event_rep", false)
		s.run(t, "batch", "--day", strconv.Itoa(day), "--brokers", s.brokers, "--topic", "hits")
		ch.WaitRows("stg.hits_raw_rep", raw+int64(sent))
		ch.WaitRows("ods.event_rep", events+int64(n))
		rows, distinct := counts(t, ch, "SELECT count(), uniqExact(WatchID) FROM ods.event_rep WHERE EventDate = '"+date+"'")

		r := s.verifyStore(t, password, fill...)
		mustAgree(t, r)
		rep := r.report
		if c := rep.Events.Dates[day].Copies; c != rows-distinct || c != n || rep.Events.Total.Copies != n {
			t.Errorf("events copies on %s: %d (total %d); SQL counts %d rows of %d WatchIDs, the day has %d events", date, c, rep.Events.Total.Copies, rows, distinct, n)
		}
		if c := rep.Raw.Units[day].Copies; c != sent || rep.Raw.Total.Copies != sent {
			t.Errorf("raw copies of day %d: %d (total %d), want its %d messages", day, c, rep.Raw.Total.Copies, sent)
		}
		t.Logf("batch --day %d again: exit 0 in %v; copies counted: events %d, raw %d", day, r.took.Round(time.Millisecond), rep.Events.Total.Copies, rep.Raw.Total.Copies)

		r = s.verifyStore(t, password, append(fill, "--exactly-once")...)
		mustDiffer(t, r)
		ev := r.report.Events
		if ev.Differences != n || r.report.Raw.Differences != sent {
			t.Errorf("--exactly-once: %d events differences, %d raw; want %d and %d", ev.Differences, r.report.Raw.Differences, n, sent)
		}
		for _, d := range ev.Diffs {
			if d.Kind != store.KindCopies || d.Date != date || d.Rows != 2 {
				t.Fatalf("--exactly-once listed %+v; want copies of %s, 2 rows each", d, date)
			}
		}
		othersOK(t, r.report, "events", "raw")
		t.Logf("--exactly-once: exit 1 in %v\n%s", r.took.Round(time.Millisecond), lastLines(r.stdout, 4))
	})

	t.Run("killed while consuming", func(t *testing.T) {
		ch := s.ch.In(t)
		// The new days of the stand's own world (sentHits'), not the tenth the rest plays:
		// the kill must find more than one block to write. Three days are two blocks and a
		// part (a fourth added only rows to send and compare).
		s := &realStand{kafka: s.kafka, ch: s.ch, brokers: s.brokers, bin: s.bin}
		from, days := 8, 3
		next := s.inventory(t, from, days)
		dates := make([]string, len(next.Days))
		for i, d := range next.Days {
			dates[i] = "'" + d.Date + "'"
		}
		in := strings.Join(dates, ", ")
		s.play(t, from, days, false)
		// Killed once the engine has written its first block of the new days (a block is
		// 65 536 messages; the days are about 150 000).
		ch.WaitCount("SELECT count() FROM stg.hits_raw_rep WHERE visitParamExtractString(raw, 'EventDate') IN ("+in+")", 1)
		ch.Kill()
		start := time.Now()
		ch.Restart()
		// Before the engine's consumer is back in its group (the killed member's session
		// lasts 6 s): what the kill left.
		atKill := ch.Int("SELECT count() FROM stg.hits_raw_rep WHERE visitParamExtractString(raw, 'EventDate') IN (" + in + ")")
		if atKill >= int64(next.Expect.Hits.StgRows) {
			t.Fatalf("the engine had written all %d messages (%d raw rows) before the kill: not killed mid-consumption", next.Expect.Hits.StgRows, atKill)
		}
		ch.Query("SYSTEM STOP MERGES ods.event_rep") // the copies stay as counted
		defer ch.Query("SYSTEM START MERGES ods.event_rep")
		s.waitGroupCaughtUp(t, 3*time.Minute)
		t.Logf("killed with %d of %d raw rows written; restarted, and the group caught up %v later", atKill, next.Expect.Hits.StgRows, time.Since(start).Round(time.Millisecond))

		// What the store holds of the new days, row by row, against what was sent. The
		// engine commits a stream's offsets before it writes the stream's last block, so the
		// group's catching up does not say the store is still: the store is read before and
		// after both verifies (without and with --exactly-once), and they are judged against a
		// store that did not change meanwhile: the last block of the events may land after
		// the raw table's, seconds after a store that looked still (seen at load 10).
		heldNow := func() (map[uint64]int, map[uint64]int) {
			return idCounts(t, ch, "SELECT WatchID, count() FROM ods.event_rep WHERE EventDate IN ("+in+") GROUP BY WatchID"),
				idCounts(t, ch, "SELECT sipHash64(raw), count() FROM stg.hits_raw_rep WHERE visitParamExtractString(raw, 'EventDate') IN ("+in+") GROUP BY sipHash64(raw)")
		}
		args := []string{"--day", strconv.Itoa(from), "--days", strconv.Itoa(days), "--orders-table", "", "--order-errors-table", ""}
		var held, heldRaw map[uint64]int
		var r, once storeRun
		for attempt := 1; ; attempt++ {
			held, heldRaw = heldNow()
			r = s.verifyStore(t, password, args...)
			once = s.verifyStore(t, password, append(args, "--exactly-once")...)
			after, afterRaw := heldNow()
			if maps.Equal(held, after) && maps.Equal(heldRaw, afterRaw) {
				break
			}
			if attempt == 5 {
				t.Fatalf("the store still changed while the two verifies read it, %d times", attempt)
			}
			t.Logf("the store changed while the two verifies read it (event rows %d → %d, raw rows %d → %d): again", sumCounts(held), sumCounts(after), sumCounts(heldRaw), sumCounts(afterRaw))
		}
		sentIDs, sentHashes := sentHits(t, from, days)
		lost, lostRaw := map[uint64]int{}, map[uint64]int{}
		for id := range sentIDs {
			if held[id] == 0 {
				lost[id] = 1
			}
		}
		for h := range sentHashes {
			if heldRaw[h] == 0 {
				lostRaw[h] = 1
			}
		}
		twice, twiceRaw := moreThanOnce(held), moreThanOnce(heldRaw)
		rows, rawRows := sumCounts(held), sumCounts(heldRaw)
		if r.report == nil {
			t.Fatalf("exit %d, no report:\n%s", r.code, r.stderr)
		}
		rep := r.report
		ev, raw := rep.Events.Total, rep.Raw.Total
		if ev.Present != len(held) || ev.Missing != len(lost) || ev.Copies != rows-len(held) || ev.Unplanned != 0 || ev.Rows != int64(rows) {
			t.Errorf("events: present %d, missing %d, copies %d, unplanned %d, rows %d; the store holds %d rows of %d WatchIDs, %d sent WatchIDs not",
				ev.Present, ev.Missing, ev.Copies, ev.Unplanned, ev.Rows, rows, len(held), len(lost))
		}
		if raw.Present != len(heldRaw) || raw.Missing != len(lostRaw) || raw.Copies != rawRows-len(heldRaw) || rep.Raw.Unplanned != 0 {
			t.Errorf("raw: present %d, missing %d, copies %d, unplanned %d; the store holds %d rows of %d messages, %d sent messages not",
				raw.Present, raw.Missing, raw.Copies, rep.Raw.Unplanned, rawRows, len(heldRaw), len(lostRaw))
		}
		// Listed: exactly the lost WatchIDs and messages.
		sameSet(t, "events listed missing", listedEvents(rep, store.KindMissing), lost)
		sameSet(t, "raw listed missing", listedRaw(t, rep, store.KindMissing), lostRaw)
		exact := len(lost) == 0 && len(lostRaw) == 0
		if wantCode := map[bool]int{true: 0, false: 1}[exact]; r.code != wantCode || rep.OK != exact {
			t.Errorf("exit %d, OK %v with %d WatchIDs and %d messages lost; want exit %d", r.code, rep.OK, len(lost), len(lostRaw), wantCode)
		}
		t.Logf("over the kill: %d messages sent; the store holds %d raw rows (%d messages lost, %d held twice or more) and %d event rows (%d WatchIDs lost, %d held twice or more); verify: exit %d in %v, events missing %d copies %d, raw missing %d copies %d\n%s",
			len(sentHashes), rawRows, len(lostRaw), len(twiceRaw), rows, len(lost), len(twice), r.code, r.took.Round(time.Millisecond),
			ev.Missing, ev.Copies, raw.Missing, raw.Copies, lastLines(r.stdout, 4))

		// With --exactly-once the copies are listed too: exactly what the store holds more
		// than once, with its number of rows.
		if once.report == nil {
			t.Fatalf("--exactly-once: exit %d, no report:\n%s", once.code, once.stderr)
		}
		sameSet(t, "--exactly-once: events listed copies", listedEvents(once.report, store.KindCopies), twice)
		sameSet(t, "--exactly-once: raw listed copies", listedRaw(t, once.report, store.KindCopies), twiceRaw)
		if wantCode := map[bool]int{true: 0, false: 1}[exact && len(twice) == 0 && len(twiceRaw) == 0]; once.code != wantCode {
			t.Errorf("--exactly-once: exit %d with %d and %d lost, %d and %d held twice; want %d", once.code, len(lost), len(lostRaw), len(twice), len(twiceRaw), wantCode)
		}
		t.Logf("--exactly-once: exit %d in %v\n%s", once.code, once.took.Round(time.Millisecond), lastLines(once.stdout, 4))
	})

	t.Run("--wait while the engine consumes", func(t *testing.T) {
		day := 12
		next := s.inventory(t, day, 1)
		ctx, cancel := context.WithTimeout(context.Background(), verifyBound)
		defer cancel()
		file := filepath.Join(t.TempDir(), "verify.json")
		cmd := s.verifyCmd(ctx, password, file, "--day", strconv.Itoa(day), "--days", "1", "--orders-table", "", "--order-errors-table", "", "--wait", "3m")
		v := startAwaiting(t, ctx, cmd, "verify: waiting (", "verify ended without waiting", "verify printed no waiting line")
		// Verify waits; only now is the day sent.
		s.play(t, day, 1, false)
		err := v.wait()
		if ctx.Err() != nil {
			t.Fatalf("verify --wait did not end within %v:\n%s", verifyBound, v.errb.String())
		}
		r := storeRun{stdout: v.out.String(), stderr: v.errb.String(), code: exitCodeOf(t, err)}
		s.readReport(t, &r, file, password)
		mustAgree(t, r)
		want := *next.Expect.Hits.ODSEvents
		if !strings.Contains(r.stderr, fmt.Sprintf("events 0/%d", want)) || !strings.Contains(r.stderr, "verify: the store caught up after") ||
			r.report.Events.Total.Present != want {
			t.Errorf("want a waiting line at events 0/%d, the catch-up said, and %d events present (%d):\n%s", want, want, r.report.Events.Total.Present, r.stderr)
		}
		var lines []string
		for line := range strings.SplitSeq(r.stderr, "\n") {
			if strings.Contains(line, "wait") || strings.Contains(line, "caught up") {
				lines = append(lines, line)
			}
		}
		t.Logf("verify --wait 3m started before batch --day %d: exit 0\n%s", day, strings.Join(lines, "\n"))
	})

	t.Run("a wrong password", func(t *testing.T) {
		wrong := "wrong-" + password + "-7f3c"
		r := s.verifyStore(t, wrong, fill...)
		if r.code != 1 || r.stdout != "" || r.judged() || !strings.Contains(r.stderr, "refused the credentials") ||
			!strings.Contains(r.stderr, "CLICKHOUSE_PASSWORD") {
			t.Fatalf("exit %d, report %v; want 1 saying the credentials were refused and where the password comes from, nothing judged:\n%s\n%s",
				r.code, r.judged(), r.stdout, r.stderr)
		}
		t.Logf("exit 1 in %v: %s", r.took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
	})

	// A server that stops answering ends verify by --timeout, which the error names: a read
	// that did not end at the timeout would end at the test's bound (verifyBound) instead.
	// How long the client waits is the ClickHouse client's to test, not a shared machine's.
	t.Run("a server that stops answering", func(t *testing.T) {
		const timeout = 4 * time.Second
		ch := s.ch.In(t)

		// Frozen before verify starts: the first answer never comes.
		ch.Pause()
		r := s.verifyStore(t, password, append(fill, "--timeout", timeout.String())...)
		ch.Resume()
		if r.code != 1 || r.judged() || !strings.Contains(r.stderr, "cannot read ClickHouse") || !strings.Contains(r.stderr, "(--timeout)") {
			t.Errorf("a frozen server: exit %d after %v, judged %v; want 1 naming --timeout:\n%s", r.code, r.took, r.judged(), r.stderr)
		}
		t.Logf("frozen before: exit %d after %v: %s", r.code, r.took.Round(time.Millisecond), strings.TrimSpace(r.stderr))

		// Frozen once verify has judged its first date: the read in flight, or the next one,
		// gets no byte.
		ctx, cancel := context.WithTimeout(context.Background(), verifyBound)
		defer cancel()
		file := filepath.Join(t.TempDir(), "verify.json")
		cmd := s.verifyCmd(ctx, password, file, append(fill, "--timeout", timeout.String())...)
		v := startAwaiting(t, ctx, cmd, "ods.event_dist "+inv.Days[0].Date+":", "verify ended before judging "+inv.Days[0].Date, "verify judged no date")
		ch.Pause()
		paused := time.Now()
		defer ch.Resume()
		err := v.wait()
		took := time.Since(paused)
		if ctx.Err() != nil {
			t.Fatalf("verify did not end within %v of the freeze:\n%s", verifyBound, v.errb.String())
		}
		r = storeRun{stdout: v.out.String(), stderr: v.errb.String(), code: exitCodeOf(t, err)}
		s.readReport(t, &r, file, password)
		if r.code != 1 || r.judged() || !strings.Contains(r.stderr, "(--timeout)") {
			t.Errorf("a server frozen mid-read: exit %d %v after the freeze, judged %v; want 1 naming --timeout:\n%s", r.code, took, r.judged(), r.stderr)
		}
		t.Logf("frozen mid-read: exit %d %v after the freeze: %s", r.code, took.Round(time.Millisecond), lastLines(r.stderr, 1))
	})
}

// awaited is a verify process started by startAwaiting: its stdout and stderr, read to their
// end by wait.
type awaited struct {
	cmd       *exec.Cmd
	out, errb bytes.Buffer
	scanned   chan struct{} // closed when stderr has been read to its end
}

// wait waits for the process's stderr to end and for the process, returning its error.
func (a *awaited) wait() error {
	<-a.scanned
	return a.cmd.Wait()
}

// startAwaiting starts cmd and returns once a line of its stderr holds want: the event a
// subtest acts on (send the day, freeze the server). It fails the test with ended when the
// process ends first, with never when ctx (the subtest's bound) ends first.
func startAwaiting(t *testing.T, ctx context.Context, cmd *exec.Cmd, want, ended, never string) *awaited {
	t.Helper()
	a := &awaited{cmd: cmd, scanned: make(chan struct{})}
	cmd.Stdout = &a.out
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := make(chan struct{})
	go func() {
		defer close(a.scanned)
		sc := bufio.NewScanner(pipe)
		said := false
		for sc.Scan() {
			a.errb.WriteString(sc.Text() + "\n")
			if !said && strings.Contains(sc.Text(), want) {
				said = true
				close(seen)
			}
		}
	}()
	select {
	case <-seen:
	case <-a.scanned:
		cmd.Wait()
		t.Fatalf("%s:\n%s", ended, a.errb.String())
	case <-ctx.Done():
		t.Fatal(never)
	}
	return a
}
