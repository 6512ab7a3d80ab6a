package store

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/clickgen/clickgen/generator/internal/columns"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// MaxShown is how many differences the console table lists in all; the --report file lists
// them all (up to Options.MaxListed per table).
const MaxShown = 20

// WriteTable writes r as the console's table: a section per table read, a row per date (or
// snapshot, or closed day), then the differences (at most [MaxShown]) and the verdict. A
// cell reads "held≠planned" where the two differ.
func (r *Result) WriteTable(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "store: %s\n", r.Store)
	run := fmt.Sprintf("run: seed %d, scale %g, %s", r.Seed, r.Scale, world.Range{From: r.From, Days: r.Days, Garbage: r.Garbage}.Describe())
	if r.Segment != "" {
		run += "; segment " + r.Segment
	}
	fmt.Fprintln(ew, columns.Wrap(run, columns.Width, "  "))
	copies := "copies are rows FINAL collapses (a replay, at-least-once delivery), reported but not differences"
	if r.ExactlyOnce {
		copies = "--exactly-once: copies are differences"
	}
	fmt.Fprintln(ew, columns.Wrap(fmt.Sprintf("Cells count what the store holds; \"a≠b\": a held, b planned; %s.", copies), columns.Width, ""))
	if r.Columns == ColumnsKeys {
		fmt.Fprintln(ew, columns.Wrap("--columns keys: only WatchID and ClientID of the events, order_id and snapshot_date of the orders are compared, no other value.", columns.Width, ""))
	} else {
		fmt.Fprintln(ew, columns.Wrap("Values: every contract column a table holds is compared with what the intake stores from the planned message; a row whose values differ is changed, even beside an equal row.", columns.Width, ""))
	}
	if r.Events != nil {
		r.Events.write(ew)
	}
	if r.Raw != nil {
		r.Raw.write(ew, "raw", "rows, matched by the sipHash64 of their bytes (every message with a value, redeliveries included)")
	}
	if r.Errors != nil {
		r.Errors.write(ew, "errors", "rows per error_class, matched by the sipHash64 of their bytes")
	}
	if r.Orders != nil {
		r.Orders.write(ew)
	}
	if r.OrderErrors != nil {
		r.OrderErrors.write(ew, "order errors", "rows per error_class, matched by the sipHash64 of their bytes")
	}
	if r.Marts != nil {
		r.Marts.write(ew)
	}
	fmt.Fprintln(ew)
	r.writeDifferences(ew)
	fmt.Fprintln(ew, columns.Wrap(r.Verdict(), columns.Width, "    "))
	return ew.err
}

// Verdict is the result's last line: OK or DIFFERS, saying what was not judged.
func (r *Result) Verdict() string {
	keys := ""
	if r.Columns == ColumnsKeys {
		keys = " (keys only, --columns keys: values were not compared)"
	}
	switch {
	case !r.OK:
		return "DIFFERS" + keys + ": see the differences above."
	case r.Expired > 0:
		return fmt.Sprintf("OK%s: every table read holds what the inventory says, nothing else; %d raw rows past the %s retention not judged.", keys, r.Expired, "3-day")
	}
	return "OK" + keys + ": every table read holds exactly what the inventory says: every planned row present, nothing else."
}

// skipFlag is the flag that skips a table of role.
func skipFlag(role string) string {
	switch role {
	case RoleEvents:
		return "--events-table ''"
	case RoleErrors:
		return "--errors-table ''"
	case RoleRaw:
		return "--raw-table ''"
	case RoleOrders:
		return "--orders-table ''"
	case RoleOrderErrors:
		return "--order-errors-table ''"
	}
	return "--marts-view ''"
}

// maxNotJudged bounds the columns a section lists as not judged.
const maxNotJudged = 20

