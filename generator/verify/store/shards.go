package store

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/clickhouse/chtype"
	"github.com/clickgen/clickgen/generator/verify/intake"
)

// Cluster is what a probe found of the cluster behind a Distributed table: its name and
// its shards, as the server's system.clusters lists them.
type Cluster struct {
	Name string
	// Shards are in shard_num order; none when the server defines no cluster of that name.
	Shards []Shard
}

// check says why the cluster's shards cannot be told apart, "" when they can: a server listed
// in two shards (its address in both) has its table read once for each, and which shard sent
// a row cannot be told.
func (c *Cluster) check() string {
	seen := map[string]int{}
	for _, s := range c.Shards {
		for _, a := range append(slices.Clip(s.Replicas), s.addrs...) {
			if o, ok := seen[a]; ok && o != s.Num {
				return fmt.Sprintf("cluster %s lists %s in shards %d and %d: a read through it reads that server's table once for each, and which shard sent a row cannot be told",
					storeText([]byte(c.Name)), a, o, s.Num)
			}
			seen[a] = s.Num
		}
	}
	return ""
}

// Shard is one shard of a cluster: its number (shard_num, counted from 1) and the addresses
// of its replicas (host:port of the native protocol, as system.clusters gives them).
type Shard struct {
	Num      int
	Replicas []string
	// addrs are the replicas' addresses by host_address too, which a server's error may
	// name instead.
	addrs []string
}

func (s Shard) String() string {
	if len(s.Replicas) == 0 {
		return "shard " + strconv.Itoa(s.Num)
	}
	return fmt.Sprintf("shard %d (%s)", s.Num, strings.Join(s.Replicas, ", "))
}

// shard returns the shard numbered num.
func (c *Cluster) shard(num int) (Shard, bool) {
	for _, s := range c.Shards {
		if s.Num == num {
			return s, true
		}
	}
	return Shard{}, false
}

// ErrShard is wrapped by Verify's error when a table read through a Distributed table could
// not be read from every shard of its cluster: a shard did not answer (refused the
// connection, or was left out without an error, as a reader's profile with
// skip_unavailable_shards = 1 lets the server do), failed while it answered, or cannot be
// told to have answered. Verify judges no partial read.
var ErrShard = errors.New("cannot be read whole")

// ShardError is an error of [ErrShard]'s kind: the table, the shards not read, why.
type ShardError struct {
	Table string
	// Cluster is the cluster the table reads; Shards the shards not read (all of them when
	// the server's error named none).
	Cluster string
	Shards  []Shard
	// Why says what happened, in words; Err is the server's error, when there was one.
	Why string
	Err error
}

func (e *ShardError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v: ", storeText([]byte(e.Table)), ErrShard)
	if len(e.Shards) > 0 {
		names := make([]string, len(e.Shards))
		for i, s := range e.Shards {
			names[i] = s.String()
		}
		fmt.Fprintf(&b, "%s of cluster %s ", strings.Join(names, ", "), storeText([]byte(e.Cluster)))
	}
	b.WriteString(e.Why)
	var se *clickhouse.ServerError
	switch {
	case errors.As(e.Err, &se) && se.Code == codeAllConnectionTriesFailed:
		b.WriteString(": " + triesText(se))
	case e.Err != nil:
		b.WriteString(": " + errText(e.Err))
	}
	b.WriteString("; nothing was judged")
	return b.String()
}

func (e *ShardError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrShard}
	}
	return []error{ErrShard, e.Err}
}

// shardColumn names the column a read through a Distributed table tags each row with: the
// shard it came from.
const shardColumn = "_clickgen_shard"

