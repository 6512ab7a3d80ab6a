package topics

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/internal/columns"
)

// WriteTable writes r as a short human table: a row per day (hits) and per snapshot (orders),
// an unexpected row and a total per topic, then the differences (at most [MaxExamples] lines,
// then counts) and a verdict line. Cells count arrived messages; where that differs from what
// was sent the cell reads "arrived≠sent".
func (r *Result) WriteTable(w io.Writer) error {
	ew := &errWriter{w: w}
	e := r.exp
	if e != nil {
		inv, rg := e.Inventory, e.Range
		fmt.Fprintln(ew, columns.Wrap(fmt.Sprintf("seed %d, scale %g, %s", inv.Seed, inv.Scale, rg.Describe()), columns.Width, "  "))
	}
	fmt.Fprintln(ew, columns.Wrap("Cells count what arrived; \"a≠b\": a arrived, b were sent. Classes are the stand's intake's verdict on the arrived bytes.", columns.Width, ""))
	for _, tr := range []*TopicResult{&r.Hits, &r.Orders} {
		fmt.Fprintln(ew)
		tr.writeTable(ew)
	}
	fmt.Fprintln(ew)
	total := 0
	for _, k := range DiffKinds {
		total += r.Differences[k]
	}
	if total > 0 {
		var parts []string
		for _, k := range DiffKinds {
			if n := r.Differences[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(k, "_", " ")))
			}
		}
		fmt.Fprintf(ew, "Differences (messages): %s\n", strings.Join(parts, ", "))
		shown := r.examplesToShow()
		for _, d := range shown {
			fmt.Fprintf(ew, "  %s\n", columns.Wrap(d.String(), columns.Width-2, "    "))
		}
		if rest := total - countOf(shown); rest > 0 {
			fmt.Fprintf(ew, "  … and %d more (by kind above)\n", rest)
		}
	}
	switch {
	case r.OK:
		fmt.Fprintln(ew, columns.Wrap("OK: every message sent arrived as often as it was sent, with its key, in its partition, and nothing else; the clean hashes match the inventory.", columns.Width, "    "))
	case total == 0:
		fmt.Fprintln(ew, "DIFFERS: the counts above disagree (see the cells marked ≠).")
	default:
		fmt.Fprintln(ew, "DIFFERS: see the differences above.")
	}
	return ew.err
}

// examplesToShow picks at most MaxExamples examples, sharing them fairly between the groups
// (kind, topic, day), in example order.
func (r *Result) examplesToShow() []Difference {
	var groups []exampleGroup
	by := map[exampleGroup][]Difference{}
	for _, d := range r.Examples {
		g := groupOf(&d)
		if _, ok := by[g]; !ok {
			groups = append(groups, g)
		}
		by[g] = append(by[g], d)
	}
	take := map[exampleGroup]int{}
	for n, round := 0, 0; n < MaxExamples; round++ {
		added := false
		for _, g := range groups {
			if round < len(by[g]) && n < MaxExamples {
				take[g]++
				n++
				added = true
			}
		}
		if !added {
			break
		}
	}
	var out []Difference
	for _, g := range groups {
		out = append(out, by[g][:take[g]]...)
	}
	return out
}

func countOf(ds []Difference) int {
	n := 0
	for _, d := range ds {
		n += d.Count
	}
	return n
}

