package intake

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/internal/cmdtest"
	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/internal/tier/chdb"
)

// The engine tier: the same corpus through the real ClickHouse (chDB 26.7, libchdb.so). It
// runs where CLICKGEN_TIERS selects chdb (internal/testenv).

var engine struct {
	once sync.Once
	dir  string
	s    *chdb.Session
	err  error
}

// built is the clickgen command the tests run as a separate process, compiled once per run of
// the test binary (clickgenBinary).
var built cmdtest.Built

// engineParallel is how many of the engine's tests run at once unless -parallel says: the
// tests whose time is waiting (stress runs followed through the engine's Kafka tables, Kafka
// nodes starting, the engine's flushes) run beside the others (t.Parallel), each in databases
// of its own names, through the one session (its statements run one at a time). The store
// tests, which build the stand's own databases (stg, ods, dm) and judge how still they are,
// run alone before them. go test's default (GOMAXPROCS, two on the CI machine) left the
// package's waits one after another: 157 s, the last two minutes of a CI run.
const engineParallel = 4

func TestMain(m *testing.M) {
	testenv.DefaultParallel(engineParallel)
	code := testenv.Main(m)
	if engine.s != nil {
		engine.s.Close()
	}
	if engine.dir != "" {
		os.RemoveAll(engine.dir)
	}
	built.Remove()
	os.Exit(code)
}

// clickgenBinary is the command, built once per run of the test binary (TestMain removes it).
func clickgenBinary(t *testing.T) string {
	t.Helper()
	return built.Path(t)
}

// openEngine returns the test binary's one chDB session (chDB allows one data path per
// process), skipping or failing when the library is missing.
func openEngine(t *testing.T) *chdb.Session {
	t.Helper()
	testenv.Need(t, testenv.ChDB, chdb.Missing())
	engine.once.Do(func() {
		engine.dir, engine.err = os.MkdirTemp("", "clickgen-chdb-")
		if engine.err != nil {
			return
		}
		engine.s, engine.err = chdb.Open(chdb.Config{Path: engine.dir})
	})
	if engine.err != nil {
		t.Fatal(engine.err)
	}
	return engine.s
}

// engineRows classifies the non-empty samples in ClickHouse: each row is the sample's index
// followed by the values of exprs (over the column raw), all as strings ("" for NULL is
// distinguished as nil).
func engineRows(t *testing.T, s *chdb.Session, samples []sample, exprs ...string) map[int][]*string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "corpus.tsv")
	var b strings.Builder
	for i, smp := range samples {
		if len(smp.raw) > 0 {
			fmt.Fprintf(&b, "%d\t%s\n", i, hex.EncodeToString(smp.raw))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cols := make([]string, len(exprs))
	for i, e := range exprs {
		cols[i] = "toString(" + e + ")"
	}
	q := fmt.Sprintf("SELECT n, %s FROM (SELECT n, unhex(h) AS raw FROM file(%s, 'TSV', 'n UInt32, h String')) ORDER BY n",
		strings.Join(cols, ", "), Quote(path))
	out, err := s.Query(q, "JSONCompactEachRow")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[int][]*string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var row []*string
		var n int
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("engine row %q: %v", line, err)
		}
		if err := json.Unmarshal(raw[0], &n); err != nil {
			t.Fatal(err)
		}
		for _, r := range raw[1:] {
			var v *string
			if err := json.Unmarshal(r, &v); err != nil {
				t.Fatal(err)
			}
			row = append(row, v)
		}
		rows[n] = row
	}
	return rows
}

// reporter reports disagreements and stops the test after the first 25, which are enough
// to read.
type reporter struct {
	t *testing.T
	n int
}

func (r *reporter) errorf(format string, args ...any) {
	r.t.Helper()
	r.t.Errorf(format, args...)
	if r.n++; r.n >= 25 {
		r.t.Fatalf("stopping after %d disagreements", r.n)
	}
}

func str(p *string) string {
	if p == nil {
		return "NULL"
	}
	return *p
}

// TestEngineAgreesOnHits: for every message of the hit corpus (hand-made kinds of every
// class, plus thousands of random mutations aimed at the parsers), ClickHouse's HitClassSQL
// and ClassifyHit give the same class, and for accepted hits the same dedup key.
func TestEngineAgreesOnHits(t *testing.T) {
	s := openEngine(t)
	samples := append(hitSamples(t), fuzzHits(t, envInt("FUZZN_H", 4000), uint64(envInt("FUZZSEED", 7)))...)
	rows := engineRows(t, s, samples,
		HitClassSQL(),
		fmt.Sprintf("JSONExtract(raw, %s, 'Nullable(UInt64)')", Quote(hitWatchID)),
		fmt.Sprintf("JSONExtract(raw, %s, 'Nullable(Date)')", Quote(hitEventDate)))
	r := &reporter{t: t}
	agree, byClass := 0, map[string]int{}
	for i, smp := range samples {
		class, row := ClassifyHit(smp.raw)
		got, inEngine := rows[i]
		if !row {
			if inEngine {
				r.errorf("%s: no row expected, engine has one", smp.name)
			}
			continue
		}
		if !inEngine {
			t.Fatalf("%s: missing from the engine's output", smp.name)
		}
		if ec := str(got[0]); ec != class {
			r.errorf("%s: engine %q, ClassifyHit %q\n\t%q", smp.name, ec, class, truncate(smp.raw))
			continue
		}
		if class == "" {
			k, _ := HitDedupKey(smp.raw)
			if w, d := str(got[1]), str(got[2]); w != strconv.FormatUint(k.WatchID, 10) || d != k.EventDate.String() {
				r.errorf("%s: engine key (%s, %s), HitDedupKey (%s, %d)\n\t%q", smp.name, d, w, k.EventDate, k.WatchID, truncate(smp.raw))
				continue
			}
		}
		agree++
		byClass[class]++
	}
	t.Logf("hits: %d of %d messages agree; by class %v", agree, len(samples), byClass)
}

// TestEngineAgreesOnOrders is the same for orders and OrderClassSQL.
func TestEngineAgreesOnOrders(t *testing.T) {
	s := openEngine(t)
	samples := append(orderSamples(t), fuzzOrders(t, envInt("FUZZN_O", 3000), uint64(envInt("FUZZSEED", 11)))...)
	rows := engineRows(t, s, samples,
		OrderClassSQL(),
		fmt.Sprintf("JSONExtractString(raw, %s)", Quote(orderID)))
	r := &reporter{t: t}
	agree, byClass := 0, map[string]int{}
	for i, smp := range samples {
		class, row := ClassifyOrder(smp.raw)
		got, inEngine := rows[i]
		if !row {
			if inEngine {
				r.errorf("%s: no row expected, engine has one", smp.name)
			}
			continue
		}
		if !inEngine {
			t.Fatalf("%s: missing from the engine's output", smp.name)
		}
		if ec := str(got[0]); ec != class {
			r.errorf("%s: engine %q, ClassifyOrder %q\n\t%q", smp.name, ec, class, truncate(smp.raw))
			continue
		}
		if class == "" {
			if k, _ := OrderDedupKey(smp.raw); str(got[1]) != k {
				r.errorf("%s: engine order_id %q, OrderDedupKey %q", smp.name, str(got[1]), k)
				continue
			}
		}
		agree++
		byClass[class]++
	}
	t.Logf("orders: %d of %d messages agree; by class %v", agree, len(samples), byClass)
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}
