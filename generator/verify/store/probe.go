package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/verify/intake"
)

// TableInfo is what a probe found of one named table, before anything is read from it.
type TableInfo struct {
	// Name is the table as named ("ods.event_dist", or "event_dist" in the current database).
	Name string
	// Exists says whether the server has it; the rest is empty when it does not.
	Exists bool
	// Engine is system.tables' engine: MergeTree, Distributed, View, Kafka…
	Engine string
	// Columns are the table's columns in their order, with their type names.
	Columns []ColumnInfo
	// Consumes, when not empty, says why reading the table would consume a stream or run
	// something (its engine, or the stream engine a view, a Distributed, Merge or Buffer
	// table reads through): such a table is never read.
	Consumes string
	// Reads names what a Distributed, Merge or Buffer table reads (the local table of a
	// Distributed one, on every shard of its cluster).
	Reads string
	// Cluster is, for a Distributed table, the cluster it reads and its shards: every one is
	// read, and a read that leaves one out is an error ([ErrShard]).
	Cluster *Cluster
	// Unguarded, when not empty, says why a read of the table could leave out a shard of a
	// cluster it reads through (a view over a Distributed table) without an error: the
	// reading user's profile skips unavailable shards, read-only. Such a table is not read.
	Unguarded string
}

// ColumnInfo is one column of a probed table.
type ColumnInfo struct {
	Name, Type string
}

// Column returns the column named name.
func (t *TableInfo) Column(name string) (ColumnInfo, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return ColumnInfo{}, false
}

// ErrConsumes is wrapped by Verify's error when a named table's read would consume a stream
// or have side effects (a Kafka, RabbitMQ, NATS or FileLog table, an Executable one, or a view,
// Distributed, Merge or Buffer table over one): nothing was read, from any table.
var ErrConsumes = errors.New("reading it would consume messages or run something")

// ConsumesError names the table and why it is not read.
type ConsumesError struct {
	Role, Table, Why string
}

func (e *ConsumesError) Error() string {
	return fmt.Sprintf("%s table %s: %s; %v", e.Role, storeText([]byte(e.Table)), e.Why, ErrConsumes)
}

func (e *ConsumesError) Unwrap() error { return ErrConsumes }

// streamEngines read a stream (and commit what they read) or run a program when SELECTed.
var streamEngines = []string{"Kafka", "RabbitMQ", "NATS", "FileLog", "S3Queue", "AzureQueue", "RedisStreams", "Executable", "ExecutablePool"}

// indirectEngines read other tables: a probe follows them to what they read.
var indirectEngines = []string{"View", "MaterializedView", "Distributed", "Merge", "Buffer"}

// isStream says whether engine consumes or runs something when read: a known stream engine,
// or any engine named like one (…Queue, …Stream, …Streams).
func isStream(engine string) bool {
	return slices.Contains(streamEngines, engine) || strings.HasSuffix(engine, "Queue") ||
		strings.HasSuffix(engine, "Stream") || strings.HasSuffix(engine, "Streams")
}

// maxCreateQuery bounds the text of a view's query read by a probe.
const maxCreateQuery = 1 << 20