// shardedSQL is the query of a read of table, a Distributed table over cl: "SELECT list
// FROM table [PREWHERE prewhere] [GROUP BY groupBy] [ORDER BY orderBy]" with each row after
// two columns, the number of the shard that sent it (UInt32) and 1 (UInt8); and, from every
// shard that answered, one more row: its number, 0, and list over the table's defaults.
//
// ClickHouse 18.16 has no _shard_num: the tag is the first shard number that is in the set of
// the shard's own (multiIf(toUInt32(1) IN (…), 1, …)), as the subquery of a non-GLOBAL IN
// runs on each shard, where system.clusters marks the server's own shard local; a shard that
// does not find itself there tags its rows 0. (An ARRAY JOIN of every shard's number, kept
// where it is the shard's own, copies every row once per shard before it drops the others:
// 2.5 times the plain read's time over a raw table on two shards.) A profile with
// skip_unavailable_shards = 1, which a read-only user cannot override, makes the server leave
// a shard that does not answer out of the answer without a word: the second part, a RIGHT
// JOIN of no row of the table (PREWHERE 0) with the shard's own number, answers one row from
// every shard that was read, whether or not it holds rows, so a shard left out is seen. Both
// parts need a MergeTree table on the shards (PREWHERE, _part_index).
func shardedSQL(table string, cl *Cluster, list, prewhere, groupBy, orderBy, settings string) string {
	local := "(SELECT DISTINCT toUInt32(shard_num) FROM system.clusters WHERE cluster = " + intake.Quote(cl.Name) + " AND is_local)"
	tag := "multiIf("
	for _, s := range cl.Shards {
		n := "toUInt32(" + strconv.Itoa(s.Num) + ")"
		tag += n + " IN " + local + ", " + n + ", "
	}
	tag += "toUInt32(0))"
	group := ""
	if groupBy != "" {
		group = " GROUP BY " + shardColumn + ", " + groupBy
	}
	var b strings.Builder
	b.WriteString("SELECT " + tag + " AS " + shardColumn + ", toUInt8(1), " + list + " FROM " + ident(table))
	if prewhere != "" {
		b.WriteString(" PREWHERE " + prewhere)
	}
	b.WriteString(group)
	if orderBy != "" {
		b.WriteString(" ORDER BY " + orderBy)
	}
	b.WriteString(settings)
	b.WriteString(" UNION ALL SELECT " + shardColumn + ", toUInt8(0), " + list + " FROM " + ident(table) +
		" ALL RIGHT JOIN (SELECT DISTINCT toUInt64(0) AS _part_index, toUInt32(shard_num) AS " + shardColumn +
		" FROM system.clusters WHERE cluster = " + intake.Quote(cl.Name) + " AND is_local) USING _part_index PREWHERE 0" + group + settings)
	return b.String()
}

// shardRead follows one read through a Distributed table: which shards answered.
type shardRead struct {
	table   string
	cl      *Cluster
	lenient string // why the server may leave a shard out without an error ("" when it may not)
	seen    []bool // by the shard's place in cl.Shards
}

func newShardRead(table string, cl *Cluster, lenient string) *shardRead {
	return &shardRead{table: table, cl: cl, lenient: lenient, seen: make([]bool, len(cl.Shards))}
}

// tag reads a row's two leading columns: the shard that sent it, and whether it is a row of
// the table (not the shard's answer alone).
func (r *shardRead) tag(rows *clickhouse.Rows) (shard int, real bool, err error) {
	s, err := rows.UInt32()
	if err != nil {
		return 0, false, err
	}
	k, err := rows.UInt8()
	if err != nil {
		return 0, false, err
	}
	i := slices.IndexFunc(r.cl.Shards, func(sh Shard) bool { return sh.Num == int(s) })
	if i < 0 {
		// Rows whose shard cannot be told cannot be told apart from copies on another.
		return 0, false, &ShardError{Table: r.table, Cluster: r.cl.Name,
			Why: fmt.Sprintf("a shard of cluster %s does not find itself in its system.clusters (is_local): which shard sent its rows cannot be told", storeText([]byte(r.cl.Name)))}
	}
	r.seen[i] = true
	return int(s), k == 1, nil
}

// whole returns a [ShardError] naming every shard that did not answer, nil when all did.
func (r *shardRead) whole() error {
	var missing []Shard
	for i, ok := range r.seen {
		if !ok {
			missing = append(missing, r.cl.Shards[i])
		}
	}
	if len(missing) == 0 {
		return nil
	}
	why := "did not answer"
	if r.lenient != "" {
		why += ": the server answered without it, and no error (" + r.lenient + ")"
	}
	return &ShardError{Table: r.table, Cluster: r.cl.Name, Shards: missing, Why: why}
}

// shardErr makes err, of a read of table through cl, a [ShardError] when the server failed
// to read a shard: an error naming one of its replicas' addresses, or the server's "all
// connection tries failed" (code 279) naming none; other errors are returned as they are.
//
// A read through cl that the server does not answer in time is a ShardError too, naming no
// shard: 18.16 waits for a shard that accepts connections and answers nothing (a frozen
// server) without a bound of its own, and says nothing of which shard it waits for.
func shardErr(table string, cl *Cluster, err error) error {
	var te *clickhouse.TimeoutError
	if cl != nil && errors.As(err, &te) && te.Phase != clickhouse.PhaseConnect {
		names := make([]string, len(cl.Shards))
		for i, s := range cl.Shards {
			names[i] = s.String()
		}
		return &ShardError{Table: table, Err: err, Why: fmt.Sprintf("the server did not answer in time; it reads every shard of cluster %s (%s), and a shard that accepts connections and answers nothing (a frozen server) holds the read as long as the server itself would",
			storeText([]byte(cl.Name)), strings.Join(names, ", "))}
	}
	var se *clickhouse.ServerError
	if cl == nil || !errors.As(err, &se) {
		return err
	}
	var named []Shard
	for _, s := range cl.Shards {
		if slices.ContainsFunc(append(slices.Clip(s.Replicas), s.addrs...), func(a string) bool { return namesAddr(se.Message, a) }) {
			named = append(named, s)
		}
	}
	switch {
	case len(named) > 0:
	case se.Code == codeAllConnectionTriesFailed:
		named = cl.Shards
	default:
		return err
	}
	return &ShardError{Table: table, Cluster: cl.Name, Shards: named, Why: "could not be read", Err: err}
}