func headLine(w io.Writer, name string, h *TableHead, what string) {
	fmt.Fprintf(w, "\n%s\n", columns.Wrap(fmt.Sprintf("%s %s: %s", name, h.Table, what), columns.Width, "  "))
	if h.Engine != "" {
		fmt.Fprintf(w, "  engine %s", h.Engine)
		if h.Reads != "" {
			fmt.Fprintf(w, ", reading %s", h.Reads)
		}
		fmt.Fprintln(w)
	}
	if len(h.Shards) > 0 {
		parts := make([]string, len(h.Shards))
		for i, s := range h.Shards {
			parts[i] = fmt.Sprintf("shard %d", s.Shard)
			if len(s.Replicas) > 0 {
				parts[i] += " (" + strings.Join(s.Replicas, ", ") + ")"
			}
			parts[i] += fmt.Sprintf(" %d rows", s.Rows)
		}
		fmt.Fprintf(w, "  %s\n", columns.Wrap(fmt.Sprintf("every shard of cluster %s read: %s", h.Cluster, strings.Join(parts, ", ")), columns.Width-2, "    "))
	}
	if h.Error != "" {
		fmt.Fprintf(w, "  CANNOT BE READ: %s (%s skips it)\n", h.Error, skipFlag(name))
	}
	for _, p := range h.Problems {
		hint := "--columns keys compares no value"
		if name == RoleRaw {
			hint = skipFlag(RoleRaw) + " skips it"
		}
		fmt.Fprintf(w, "  DIFFERS: %s (%s)\n", p, hint)
	}
	if n := len(h.NotJudged); n > 0 {
		list := h.NotJudged[:min(n, maxNotJudged)]
		more := ""
		if n > maxNotJudged {
			more = fmt.Sprintf(" and %d more", n-maxNotJudged)
		}
		fmt.Fprintf(w, "  not judged (outside the contract): %s%s\n", strings.Join(list, ", "), more)
	}
}

func (e *EventsResult) write(w io.Writer) {
	headLine(w, "events", &e.TableHead, "distinct WatchIDs per EventDate, as FINAL counts them")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	clustered := e.Cluster != ""
	if clustered {
		// A table read through a cluster: the WatchIDs on more than one shard, and the rows
		// each shard sent.
		fmt.Fprintln(tw, "date\tday\tWatchIDs\tmissing\tunplanned\tchanged\tcopies\ton shards\trows per shard")
	} else {
		fmt.Fprintln(tw, "date\tday\tWatchIDs\tmissing\tunplanned\tchanged\tcopies\trows")
	}
	row := func(label, day string, c EventCounts, shards []ShardRows) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t", label, day, cell(c.Distinct(), c.Planned), c.Missing, c.Unplanned, c.Changed, c.Copies)
		if !clustered {
			fmt.Fprintf(tw, "%d\n", c.Rows)
			return
		}
		per := make([]string, len(shards))
		for i, s := range shards {
			per[i] = strconv.FormatInt(s.Rows, 10)
		}
		fmt.Fprintf(tw, "%d\t%s\n", c.OnShards, strings.Join(per, " / "))
	}
	for _, d := range e.Dates {
		row(d.Date, strconv.Itoa(d.Day), d.EventCounts, d.Shards)
	}
	row("total", "", e.Total, e.Shards)
	tw.Flush()
	writeColumns(w, e.Columns)
}

// maxColumnLines bounds the per-column lines of a section on the console.
const maxColumnLines = 20

// writeColumns writes, per column and date, the rows whose values differ, with one example.
func writeColumns(w io.Writer, cols []ColumnDiff) {
	if len(cols) == 0 {
		return
	}
	fmt.Fprintln(w, "  values that differ from what the intake stores, per column and date (rows; an example: held, planned):")
	for i, c := range cols {
		if i == maxColumnLines {
			fmt.Fprintf(w, "    … and %d more columns and dates (--report FILE lists them)\n", len(cols)-i)
			break
		}
		fmt.Fprintf(w, "    %s %s: %d", c.Date, c.Column, c.Rows)
		if len(c.Examples) > 0 {
			ex := c.Examples[0]
			fmt.Fprintf(w, "; %s: held %s, planned %s", ex.Key, ex.Held, ex.Planned)
		}
		fmt.Fprintln(w)
	}
}

