package intake

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/clickgen/clickgen/schema"
)

//go:embed sql/*.sql
var sqlFiles embed.FS

// utcEventTimeFormat is the format the stand parses UTCEventTime with (MySQL syntax).
const utcEventTimeFormat = "%Y-%m-%dT%H:%i:%SZ"

// Joda formats of the order intake (parseDateTime64InJodaSyntaxOrNull).
const (
	jodaMillis = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
	jodaDate   = "yyyy-MM-dd"
)

var sqlTemplates = template.Must(template.New("").Funcs(template.FuncMap{
	"q":     Quote,
	"ident": QuoteIdent,
	"array": quoteArray,
}).ParseFS(sqlFiles, "sql/*.sql"))

// Quote returns s as a ClickHouse string literal: single quotes, with backslashes and quotes
// escaped.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// QuoteIdent returns name as a ClickHouse identifier in backquotes.
func QuoteIdent(name string) string {
	return "`" + strings.ReplaceAll(strings.ReplaceAll(name, `\`, `\\`), "`", "\\`") + "`"
}

func quoteArray(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := sqlTemplates.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("intake: render %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

func mustRender(name string, data any) string {
	s, err := render(name, data)
	if err != nil {
		panic(err) // the templates are embedded and their data fixed: a bug, caught by tests
	}
	return s
}

// HitClassSQL returns the stand's intake of hits as one ClickHouse expression over a column
// named raw (String): the empty string for a row that goes to ods.event, else the first
// failing error class of [HitClasses]. It never yields NULL and never throws, so a condition
// "expr is empty" and its literal negation split a stream without gap or overlap. The text comes from the
// embedded sql/hit_class.sql with key names from package schema; the result is the same on
// every call.
var HitClassSQL = sync.OnceValue(func() string {
	return mustRender("hit_class.sql", map[string]any{
		"NotAnObject":      NotAnObject,
		"KeysetMismatch":   KeysetMismatch,
		"KeyFieldUnparsed": KeyFieldUnparsed,
		"SortedKeys":       sortedHitKeys,
		"WatchID":          hitWatchID,
		"VisitID":          hitVisitID,
		"ClientID":         hitClientID,
		"EventDate":        hitEventDate,
		"UTCEventTime":     hitUTCEventTime,
		"TimeFormat":       utcEventTimeFormat,
	})
})

// OrderClassSQL returns the stand's intake of orders as one ClickHouse expression over a
// column named raw (String): the empty string for a row that goes to ods.order, else the
// first failing error class of [OrderClasses]. Total like [HitClassSQL]; from the embedded
// sql/order_class.sql with key names and patterns from package schema.
var OrderClassSQL = sync.OnceValue(func() string {
	return mustRender("order_class.sql", map[string]any{
		"NotAnObject":    NotAnObject,
		"KeysetMismatch": KeysetMismatch,
		"FieldInvalid":   FieldInvalid,
		"SortedKeys":     sortedOrderKeys,
		"OrderID":        orderID,
		"Status":         orderStatus,
		"UserID":         orderUserID,
		"Items":          orderItems,
		"Times":          []string{orderCreatedAt, orderUpdatedAt},
		"Money":          orderMoney[:],
		"SnapshotDate":   orderSnapshotDate,
		"PatternMillis":  schema.PatternMillis,
		"PatternMoney":   schema.PatternMoney,
		"PatternDate":    schema.PatternDate,
		"JodaMillis":     jodaMillis,
		"JodaDate":       jodaDate,
	})
})

// HitsPipeline describes the stand's ingestion of topic hits on a single ClickHouse node, as
// the seeds' storage.md lays it out (Replicated/Distributed engines replaced by their local
// counterparts): a Kafka table in RawBLOB format, an ingest materialized view into
// STG.hits_raw_rep (raw row plus delivery metadata), and two parse views that split the raw
// rows by [HitClassSQL] into ODS.event_rep (typed, ReplacingMergeTree by WatchID, partitioned
// by EventDate) and ODS.event_errors_rep (with error_class). The zero value plus Brokers is
// usable.
type HitsPipeline struct {
	// Brokers is kafka_broker_list, e.g. "127.0.0.1:9092". Required.
	Brokers string
	// Topic is kafka_topic_list, overriding the default of "hits".
	Topic string
	// Group is kafka_group_name, overriding the default of "clickstream_hits".
	Group string
	// STG and ODS name the two databases, overriding the defaults of "stg" and "ods".
	STG, ODS string
	// Flush is kafka_flush_interval_ms, overriding ClickHouse's default of 7.5 s; a short
	// flush makes small test batches visible sooner.
	Flush time.Duration
}

func (p HitsPipeline) withDefaults() HitsPipeline {
	if p.Topic == "" {
		p.Topic = "hits"
	}
	if p.Group == "" {
		p.Group = "clickstream_hits"
	}
	if p.STG == "" {
		p.STG = "stg"
	}
	if p.ODS == "" {
		p.ODS = "ods"
	}
	if p.Flush == 0 {
		p.Flush = 7500 * time.Millisecond
	}
	return p
}

// Validate reports a missing broker list, database names that are not plain identifiers,
// or a flush interval below a millisecond.
func (p HitsPipeline) Validate() error {
	p = p.withDefaults()
	if p.Brokers == "" {
		return errors.New("intake: HitsPipeline needs Brokers")
	}
	if err := checkDatabases(p.STG, p.ODS); err != nil {
		return err
	}
	if p.Flush < time.Millisecond {
		return fmt.Errorf("intake: flush interval %v below 1ms", p.Flush)
	}
	return nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// RawTable names the raw table, STG.hits_raw_rep: one row per non-empty message delivered.
func (p HitsPipeline) RawTable() string { return p.withDefaults().STG + ".hits_raw_rep" }

// EventTable names the typed event table, ODS.event_rep; count it with FINAL.
func (p HitsPipeline) EventTable() string { return p.withDefaults().ODS + ".event_rep" }

// ErrorTable names the error table, ODS.event_errors_rep, with its error_class column.
func (p HitsPipeline) ErrorTable() string { return p.withDefaults().ODS + ".event_errors_rep" }

// KafkaTable names the pipeline's Kafka engine table.
func (p HitsPipeline) KafkaTable() string { return p.withDefaults().STG + ".hits_raw_kafka" }

type pipelineColumn struct {
	Name, Ident, Type, Kind string
}

// DDL renders the pipeline's statements in the order they must run (databases, tables,
// parse views, and the ingest view last, which starts consumption). Like the stand's DDL they
// all say IF NOT EXISTS, so running them again is harmless and changes nothing.
func (p HitsPipeline) DDL() ([]string, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p = p.withDefaults()
	cols := make([]pipelineColumn, len(schema.HitColumns))
	for i, c := range schema.HitColumns {
		pc := pipelineColumn{Name: c.Name, Ident: QuoteIdent(c.Name), Type: c.Type, Kind: "other"}
		switch c.Name {
		case hitWatchID, hitVisitID, hitClientID:
			pc.Kind = "id"
		case hitEventDate:
			pc.Kind = "date"
		case hitUTCEventTime:
			pc.Kind, pc.Type = "time", "DateTime('UTC')"
		}
		cols[i] = pc
	}
	text, err := render("hits_pipeline.sql", map[string]any{
		"STG":            p.STG,
		"ODS":            p.ODS,
		"Brokers":        p.Brokers,
		"Topic":          p.Topic,
		"Group":          p.Group,
		"FlushMillis":    p.Flush.Milliseconds(),
		"Columns":        cols,
		"EventDateIdent": QuoteIdent(hitEventDate),
		"WatchIDIdent":   QuoteIdent(hitWatchID),
		"TimeFormat":     utcEventTimeFormat,
		"Class":          HitClassSQL(),
	})
	if err != nil {
		return nil, err
	}
	return SplitStatements(text), nil
}

// OrdersPull describes the stand's pull ingestion of topic orders on a single node (stand.md,
// seeds adr-0008): a RawBLOB Kafka table without materialized view and with
// kafka_commit_on_select = 1, read by one direct SELECT per run into STG.orders_raw_rep (rows
// tagged with the run's load id), then split by [OrderClassSQL] into ODS.order_rep
// (ReplacingMergeTree(snapshot_date) ordered by order_id, partitioned by toDate(created_at))
// and ODS.order_errors_rep. The zero value plus Brokers is usable.
type OrdersPull struct {
	// Brokers is kafka_broker_list. Required.
	Brokers string
	// Topic is kafka_topic_list, overriding the default of "orders".
	Topic string
	// Group is kafka_group_name, overriding the default of "clickstream_orders".
	Group string
	// STG and ODS name the two databases, overriding the defaults of "stg" and "ods".
	STG, ODS string
}

func (p OrdersPull) withDefaults() OrdersPull {
	if p.Topic == "" {
		p.Topic = "orders"
	}
	if p.Group == "" {
		p.Group = "clickstream_orders"
	}
	if p.STG == "" {
		p.STG = "stg"
	}
	if p.ODS == "" {
		p.ODS = "ods"
	}
	return p
}

// Validate reports a missing broker list or database names that are not plain identifiers.
func (p OrdersPull) Validate() error {
	p = p.withDefaults()
	if p.Brokers == "" {
		return errors.New("intake: OrdersPull needs Brokers")
	}
	if err := checkDatabases(p.STG, p.ODS); err != nil {
		return err
	}
	return nil
}

// RawTable names the raw table, STG.orders_raw_rep, whose rows carry the pull's _load_id.
func (p OrdersPull) RawTable() string { return p.withDefaults().STG + ".orders_raw_rep" }

// OrderTable names the typed order table, ODS.order_rep; count it with FINAL.
func (p OrdersPull) OrderTable() string { return p.withDefaults().ODS + ".order_rep" }

// ErrorTable names the error table, ODS.order_errors_rep, with its error_class column.
func (p OrdersPull) ErrorTable() string { return p.withDefaults().ODS + ".order_errors_rep" }

func (p OrdersPull) render(name, loadID string) ([]string, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p = p.withDefaults()
	text, err := render(name, map[string]any{
		"STG":          p.STG,
		"ODS":          p.ODS,
		"Brokers":      p.Brokers,
		"Topic":        p.Topic,
		"Group":        p.Group,
		"LoadID":       loadID,
		"OrderID":      orderID,
		"UserID":       orderUserID,
		"Status":       orderStatus,
		"CreatedAt":    orderCreatedAt,
		"Times":        []string{orderCreatedAt, orderUpdatedAt},
		"Money":        orderMoney[:],
		"Items":        orderItems,
		"SnapshotDate": orderSnapshotDate,
		"JodaMillis":   jodaMillis,
		"JodaDate":     jodaDate,
		"Class":        OrderClassSQL(),
	})
	if err != nil {
		return nil, err
	}
	return SplitStatements(text), nil
}

// DDL renders the databases and tables, in order, all IF NOT EXISTS. Creating the Kafka
// table starts nothing:
// without a materialized view it is read only by [OrdersPull.Pull].
func (p OrdersPull) DDL() ([]string, error) { return p.render("orders_ddl", "") }

// Pull renders the one statement of a pull run: a direct SELECT from the Kafka table
// (stream_like_engine_allow_direct_select = 1) inserted into the raw table with _load_id =
// loadID. One SELECT returns what one Kafka poll delivers and commits its offsets; measured
// with chDB 26.7 and kfake, a pull that finds nothing new takes about 5 s to return empty.
func (p OrdersPull) Pull(loadID string) ([]string, error) { return p.render("orders_pull", loadID) }

// Parse renders the two INSERT SELECTs that split the raw rows of run loadID into the order
// table (class empty) and the error table (its literal negation).
func (p OrdersPull) Parse(loadID string) ([]string, error) { return p.render("orders_parse", loadID) }

// SplitStatements splits SQL text at semicolons outside string literals, quoted identifiers
// and comments, dropping empty statements and comment-only text.
func SplitStatements(text string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" && !onlyComments(s) {
			out = append(out, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(text) {
				if text[j] == '\\' {
					j += 2
					continue
				}
				if text[j] == c {
					if j+1 < len(text) && text[j+1] == c { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(text))
			cur.WriteString(text[i:end])
			i = end - 1
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				j = len(text) - i
			}
			cur.WriteString(text[i : i+j])
			i += j - 1
		case c == ';':
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out
}

func onlyComments(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "--") {
			return false
		}
	}
	return true
}

// checkDatabases reports a database name that is not a plain identifier (the names are
// spliced into the DDL).
func checkDatabases(names ...string) error {
	for _, db := range names {
		if !isIdent(db) {
			return fmt.Errorf("intake: database name %q is not a plain identifier", db)
		}
	}
	return nil
}
