package intake

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/schema"
)

func classLabel(class string, row bool) string {
	if !row {
		return vanish
	}
	return class
}

func TestClassifyHitTable(t *testing.T) {
	counts := map[string]int{}
	for _, s := range hitSamples(t) {
		got := classLabel(ClassifyHit(s.raw))
		counts[s.want]++
		if got != s.want {
			t.Errorf("%s: ClassifyHit = %q, want %q\n\t%q", s.name, got, s.want, truncate(s.raw))
		}
	}
	for _, c := range append([]string{"", vanish}, HitClasses[:]...) {
		if counts[c] < 1 {
			t.Errorf("corpus has no hit of class %q", c)
		}
	}
}

func TestClassifyOrderTable(t *testing.T) {
	counts := map[string]int{}
	for _, s := range orderSamples(t) {
		got := classLabel(ClassifyOrder(s.raw))
		counts[s.want]++
		if got != s.want {
			t.Errorf("%s: ClassifyOrder = %q, want %q\n\t%q", s.name, got, s.want, truncate(s.raw))
		}
	}
	for _, c := range append([]string{"", vanish}, OrderClasses[:]...) {
		if counts[c] < 1 {
			t.Errorf("corpus has no order of class %q", c)
		}
	}
}

func truncate(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

func TestHitDedupKey(t *testing.T) {
	pv := goldenFile(t, "hit_pageview.golden")
	date := func(y, m, d int) schema.Date {
		v, ok := schema.DateOf(y, m, d)
		if !ok {
			t.Fatalf("bad date %d-%d-%d", y, m, d)
		}
		return v
	}
	june3 := date(2026, 6, 3)
	for _, c := range []struct {
		name     string
		key, val string
		want     HitKey
	}{
		{"canonical", "WatchID", `4183920571234567`, HitKey{4183920571234567, june3}},
		{"id as a string", "WatchID", `"123"`, HitKey{123, june3}},
		{"id with a fraction", "WatchID", `1.9`, HitKey{1, june3}},
		{"id as a string with a fraction", "WatchID", `"7.5"`, HitKey{7, june3}},
		{"id true", "WatchID", `true`, HitKey{1, june3}},
		{"id nan", "WatchID", `"nan"`, HitKey{1 << 63, june3}},
		{"id above 2^53 as a string", "WatchID", `"9007199254740993"`, HitKey{9007199254740993, june3}},
		{"id above 2^53 with a fraction", "WatchID", `"9007199254740993.7"`, HitKey{9007199254740994, june3}},
		{"Feb 30 rolls over", "EventDate", `"2024-02-30"`, HitKey{4183920571234567, date(2024, 3, 1)}},
		{"June 31 rolls over", "EventDate", `"2026-6-31"`, HitKey{4183920571234567, date(2026, 7, 1)}},
		{"month 13", "EventDate", `"2026-13-45"`, HitKey{4183920571234567, 0}},
		{"before 1970", "EventDate", `"1969-12-31"`, HitKey{4183920571234567, 0}},
		{"after 2149-06-06", "EventDate", `"2300-01-01"`, HitKey{4183920571234567, 65535}},
		{"compact date", "EventDate", `"20260603"`, HitKey{4183920571234567, june3}},
	} {
		got, ok := HitDedupKey(withValue(t, pv, c.key, c.val))
		if !ok || got != c.want {
			t.Errorf("%s: HitDedupKey = %+v, %v; want %+v, true", c.name, got, ok, c.want)
		}
	}
	for _, raw := range [][]byte{nil, []byte("{}"), withValue(t, pv, "WatchID", `-1`)} {
		if k, ok := HitDedupKey(raw); ok {
			t.Errorf("HitDedupKey(%q) = %+v, true; want false", truncate(raw), k)
		}
	}
}

func TestOrderDedupKey(t *testing.T) {
	o := goldenFile(t, "order_example.golden")
	got, ok := OrderDedupKey(withValue(t, o, "order_id", `"20260601-\u0030042"`))
	if want := "20260601-0042"; !ok || got != want {
		t.Errorf("OrderDedupKey = %q, %v; want %q, true", got, ok, want)
	}
	if k, ok := OrderDedupKey(withValue(t, o, "total", `"-1.00"`)); ok {
		t.Errorf("OrderDedupKey(invalid) = %q, true; want false", k)
	}
}

func TestClassSQLUsesContract(t *testing.T) {
	for _, c := range []struct {
		name string
		sql  string
		keys []string
	}{
		{"hits", HitClassSQL(), schema.HitKeys()},
		{"orders", OrderClassSQL(), schema.OrderKeyNames()},
	} {
		sorted := slices.Clone(c.keys)
		slices.Sort(sorted)
		if !strings.Contains(c.sql, quoteArray(sorted)) {
			t.Errorf("%s: SQL lacks the sorted key list %s", c.name, quoteArray(sorted))
		}
		if strings.Contains(c.sql, "{{") || strings.Contains(c.sql, "<no value>") {
			t.Errorf("%s: SQL has template leftovers:\n%s", c.name, c.sql)
		}
		if n := strings.Count(c.sql, "("); n != strings.Count(c.sql, ")") {
			t.Errorf("%s: unbalanced parentheses in\n%s", c.name, c.sql)
		}
	}
	for _, p := range []string{schema.PatternMillis, schema.PatternMoney, schema.PatternDate} {
		if !strings.Contains(OrderClassSQL(), Quote(p)) {
			t.Errorf("order SQL lacks pattern %s", Quote(p))
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		`abc`:             `'abc'`,
		`it's`:            `'it\'s'`,
		`^\d+\.\d{2}$`:    `'^\\d+\\.\\d{2}$'`,
		"a\x00b":          `'a\0b'`,
		`yyyy'T'HH`:       `'yyyy\'T\'HH'`,
		`back\slash\'end`: `'back\\slash\\\'end'`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestSplitStatements(t *testing.T) {
	got := SplitStatements("-- head; comment\nSELECT ';' AS a; SELECT `x;y`, \"q;\"\n; -- tail only;\n;SELECT 'it''s;';")
	want := []string{"-- head; comment\nSELECT ';' AS a", "SELECT `x;y`, \"q;\"", "SELECT 'it''s;'"}
	if !slices.Equal(got, want) {
		t.Errorf("SplitStatements = %q, want %q", got, want)
	}
}

func TestHitsPipelineDDL(t *testing.T) {
	if _, err := (HitsPipeline{}).DDL(); err == nil {
		t.Error("DDL without brokers: no error")
	}
	if _, err := (HitsPipeline{Brokers: "b:1", STG: "stg; DROP"}).DDL(); err == nil {
		t.Error("DDL with a bad database name: no error")
	}
	stmts, err := HitsPipeline{Brokers: "127.0.0.1:9092"}.DDL()
	if err != nil {
		t.Fatal(err)
	}
	head := regexp.MustCompile(`(?m)^CREATE (DATABASE|TABLE|MATERIALIZED VIEW) IF NOT EXISTS ([a-z_.]+)`)
	var heads []string
	for _, s := range stmts {
		m := head.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("statement without CREATE:\n%s", s)
		}
		heads = append(heads, m[1]+" "+m[2])
	}
	want := []string{
		"DATABASE stg",
		"DATABASE ods",
		"TABLE stg.hits_raw_kafka",
		"TABLE stg.hits_raw_rep",
		"TABLE ods.event_rep",
		"TABLE ods.event_errors_rep",
		"MATERIALIZED VIEW ods.event_mv",
		"MATERIALIZED VIEW ods.event_errors_mv",
		"MATERIALIZED VIEW stg.hits_raw_mv",
	}
	if !slices.Equal(heads, want) {
		t.Errorf("DDL statements:\n%s\nwant\n%s", strings.Join(heads, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range schema.HitColumns {
		if !strings.Contains(stmts[4], QuoteIdent(c.Name)+" ") {
			t.Errorf("event table lacks column %s", c.Name)
		}
	}
}

// FuzzClassify checks, for arbitrary bytes, that both classifiers
//   - never panic and are deterministic;
//   - report no row exactly for the empty message;
//   - return one of their topic's classes or "";
//   - give a dedup key exactly for the messages they accept;
//   - never accept as JSON what RFC 8259 rejects (simdjson is stricter than encoding/json,
//     never looser), and never accept a message that is not a JSON object.
func FuzzClassify(f *testing.F) {
	for _, s := range hitSamples(f) {
		f.Add(s.raw)
	}
	for _, s := range orderSamples(f) {
		f.Add(s.raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		hc, hrow := ClassifyHit(raw)
		oc, orow := ClassifyOrder(raw)
		if hc2, _ := ClassifyHit(raw); hc2 != hc {
			t.Fatalf("ClassifyHit not deterministic: %q then %q", hc, hc2)
		}
		if hrow != (len(raw) > 0) || orow != (len(raw) > 0) {
			t.Fatalf("rows %v/%v for %d bytes", hrow, orow, len(raw))
		}
		if hc != "" && !slices.Contains(HitClasses[:], hc) {
			t.Fatalf("hit class %q", hc)
		}
		if oc != "" && !slices.Contains(OrderClasses[:], oc) {
			t.Fatalf("order class %q", oc)
		}
		if _, ok := HitDedupKey(raw); ok != (hrow && hc == "") {
			t.Fatalf("HitDedupKey ok = %v, class %q", ok, hc)
		}
		if _, ok := OrderDedupKey(raw); ok != (orow && oc == "") {
			t.Fatalf("OrderDedupKey ok = %v, class %q", ok, oc)
		}
		d, ok := parseDocument(raw)
		if ok && !json.Valid(bytes.TrimPrefix(raw, []byte("\xEF\xBB\xBF"))) {
			t.Fatalf("parsed as JSON but encoding/json rejects %q", raw)
		}
		if (hrow && hc != NotAnObject || orow && oc != NotAnObject) && (!ok || d.root.kind != kindObject) {
			t.Fatalf("classes %q/%q for a non-object", hc, oc)
		}
	})
}

func TestOrdersPullSQL(t *testing.T) {
	if _, err := (OrdersPull{}).DDL(); err == nil {
		t.Error("DDL without brokers: no error")
	}
	p := OrdersPull{Brokers: "127.0.0.1:9092"}
	ddl, err := p.DDL()
	if err != nil {
		t.Fatal(err)
	}
	if len(ddl) != 6 || !strings.Contains(ddl[2], "kafka_commit_on_select = 1") || !strings.Contains(ddl[2], "'clickstream_orders'") {
		t.Errorf("orders DDL: %d statements, Kafka table:\n%s", len(ddl), ddl[min(2, len(ddl)-1)])
	}
	pull, err := p.Pull("run'1")
	if err != nil {
		t.Fatal(err)
	}
	if len(pull) != 1 || !strings.Contains(pull[0], `'run\'1'`) || !strings.Contains(pull[0], "stream_like_engine_allow_direct_select = 1") {
		t.Errorf("pull statement:\n%q", pull)
	}
	parse, err := p.Parse("run-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(parse) != 2 || !strings.Contains(parse[0], OrderClassSQL()) || !strings.Contains(parse[1], "NOT (error_class = '')") {
		t.Errorf("parse statements:\n%s", strings.Join(parse, "\n;\n"))
	}
}