func (d *DigestResult) write(w io.Writer, name, what string) {
	headLine(w, name, &d.TableHead, what)
	head := []string{"date", "day"}
	if d.Classes == nil {
		head = append(head, "rows", "redelivered", "missing", "expired", "copies")
	} else {
		head = append(head, d.Classes...)
		head = append(head, "missing", "misclassified", "copies")
	}
	tbl := columns.Table{Head: head} // cut to fit a terminal: classes make it wide
	row := func(label, day string, c DigestCounts, by map[string]DigestCounts) {
		cells := []string{label, day}
		if d.Classes == nil {
			cells = append(cells, cell(c.Present, c.Planned-c.Expired), cell(c.RedeliveredPresent, c.Redelivered),
				strconv.Itoa(c.Missing), strconv.Itoa(c.Expired), strconv.Itoa(c.Copies))
		} else {
			for _, cl := range d.Classes {
				cells = append(cells, cell(by[cl].Present, by[cl].Planned))
			}
			cells = append(cells, strconv.Itoa(c.Missing), strconv.Itoa(c.Misclassified), strconv.Itoa(c.Copies))
		}
		tbl.Rows = append(tbl.Rows, cells)
	}
	total := map[string]DigestCounts{}
	for _, u := range d.Units {
		row(u.Date, strconv.Itoa(u.Day), u.DigestCounts, u.ByClass)
		for cl, c := range u.ByClass {
			t := total[cl]
			t.add(c)
			total[cl] = t
		}
	}
	row("total", "", d.Total, total)
	tbl.Write(w, columns.Width)
	fmt.Fprintf(w, "  unplanned rows: %d; rows of dates outside the run (not judged): %d\n", d.Unplanned, d.OtherDates)
	for _, n := range d.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

func (o *OrdersResult) write(w io.Writer) {
	headLine(w, "orders", &o.TableHead, "every order at the version FINAL keeps (its latest snapshot_date)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "snapshot_date\tday\trows sent\tversions held\tlatest here")
	for _, s := range o.Snapshots {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", s.Date, s.Day, s.Rows, s.Versions, cell(s.FinalPresent, s.Final))
	}
	tw.Flush()
	c := o.Total
	onShards := ""
	if o.Cluster != "" {
		onShards = fmt.Sprintf(", %d on more than one shard", c.OnShards)
	}
	fmt.Fprintf(w, "  %s\n", columns.Wrap(fmt.Sprintf("orders: %s at their latest version; %d missing, %d stale, %d unplanned, %d unplanned versions, %d changed versions, %d copies%s; %d superseded by later snapshots, %d of other dates (not judged)",
		cell(c.Present+c.Newer, c.Planned), c.Missing, c.Stale, c.Unplanned, c.UnplannedVersions, c.Changed, c.Copies, onShards, c.Newer, c.OtherDates), columns.Width-2, "    "))
	writeColumns(w, o.Columns)
}

func (m *MartsResult) write(w io.Writer) {
	headLine(w, "marts", &m.TableHead, "orders per mismatch_class of every closed day")
	for _, n := range m.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	if len(m.Days) == 0 {
		return
	}
	extra := map[string]bool{}
	for _, d := range m.Days {
		for c := range d.Got {
			if _, ok := d.Want[c]; !ok {
				extra[c] = true
			}
		}
	}
	classes := append(append([]string(nil), martClasses...), sortedKeys(extra)...)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "date\tday\t"+strings.Join(classes, "\t")+"\tother classes")
	for _, d := range m.Days {
		cells := []string{d.Date, strconv.Itoa(d.Day)}
		for _, c := range classes {
			cells = append(cells, cell(d.Got[c], d.Want[c]))
		}
		if o := d.Other; o != nil {
			cells = append(cells, fmt.Sprintf("%d≠0 rows (%d distinct, e.g. %s)", o.Rows, o.Distinct, o.Example))
		} else {
			cells = append(cells, "0")
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

// writeDifferences lists up to MaxShown differences, shared between the tables in turn.
func (r *Result) writeDifferences(w io.Writer) {
	var groups [][]string
	var counts []string
	total := 0
	add := func(name string, h *TableHead, lines []string) {
		if h.Differences == 0 {
			return
		}
		total += h.Differences
		counts = append(counts, fmt.Sprintf("%s %d", name, h.Differences))
		var first []string
		if h.Error != "" {
			first = append(first, fmt.Sprintf("%s: %s (%s skips it)", name, h.Error, skipFlag(name)))
		}
		for _, p := range h.Problems {
			first = append(first, fmt.Sprintf("%s %s: %s", name, h.Table, p))
		}
		lines = append(first, lines...)
		groups = append(groups, lines)
	}
	if e := r.Events; e != nil {
		var lines []string
		for _, d := range e.Diffs {
			s := fmt.Sprintf("events %s %s: WatchID %d ClientID %d", d.Kind, d.Date, d.WatchID, d.ClientID)
			if d.Kind == KindOnShards {
				lines = append(lines, fmt.Sprintf("%s, %d rows on %s: FINAL cannot collapse it", s, d.Rows, shardsText(d.Shards)))
				continue
			}
			if d.Kind == KindChanged {
				s += " in " + d.Columns
				if d.PlannedClientID != 0 {
					s += fmt.Sprintf(" (planned ClientID %d)", d.PlannedClientID)
				}
			}
			if d.Rows > 1 {
				s += fmt.Sprintf(", %d rows", d.Rows)
			}
			lines = append(lines, s)
		}
		add("events", &e.TableHead, lines)
	}
	for _, t := range []struct {
		name string
		d    *DigestResult
	}{{"raw", r.Raw}, {"errors", r.Errors}, {"order errors", r.OrderErrors}} {
		if t.d == nil {
			continue
		}
		var lines []string
		for _, d := range t.d.Diffs {
			s := fmt.Sprintf("%s %s", t.name, d.Kind)
			if d.Date != "" {
				s += fmt.Sprintf(" %s (day %d)", d.Date, d.Day)
			}
			if d.What != "" {
				s += " " + d.What
			}
			if d.Class != "" || d.GotClass != "" {
				s += fmt.Sprintf(" class %q", d.Class)
				if d.GotClass != "" && d.GotClass != d.Class {
					s += fmt.Sprintf(" held as \"%s\"", d.GotClass)
				}
			}
			s += " sipHash64 " + d.Hash
			if d.Hint != "" {
				s += " naming date " + d.Hint
			}
			if d.Rows > 1 {
				s += fmt.Sprintf(", %d rows", d.Rows)
			}
			lines = append(lines, s)
		}
		add(t.name, &t.d.TableHead, lines)
	}
	if o := r.Orders; o != nil {
		var lines []string
		for _, d := range o.Diffs {
			s := fmt.Sprintf("orders %s: order_id %s", d.Kind, d.OrderID)
			if d.Kind == KindOnShards {
				lines = append(lines, fmt.Sprintf("%s, %d rows on %s (%s): FINAL cannot collapse it", s, d.Rows, shardsText(d.Shards), d.Versions))
				continue
			}
			if d.Date != "" {
				s += " planned snapshot_date " + d.Date
			}
			if d.Got != "" && d.Kind != KindChanged {
				s += " held " + d.Got
			}
			if d.Kind == KindChanged {
				s += " in " + d.Columns
			}
			if d.Rows > 1 {
				s += fmt.Sprintf(", %d rows", d.Rows)
			}
			lines = append(lines, s)
		}
		add("orders", &o.TableHead, lines)
	}
	if m := r.Marts; m != nil {
		var lines []string
		for _, d := range m.Diffs {
			if d.Kind == KindOtherClasses {
				lines = append(lines, fmt.Sprintf("marts %s: %d orders under %d classes the stand has no word for (e.g. %s)", d.Date, d.Got, d.Distinct, d.Class))
				continue
			}
			lines = append(lines, fmt.Sprintf("marts %s %s: %d orders, the inventory says %d", d.Date, d.Class, d.Got, d.Want))
		}
		add("marts", &m.TableHead, lines)
	}
	if total == 0 {
		return
	}
	fmt.Fprintf(w, "Differences: %s\n", strings.Join(counts, ", "))
	shown := 0
	for round := 0; shown < MaxShown; round++ {
		more := false
		for _, g := range groups {
			if round < len(g) && shown < MaxShown {
				fmt.Fprintf(w, "  %s\n", columns.Wrap(g[round], columns.Width-2, "    "))
				shown++
				more = true
			}
		}
		if !more {
			break
		}
	}
	if total > shown {
		fmt.Fprintf(w, "  … and %d more (--report FILE lists them)\n", total-shown)
	}
}

func cell(got, want int) string {
	if got == want {
		return strconv.Itoa(got)
	}
	return strconv.Itoa(got) + "≠" + strconv.Itoa(want)
}

// errWriter remembers the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
	return len(p), nil
}