// Probe implements [Source]: system.tables and system.columns, never a SELECT from a table.
func (c *ClickHouse) Probe(ctx context.Context, tables []string) (map[string]*TableInfo, error) {
	current, err := c.scalarString(ctx, "SELECT currentDatabase()")
	if err != nil {
		return nil, err
	}
	full := func(name string) string {
		if strings.Contains(name, ".") {
			return name
		}
		return current + "." + name
	}
	var named []string
	for _, t := range tables {
		named = append(named, intake.Quote(full(t)))
	}
	rows, err := c.Client.Query(ctx, "SELECT database, name, engine, engine_full, substring(create_table_query, 1, "+fmt.Sprint(maxCreateQuery)+
		"), length(create_table_query) FROM system.tables WHERE concat(database, '.', name) IN ("+strings.Join(named, ", ")+")"+
		" OR engine IN ("+list(append(slices.Clone(streamEngines), indirectEngines...))+")"+
		" OR endsWith(engine, 'Queue') OR endsWith(engine, 'Stream') OR endsWith(engine, 'Streams')")
	if err != nil {
		return nil, err
	}
	all := map[string]*probed{}
	err = readRows(rows, func(r *clickhouse.Rows) error {
		var f [5][]byte
		for i := range f {
			if f[i], err = r.String(nil); err != nil {
				return err
			}
		}
		n, err := r.UInt64()
		if err != nil {
			return err
		}
		p := &probed{db: string(f[0]), name: string(f[1]), engine: string(f[2]), engineFull: string(f[3]), query: string(f[4]), cut: n > maxCreateQuery}
		all[p.db+"."+p.name] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	consumers := consumersOf(all)
	through := distributedOf(all)

	out := map[string]*TableInfo{}
	var clusters []string
	for _, t := range tables {
		info := &TableInfo{Name: t}
		out[t] = info
		p := all[full(t)]
		if p == nil {
			continue
		}
		info.Exists, info.Engine, info.Consumes = true, p.engine, consumers[full(t)]
		info.Reads = p.reads()
		if a := p.engineArgs(); p.engine == "Distributed" && len(a) > 0 {
			info.Cluster = &Cluster{Name: unquoteIdent(a[0])}
			clusters = append(clusters, info.Cluster.Name)
		}
	}
	if err := c.probeShards(ctx, tables, full, out, through, clusters); err != nil {
		return nil, err
	}
	rows, err = c.Client.Query(ctx, "SELECT database, table, name, type FROM system.columns WHERE concat(database, '.', table) IN ("+strings.Join(named, ", ")+")")
	if err != nil {
		return nil, err
	}
	err = readRows(rows, func(r *clickhouse.Rows) error {
		var f [4][]byte
		for i := range f {
			if f[i], err = r.String(nil); err != nil {
				return err
			}
		}
		for _, t := range tables {
			if full(t) == string(f[0])+"."+string(f[1]) {
				out[t].Columns = append(out[t].Columns, ColumnInfo{Name: string(f[2]), Type: string(f[3])})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// probeShards finds the shards of the clusters the named Distributed tables read, and how
// this user's reads through Distributed tables are kept whole: when its profile lets it change
// settings, every query carries skip_unavailable_shards = 0, and a shard that does not answer
// is the server's error; when its profile skips unavailable shards read-only, a read of a
// Distributed table still tells the shards that answered (shardedSQL), but a view over one
// cannot, and is marked Unguarded. through holds the tables that read through a Distributed
// table (or are one), by full name.
func (c *ClickHouse) probeShards(ctx context.Context, tables []string, full func(string) string, out map[string]*TableInfo, through map[string]string, clusters []string) error {
	needed := false
	for _, t := range tables {
		needed = needed || through[full(t)] != ""
	}
	c.mu.Lock()
	c.clusters, c.settings, c.lenient = map[string]*Cluster{}, "", ""
	c.mu.Unlock()
	if !needed {
		return nil
	}
	rows, err := c.Client.Query(ctx, "SELECT name, value FROM system.settings WHERE name IN ('readonly', 'skip_unavailable_shards')")
	if err != nil {
		return err
	}
	set := map[string]string{}
	err = readRows(rows, func(r *clickhouse.Rows) error {
		name, err := r.String(nil)
		if err != nil {
			return err
		}
		value, err := r.String(nil)
		set[string(name)] = string(value)
		return err
	})
	if err != nil {
		return err
	}
	user := "the default user"
	if u := c.Client.UserName(); u != "" {
		user = "user " + storeText([]byte(u))
	}
	settings, lenient := "", ""
	switch {
	case set["readonly"] != "1":
		settings = " SETTINGS skip_unavailable_shards = 0"
	case set["skip_unavailable_shards"] != "0":
		lenient = fmt.Sprintf("%s's profile sets skip_unavailable_shards = %s, read-only (readonly = 1): verify cannot override it",
			user, storeText([]byte(set["skip_unavailable_shards"])))
	}
	byName := map[string]*Cluster{}
	if len(clusters) > 0 {
		rows, err := c.Client.Query(ctx, "SELECT cluster, toUInt32(shard_num), host_name, host_address, toUInt16(port) FROM system.clusters WHERE cluster IN ("+
			list(clusters)+") ORDER BY cluster, shard_num, replica_num")
		if err != nil {
			return err
		}
		err = readRows(rows, func(r *clickhouse.Rows) error {
			var f [4][]byte
			var num uint32
			var port uint16
			var err error
			if f[0], err = r.String(nil); err == nil {
				if num, err = r.UInt32(); err == nil {
					if f[1], err = r.String(nil); err == nil {
						if f[2], err = r.String(nil); err == nil {
							port, err = r.UInt16()
						}
					}
				}
			}
			if err != nil {
				return err
			}
			cl := byName[string(f[0])]
			if cl == nil {
				cl = &Cluster{Name: string(f[0])}
				byName[cl.Name] = cl
			}
			if n := len(cl.Shards); n == 0 || cl.Shards[n-1].Num != int(num) {
				cl.Shards = append(cl.Shards, Shard{Num: int(num)})
			}
			s := &cl.Shards[len(cl.Shards)-1]
			p := strconv.Itoa(int(port))
			s.Replicas = append(s.Replicas, storeText([]byte(net.JoinHostPort(string(f[1]), p))))
			if a := net.JoinHostPort(string(f[2]), p); string(f[2]) != "" && a != s.Replicas[len(s.Replicas)-1] {
				s.addrs = append(s.addrs, a)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settings, c.lenient = settings, lenient
	for _, t := range tables {
		info := out[t]
		switch {
		case info.Cluster != nil:
			if cl := byName[info.Cluster.Name]; cl != nil {
				info.Cluster = cl
			}
			c.clusters[t] = info.Cluster
		case through[full(t)] != "" && lenient != "":
			info.Unguarded = through[full(t)] + ", and " + lenient + ": a shard that does not answer would be left out without an error"
		}
	}
	return nil
}

// cluster returns the cluster a probed Distributed table reads, nil for other tables, and
// the clause every query carries.
func (c *ClickHouse) cluster(table string) (*Cluster, string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clusters[table], c.settings, c.lenient
}

// list is ss quoted as SQL strings, comma-separated.
func list(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = intake.Quote(s)
	}
	return strings.Join(q, ", ")
}

// scalarString answers a query of one String.
func (c *ClickHouse) scalarString(ctx context.Context, sql string) (string, error) {
	rows, err := c.Client.Query(ctx, sql)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	b, err := rows.String(nil)
	if err == nil {
		err = rows.End()
	}
	return string(b), err
}

// readRows calls row for every row of rows, then checks the answer's end.
func readRows(rows *clickhouse.Rows, row func(*clickhouse.Rows) error) error {
	defer rows.Close()
	for {
		more, err := rows.More()
		if err != nil {
			return err
		}
		if !more {
			return rows.End()
		}
		if err := row(rows); err != nil {
			return err
		}
	}
}

// probed is one row of system.tables.
type probed struct {
	db, name, engine, engineFull, query string
	cut                                 bool // the query was longer than read
}

// engineArgs are the literal arguments of engine_full's ENGINE(...), unquoted.
func (p *probed) engineArgs() []string {
	s := p.engineFull
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return nil
	}
	var args []string
	var cur strings.Builder
	depth, quoted := 0, false
	for i := open + 1; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			i++
		case c == '\'':
			quoted = !quoted
		case quoted:
			cur.WriteByte(c)
		case c == '(':
			depth++
			cur.WriteByte(c)
		case c == ')' && depth == 0:
			return append(args, strings.TrimSpace(cur.String()))
		case c == ')':
			depth--
			cur.WriteByte(c)
		case c == ',' && depth == 0:
			args = append(args, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return args
}

// reads names the table (or tables) a Distributed, Buffer or Merge table reads, a materialized
// view's target: "" for others.
func (p *probed) reads() string {
	a := p.engineArgs()
	switch p.engine {
	case "Distributed":
		if len(a) >= 3 {
			return unquoteIdent(a[1]) + "." + unquoteIdent(a[2]) + " on cluster " + unquoteIdent(a[0])
		}
	case "Buffer":
		if len(a) >= 2 {
			return unquoteIdent(a[0]) + "." + unquoteIdent(a[1])
		}
	case "Merge":
		if len(a) >= 2 {
			return "the tables of " + a[0] + " matching " + a[1]
		}
	case "MaterializedView":
		if to := p.mvTarget(); to != "" {
			return to
		}
	}
	return ""
}

func unquoteIdent(s string) string { return strings.Trim(strings.TrimSpace(s), "`\"") }

var mvTo = regexp.MustCompile("(?is)^CREATE\\s+MATERIALIZED\\s+VIEW\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?[`\"\\w.]+\\s+TO\\s+([`\"\\w.]+)")

// mvTarget is the table a materialized view writes to (TO db.table), "" when it has its own.
func (p *probed) mvTarget() string {
	m := mvTo.FindStringSubmatch(p.query)
	if m == nil {
		return ""
	}
	t := strings.ReplaceAll(strings.ReplaceAll(m[1], "`", ""), `"`, "")
	if !strings.Contains(t, ".") {
		t = p.db + "." + t
	}
	return t
}

// consumersOf returns the tables of all whose read consumes a stream or runs something, with
// why: the stream engines themselves, then, until nothing changes, the views whose query names
// one, the Distributed tables whose local table is one, the Merge tables that match one, the
// Buffer tables over one, and the materialized views writing to one.
func consumersOf(all map[string]*probed) map[string]string {
	out := map[string]string{}
	for k, p := range all {
		if isStream(p.engine) {
			out[k] = "its engine is " + p.engine
		}
	}
	return readersOf(all, out)
}

// distributedOf returns the tables of all that are Distributed, or read one (a view, a Merge
// or Buffer table, a materialized view over one), with why.
func distributedOf(all map[string]*probed) map[string]string {
	out := map[string]string{}
	for k, p := range all {
		if a := p.engineArgs(); p.engine == "Distributed" && len(a) > 0 {
			out[k] = "a Distributed table on cluster " + storeText([]byte(unquoteIdent(a[0])))
		}
	}
	return readersOf(all, out)
}

// readersOf adds to out, which holds tables of all with why each matters, until nothing
// changes, the tables that read one of them: the views whose query names one, the
// Distributed tables whose local table is one, the Merge tables that match one, the Buffer
// tables over one, and the materialized views writing to one.
func readersOf(all map[string]*probed, out map[string]string) map[string]string {
	for changed := true; changed; {
		changed = false
		for k, p := range all {
			if out[k] != "" {
				continue
			}
			why := ""
			switch p.engine {
			case "View":
				if p.cut {
					why = fmt.Sprintf("its query is longer than the %d bytes a probe reads", maxCreateQuery)
					break
				}
				for c := range out {
					if mentions(p.query, c) {
						why = "it reads " + c + ", " + out[c]
						break
					}
				}
			case "MaterializedView":
				if t := p.mvTarget(); out[t] != "" {
					why = "it is read from " + t + ", " + out[t]
				}
			case "Distributed", "Buffer":
				a := p.engineArgs()
				i := 1
				if p.engine == "Buffer" {
					i = 0
				}
				if len(a) > i+1 {
					t := unquoteIdent(a[i]) + "." + unquoteIdent(a[i+1])
					if out[t] != "" {
						why = "it reads " + t + ", " + out[t]
					}
				}
			case "Merge":
				a := p.engineArgs()
				if len(a) < 2 {
					break
				}
				re, err := regexp.Compile(unquoteIdent(a[1]))
				if err != nil {
					why = "its table pattern cannot be checked"
					break
				}
				db := unquoteIdent(a[0])
				for c := range out {
					cdb, cname, _ := strings.Cut(c, ".")
					if (cdb == db || strings.HasPrefix(a[0], "REGEXP")) && re.MatchString(cname) {
						why = "it reads " + c + ", " + out[c]
						break
					}
				}
			}
			if why != "" {
				out[k], changed = why, true
			}
		}
	}
	return out
}

// mentions says whether a view's query names the table db.name: its name as a word of the
// query (qualified or not, quoted or not). A name that only appears in a string or a comment
// counts too: such a view is refused rather than read on a guess.
func mentions(query, table string) bool {
	_, name, _ := strings.Cut(table, ".")
	for i := 0; ; {
		j := strings.Index(query[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !identByte(query[j-1])) && (end == len(query) || !identByte(query[end])) {
			return true
		}
		i = j + 1
	}
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