// namesAddr says whether msg names the address addr (host:port), not a longer one
// (127.0.0.1:900 is not named by 127.0.0.1:9001).
func namesAddr(msg, addr string) bool {
	for i := 0; ; {
		j := strings.Index(msg[i:], addr)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(addr)
		if (j == 0 || !addrByte(msg[j-1])) && (end == len(msg) || msg[end] < '0' || msg[end] > '9') {
			return true
		}
		i = j + 1
	}
}

func addrByte(c byte) bool { return identByte(c) || c == '.' || c == '-' }

// innerException finds the exceptions an 18.16 "all connection tries failed" lists: each
// try's "Code: 210, e.displayText() = DB::NetException: Connection refused (host:port)".
var innerException = regexp.MustCompile(`Code: (\d+), e\.displayText\(\) = DB::[A-Za-z]*Exception: (.*?), e\.what\(\)`)

// triesText is a code 279 error in short: the server's words and each distinct failure of
// its tries, once ("code 279: All connection tries failed: Connection refused
// (127.0.0.1:9005) (code 210)").
func triesText(se *clickhouse.ServerError) string {
	msg, log, _ := strings.Cut(se.Message, " Log: ")
	var tries []string
	for _, m := range innerException.FindAllStringSubmatch(log, -1) {
		if t := m[2] + " (code " + m[1] + ")"; !slices.Contains(tries, t) {
			tries = append(tries, t)
		}
	}
	if len(tries) == 0 {
		return errText(se)
	}
	return chtype.Escape([]byte(fmt.Sprintf("code %d: %s: %s", se.Code, strings.TrimSuffix(msg, "."), strings.Join(tries, "; "))), maxErrorText)
}

// codeAllConnectionTriesFailed is ClickHouse's ALL_CONNECTION_TRIES_FAILED: no replica of a
// shard could be reached.
const codeAllConnectionTriesFailed = 279

// ShardRows is the rows read from one shard of the cluster behind a Distributed table.
type ShardRows struct {
	Shard int `json:"shard"`
	// Replicas are the shard's replicas' addresses (in a table's head only).
	Replicas []string `json:"replicas,omitempty"`
	Rows     int64    `json:"rows"`
}

// shardCounter counts rows by shard number.
type shardCounter []int64

func (c *shardCounter) add(shard int, n int64) {
	if shard <= 0 {
		return
	}
	for len(*c) <= shard {
		*c = append(*c, 0)
	}
	(*c)[shard] += n
}

func (c *shardCounter) merge(o shardCounter) {
	for s, n := range o {
		c.add(s, n)
	}
}

// list returns the counts of every shard of cl (and of any other shard counted), in order.
func (c shardCounter) list(cl *Cluster, replicas bool) []ShardRows {
	if cl == nil {
		return nil
	}
	var out []ShardRows
	for _, s := range cl.Shards {
		r := ShardRows{Shard: s.Num}
		if replicas {
			r.Replicas = s.Replicas
		}
		if s.Num < len(c) {
			r.Rows = c[s.Num]
		}
		out = append(out, r)
	}
	for s, n := range c {
		if _, ok := cl.shard(s); !ok && n > 0 {
			out = append(out, ShardRows{Shard: s, Rows: n})
		}
	}
	return out
}

// shardSet is the shards a key's rows came from: the first, then any other.
type shardSet struct {
	first int
	more  []int
}

func (s *shardSet) reset(shard int) { s.first, s.more = shard, s.more[:0] }

func (s *shardSet) add(shard int) {
	if shard != s.first && !slices.Contains(s.more, shard) {
		s.more = append(s.more, shard)
	}
}

// split says whether the key's rows came from more than one shard.
func (s *shardSet) split() bool { return len(s.more) > 0 }

// list returns the shards, sorted, comma-separated: "1, 2".
func (s *shardSet) list() string {
	out := append([]int{s.first}, s.more...)
	slices.Sort(out)
	t := make([]string, len(out))
	for i, n := range out {
		t[i] = strconv.Itoa(n)
	}
	return strings.Join(t, ", ")
}

// shardsText says a difference's shards ("1, 2") in words: "shards 1 and 2", "shards 1, 2
// and 3".
func shardsText(shards string) string {
	s := strings.Split(shards, ", ")
	if len(s) < 2 {
		return "shard " + shards
	}
	return "shards " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