// writeTable writes the topic's table: a row per day (or snapshot), the unexpected
// messages, other runs' when there are any, and the total; columns what arrived (messages,
// clean, redelivered, per partition, the clean hash) and then what the stand makes of it (raw
// rows, the ODS rows, per intake class). Classes that are 0 in every row are named in a line
// instead of a column, and the table is cut into parts that fit columns.Width.
func (tr *TopicResult) writeTable(w io.Writer) {
	t := hits
	ods := "ods_events"
	if tr.Topic == TopicOrders {
		t, ods = orders, "ods_orders"
	}
	nparts := max(int(tr.Partitions), len(tr.Got.Partitions), len(tr.Want.Partitions))
	plural := "s"
	if tr.Partitions == 1 {
		plural = ""
	}
	type line struct {
		label      string
		want, got  Tally
		sw, sg     Stand
		last       string
		noExpected bool // a row of what nothing was sent for: its cells are what arrived
	}
	var lines []line
	for _, u := range tr.Units {
		label := fmt.Sprintf("day %d %s", u.Day, u.Date)
		if t == orders {
			label = fmt.Sprintf("snapshot %d %s", u.Day, u.Date)
		}
		sha := "ok " + short(u.SHA256)
		if len(u.SegmentSHA256) > 0 {
			sha = fmt.Sprintf("ok, %d shares", len(u.SegmentSHA256))
		}
		if !u.SHA256OK {
			sha = fmt.Sprintf("DIFFERS: %d of %d clean missing", u.Want.Clean-u.Got.Clean, u.Want.Clean)
		}
		lines = append(lines, line{label: label, want: u.Want, got: u.Got, sw: u.StandWant, sg: u.StandGot, last: sha})
	}
	lines = append(lines, line{label: "unexpected", want: newTally(t, tr.Partitions), got: tr.Unexpected, sg: tr.UnexpectedStand})
	if tr.Other.Messages > 0 {
		lines = append(lines, line{label: "other runs'", got: tr.Other, noExpected: true})
	}
	lines = append(lines, line{label: "total", want: tr.Want, got: tr.Got, sw: tr.StandWant, sg: tr.StandGot})
	// The intake's classes that hold something somewhere get a column; the others a line.
	var classes, zero []string
	for _, o := range outcomes[t] {
		some := false
		for _, l := range lines {
			some = some || l.got.Classes[o] != 0 || l.want.Classes[o] != 0
		}
		if some || o == Accepted {
			classes = append(classes, o)
		} else {
			zero = append(zero, o)
		}
	}
	head := []string{fmt.Sprintf("%s (%d partition%s)", tr.Topic, tr.Partitions, plural), "messages", "clean", "redelivered"}
	for p := range nparts {
		head = append(head, "p"+strconv.Itoa(p))
	}
	head = append(head, "sha256", "stg_rows", ods)
	head = append(head, classes...)
	tbl := columns.Table{Head: head, Groups: []int{3, nparts, 1, 2, len(classes)}}
	if len(tr.Units) == 0 {
		tbl.Rows = append(tbl.Rows, []string{"(nothing sent)"})
	}
	for _, l := range lines {
		c := func(got, want int) string {
			if l.noExpected {
				return strconv.Itoa(got)
			}
			return cell(got, want)
		}
		cells := []string{l.label, c(l.got.Messages, l.want.Messages), c(l.got.Clean, l.want.Clean), c(l.got.Redelivered, l.want.Redelivered)}
		for p := range nparts {
			cells = append(cells, c(at(l.got.Partitions, p), at(l.want.Partitions, p)))
		}
		stg, odsCell := c(l.sg.StgRows, l.sw.StgRows), c(l.sg.ODS, l.sw.ODS)
		if l.noExpected {
			stg, odsCell = "-", "-"
		}
		cells = append(cells, l.last, stg, odsCell)
		for _, o := range classes {
			cells = append(cells, c(l.got.Classes[o], l.want.Classes[o]))
		}
		tbl.Rows = append(tbl.Rows, cells)
	}
	tbl.Write(w, columns.Width)
	if len(zero) > 0 {
		fmt.Fprintln(w, columns.Wrap(fmt.Sprintf("%s: 0 in every row (%s).", tr.Topic, strings.Join(zero, ", ")), columns.Width, "  "))
	}
	if tr.Other.Messages > 0 {
		fmt.Fprintln(w, columns.Wrap(fmt.Sprintf("other runs': %d messages name model days outside the run (%s): counted, not judged.",
			tr.Other.Messages, dayRanges(tr.OtherDays)), columns.Width, "  "))
	}
}

// dayRanges says model days in order, runs of consecutive days as "0–7": "0–7, 9".
func dayRanges(days []int) string {
	var out []string
	for i := 0; i < len(days); {
		j := i
		for j+1 < len(days) && days[j+1] == days[j]+1 {
			j++
		}
		if j > i {
			out = append(out, fmt.Sprintf("days %d–%d", days[i], days[j]))
		} else {
			out = append(out, fmt.Sprintf("day %d", days[i]))
		}
		i = j + 1
	}
	return strings.Join(out, ", ")
}

func cell(got, want int) string {
	if got == want {
		return strconv.Itoa(got)
	}
	return strconv.Itoa(got) + "≠" + strconv.Itoa(want)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
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
